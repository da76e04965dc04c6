package org.gpuoperator.controller.reconcile;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.http.RecordedRequest;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.gpuoperator.api.v1.ClusterPolicy;
import org.gpuoperator.controller.operand.Operand;

/**
 * The parts of a cluster the CRUD mock lacks: the test plays the DaemonSet controller (one pod per
 * matching node, from the DaemonSet's template) and the kubelet (flipping pod readiness).
 */
final class FakeCluster {

    static final String NS = "gpu-operator";
    static final String SIM = "gpuoperator.org/simulated-gpu";

    private final KubernetesClient client;
    private final KubernetesMockServer server;

    FakeCluster(KubernetesClient client, KubernetesMockServer server) {
        this.client = client;
        this.server = server;
    }

    /** A client on the JDK HTTP stack for the same mock server. */
    static KubernetesClient jdkClient(KubernetesClient mockClient) {
        return new io.fabric8.kubernetes.client.KubernetesClientBuilder()
                .withConfig(
                        new io.fabric8.kubernetes.client.ConfigBuilder(
                                        mockClient.getConfiguration())
                                .withRequestTimeout(20_000)
                                .build())
                .withHttpClientFactory(
                        new io.fabric8.kubernetes.client.jdkhttp.JdkHttpClientFactory())
                .build();
    }

    void loadCrds() throws Exception {
        try (InputStream in =
                ClusterPolicy.class.getResourceAsStream(
                        "/META-INF/fabric8/clusterpolicies.nvidia.com-v1.yml")) {
            client.apiextensions().v1().customResourceDefinitions().load(in).create();
        }
    }

    Node node(String name, String... labels) {
        Map<String, String> l = new HashMap<>();
        for (int i = 0; i < labels.length; i += 2) {
            l.put(labels[i], labels[i + 1]);
        }
        return client.nodes()
                .resource(
                        new NodeBuilder()
                                .withNewMetadata()
                                .withName(name)
                                .withLabels(l)
                                .endMetadata()
                                .build())
                .create();
    }

    /**
     * A simulated GPU node whose GPUs feature discovery found MIG capable (as on the default
     * simulated H100s), so that every operand, the MIG manager too, walks its gate there.
     */
    Node gpuNode(String name) {
        return node(name, SIM, "true", "nvidia.com/mig.capable", "true");
    }

    /**
     * A simulated GPU node whose kubelet reports this container runtime (e.g. cri-o://1.30.0) and,
     * as a kubelet does, its Ready condition.
     */
    Node gpuNode(String name, String containerRuntimeVersion) {
        gpuNode(name);
        return client.nodes()
                .withName(name)
                .editStatus(
                        n ->
                                new NodeBuilder(n)
                                        .editOrNewStatus()
                                        .editOrNewNodeInfo()
                                        .withContainerRuntimeVersion(containerRuntimeVersion)
                                        .endNodeInfo()
                                        .addNewCondition()
                                        .withType("Ready")
                                        .withStatus("True")
                                        .endCondition()
                                        .endStatus()
                                        .build());
    }

    /**
     * Edits a node as a user would, retrying on a conflict: the controller writes the node's
     * labels, taint and GPUStackReady condition concurrently.
     */
    void editNode(String name, java.util.function.UnaryOperator<Node> change) {
        org.awaitility.Awaitility.await()
                .atMost(java.time.Duration.ofSeconds(60))
                .ignoreExceptions()
                .until(
                        () -> {
                            client.nodes().withName(name).edit(change);
                            return true;
                        });
    }

    Map<String, String> labels(String node) {
        Map<String, String> l = client.nodes().withName(node).get().getMetadata().getLabels();
        return l == null ? Map.of() : l;
    }

    DaemonSet daemonSet(Operand operand) {
        return client.apps().daemonSets().inNamespace(NS).withName(operand.daemonSetName()).get();
    }

    /**
     * As the DaemonSet controller: a (not yet Ready) pod on every node the DaemonSet selects and
     * that has none.
     */
    void schedule(Operand operand) {
        DaemonSet ds = daemonSet(operand);
        if (ds == null) {
            return;
        }
        for (Node node : client.nodes().list().getItems()) {
            String podName = operand.daemonSetName() + "-" + node.getMetadata().getName();
            if (selects(ds, node)
                    && client.pods().inNamespace(NS).withName(podName).get() == null) {
                client.pods()
                        .inNamespace(NS)
                        .resource(
                                new PodBuilder()
                                        .withNewMetadata()
                                        .withName(podName)
                                        .withNamespace(NS)
                                        .withLabels(
                                                ds.getSpec()
                                                        .getTemplate()
                                                        .getMetadata()
                                                        .getLabels())
                                        .withAnnotations(
                                                ds.getSpec()
                                                        .getTemplate()
                                                        .getMetadata()
                                                        .getAnnotations())
                                        .addNewOwnerReference()
                                        .withApiVersion("apps/v1")
                                        .withKind("DaemonSet")
                                        .withName(ds.getMetadata().getName())
                                        .withUid(
                                                ds.getMetadata().getUid() == null
                                                        ? "uid-" + ds.getMetadata().getName()
                                                        : ds.getMetadata().getUid())
                                        .withController(true)
                                        .endOwnerReference()
                                        .endMetadata()
                                        .withSpec(ds.getSpec().getTemplate().getSpec())
                                        .editSpec()
                                        .withNodeName(node.getMetadata().getName())
                                        .endSpec()
                                        .withNewStatus()
                                        .withPhase("Running")
                                        .withConditions(
                                                new PodConditionBuilder()
                                                        .withType("Ready")
                                                        .withStatus("False")
                                                        .build())
                                        .endStatus()
                                        .build())
                        .create();
            }
        }
    }

    /**
     * As the DaemonSet controller: the operand's pod leaves every node the DaemonSet no longer
     * selects (e.g. its deploy label paused).
     */
    void unscheduleUnmatched(Operand operand) {
        DaemonSet ds = daemonSet(operand);
        if (ds == null) {
            return;
        }
        for (Node node : client.nodes().list().getItems()) {
            if (!selects(ds, node)) {
                client.pods()
                        .inNamespace(NS)
                        .withName(operand.daemonSetName() + "-" + node.getMetadata().getName())
                        .delete();
            }
        }
    }

    /** The DaemonSet's node selector matches the node's labels. */
    private static boolean selects(DaemonSet ds, Node node) {
        Map<String, String> selector = ds.getSpec().getTemplate().getSpec().getNodeSelector();
        Map<String, String> labels = node.getMetadata().getLabels();
        return labels != null
                && selector.entrySet().stream()
                        .allMatch(e -> e.getValue().equals(labels.get(e.getKey())));
    }

    /** As the kubelet: the operand's pod on the node passes or fails its readiness probe. */
    void setReady(Operand operand, String node, boolean ready) {
        String podName = operand.daemonSetName() + "-" + node;
        Pod pod = client.pods().inNamespace(NS).withName(podName).get();
        pod.getStatus()
                .setConditions(
                        List.of(
                                new PodConditionBuilder()
                                        .withType("Ready")
                                        .withStatus(ready ? "True" : "False")
                                        .build()));
        client.pods().inNamespace(NS).resource(pod).updateStatus();
    }

    void scheduleAndReady(Operand operand, String... nodes) {
        schedule(operand);
        for (String node : nodes) {
            setReady(operand, node, true);
        }
    }

    /** Drains the requests the mock server received so far and returns the writes among them. */
    List<String> drainWrites() throws InterruptedException {
        return drainRequests().stream()
                .filter(
                        r ->
                                r.startsWith("POST ")
                                        || r.startsWith("PUT ")
                                        || r.startsWith("PATCH ")
                                        || r.startsWith("DELETE "))
                .toList();
    }

    /** Drains the requests the mock server received so far: "METHOD path" each. */
    List<String> drainRequests() throws InterruptedException {
        List<String> requests = new ArrayList<>();
        RecordedRequest r;
        while ((r = server.takeRequest(50, TimeUnit.MILLISECONDS)) != null) {
            requests.add(r.getMethod() + " " + r.getPath());
        }
        return requests;
    }
}
