package org.gpuoperator.controller.mustgather;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;

/** {@link ClusterReader} through a fabric8 client (kubeconfig or in-cluster). */
public final class Fabric8ClusterReader implements ClusterReader {

    // named in full: no discovery call, and a policy this version cannot read is still listed
    private static final ResourceDefinitionContext CLUSTER_POLICIES =
            new ResourceDefinitionContext.Builder()
                    .withGroup("nvidia.com")
                    .withVersion("v1")
                    .withKind("ClusterPolicy")
                    .withPlural("clusterpolicies")
                    .withNamespaced(false)
                    .build();

    private static final ResourceDefinitionContext NVIDIA_DRIVERS =
            new ResourceDefinitionContext.Builder()
                    .withGroup("nvidia.com")
                    .withVersion("v1alpha1")
                    .withKind("NVIDIADriver")
                    .withPlural("nvidiadrivers")
                    .withNamespaced(false)
                    .build();

    private final KubernetesClient client;

    public Fabric8ClusterReader(KubernetesClient client) {
        this.client = client;
    }

    @Override
    public List<GenericKubernetesResource> clusterPolicies() {
        return client.genericKubernetesResources(CLUSTER_POLICIES).list().getItems();
    }

    @Override
    public List<GenericKubernetesResource> nvidiaDrivers() {
        try {
            return client.genericKubernetesResources(NVIDIA_DRIVERS).list().getItems();
        } catch (KubernetesClientException e) {
            if (e.getCode() == 404) {
                return List.of(); // the CRD is not installed
            }
            throw e;
        }
    }

    @Override
    public List<Node> nodes() {
        return client.nodes().list().getItems();
    }

    @Override
    public List<DaemonSet> daemonSets(String namespace) {
        return client.apps().daemonSets().inNamespace(namespace).list().getItems();
    }

    @Override
    public List<Pod> pods(String namespace) {
        return client.pods().inNamespace(namespace).list().getItems();
    }

    @Override
    public List<Secret> secrets(String namespace) {
        return client.secrets().inNamespace(namespace).list().getItems();
    }

    @Override
    public List<Event> events(String namespace) {
        return client.v1().events().inNamespace(namespace).list().getItems();
    }

    @Override
    public List<Event> eventsAbout(String kind) {
        return client.v1()
                .events()
                .inAnyNamespace()
                .withField("involvedObject.kind", kind)
                .list()
                .getItems();
    }

    @Override
    public Optional<String> podLog(
            String namespace, String pod, String container, boolean previous) {
        // raw: fabric8's getLog() may wait for the pod to become ready first
        String uri =
                "/api/v1/namespaces/"
                        + enc(namespace)
                        + "/pods/"
                        + enc(pod)
                        + "/log?container="
                        + enc(container)
                        + (previous ? "&previous=true" : "");
        return Optional.ofNullable(client.raw(uri));
    }

    @Override
    public String podProxyGet(String namespace, String pod, int port, String path) {
        String uri =
                "/api/v1/namespaces/"
                        + enc(namespace)
                        + "/pods/"
                        + enc(pod)
                        + ":"
                        + port
                        + "/proxy"
                        + path;
        String body = client.raw(uri);
        if (body == null) {
            throw new IllegalStateException("GET " + uri + ": 404 Not Found");
        }
        return body;
    }

    private static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }
}
