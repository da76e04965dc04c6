package org.gpuoperator.node.labels;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceList;
import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.util.List;

/**
 * The Kubernetes client of a node agent that watches its own Node ({@link OwnNodeInformer}). A
 * watch event's object is read by its {@code kind}, and fabric8's default serialization finds the
 * class for a kind by loading and instantiating every model class its jars list (~620 in
 * mig-manager) the first time one is read. Only Status is registered, so the one that ends a watch
 * (410 Gone) stays a Status and the informer lists again; nothing is searched, and any other kind
 * (the Node of {@link OwnNodeInformer}'s watch) is read as a generic resource, which is what the
 * agents watch and read their Node as ({@link #NODES}): they need its labels and annotations, not
 * fabric8's Node model, whose reader Jackson would otherwise build at the first event.
 */
public final class AgentKubeClient {

    /**
     * What an agent watching its own Node reads first: a 404's or a watch's end's Status, its Node
     * and a list of it as generic resources.
     */
    public static final List<Class<?>> OWN_NODE_TYPES =
            List.of(
                    Status.class,
                    GenericKubernetesResource.class,
                    GenericKubernetesResourceList.class);

    /**
     * The core API's pods, named by their resource as discovery names them, for an agent that reads
     * pods as generic resources: Jackson builds its deserializer for fabric8's whole Pod model at
     * the first typed read (~150 ms of CPU in a cold JVM, ~4.5 MB of heap that stays live), and
     * naming the kind instead (apiVersion and kind) makes fabric8 build the registry of its model
     * classes at the first lookup (~80 ms).
     */
    public static final ResourceDefinitionContext PODS =
            new ResourceDefinitionContext.Builder()
                    .withGroup("")
                    .withVersion("v1")
                    .withKind("Pod")
                    .withPlural("pods")
                    .withNamespaced(true)
                    .build();

    /**
     * The core API's nodes, named by their resource: every agent reads and watches its Node as a
     * generic resource ({@link OwnNodeInformer}, {@link NodeLabelPatcher}, the validator's
     * allocatable GPUs and report), so Jackson never builds its deserializer for fabric8's Node
     * model.
     */
    public static final ResourceDefinitionContext NODES =
            new ResourceDefinitionContext.Builder()
                    .withGroup("")
                    .withVersion("v1")
                    .withKind("Node")
                    .withPlural("nodes")
                    .withNamespaced(false)
                    .build();

    private AgentKubeClient() {}

    /** The node {@code nodeName} as a generic resource ({@link #NODES}): to get, patch or watch. */
    public static Resource<GenericKubernetesResource> node(
            KubernetesClient client, String nodeName) {
        return client.genericKubernetesResources(NODES).withName(nodeName);
    }

    /** The serialization: Status registered, no class-path search. */
    public static KubernetesSerialization serialization() {
        KubernetesSerialization s = new KubernetesSerialization(new ObjectMapper(), false);
        s.registerKubernetesResource(Status.class);
        return s;
    }

    /** A client from the usual configuration (in-cluster, kubeconfig) with that serialization. */
    public static KubernetesClient build() {
        return new KubernetesClientBuilder().withKubernetesSerialization(serialization()).build();
    }

    /**
     * Reads an empty object of each of {@code types} with {@code client}'s serialization and writes
     * it back, on a daemon thread, for an agent whose first requests and responses are on its way
     * to ready: Jackson builds a type's reader and writer the first time it needs one, by
     * reflection over the model's classes and their annotations (~60 ms of feature-discovery's
     * first 404 Status, ~120 ms of the validator's first Pod, on the path of the request), and
     * keeps them in the client's mapper. Started right after the client is built, it runs while the
     * client connects and shakes hands. The returned thread ends by itself.
     */
    public static Thread warmUpSerialization(KubernetesClient client, List<Class<?>> types) {
        KubernetesSerialization serialization = client.getKubernetesSerialization();
        return Thread.ofPlatform()
                .daemon()
                .name("serialization-warm-up")
                .start(() -> readAndWriteEmpty(serialization, types));
    }

    /** A failure leaves that type's reader or writer to the real request. */
    static void readAndWriteEmpty(KubernetesSerialization serialization, List<Class<?>> types) {
        for (Class<?> type : types) {
            try {
                serialization.asJson(serialization.unmarshal("{}", type));
            } catch (RuntimeException e) {
                // the real request will say what is wrong, if anything
            }
        }
    }

    /** A client of {@code config} with that serialization. */
    public static KubernetesClient build(Config config) {
        return new KubernetesClientBuilder()
                .withConfig(config)
                .withKubernetesSerialization(serialization())
                .build();
    }
}
