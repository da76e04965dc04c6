package org.gpuoperator.migmanager.reconcile;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Stream;
import org.gpuoperator.node.labels.NodeLabelPatch;

/**
 * {@link MigNodeAccess} through the Kubernetes API. RBAC: nodes get, list, watch, patch; pods list
 * (cluster-wide, by field selector on the node).
 */
public final class KubeMigNodeAccess implements MigNodeAccess {

    private final KubernetesClient client;
    private final String nodeName;
    private final Function<String, List<Pod>> podsOnNode;

    public KubeMigNodeAccess(KubernetesClient client, String nodeName) {
        this(
                client,
                nodeName,
                node ->
                        client.pods()
                                .inAnyNamespace()
                                .withField("spec.nodeName", node)
                                .list()
                                .getItems());
    }

    /**
     * @param podsOnNode lists the pods bound to a node (the API server's field selector; tests: an
     *     API mock that has none)
     */
    public KubeMigNodeAccess(
            KubernetesClient client, String nodeName, Function<String, List<Pod>> podsOnNode) {
        this.client = client;
        this.nodeName = nodeName;
        this.podsOnNode = podsOnNode;
    }

    private Node node() {
        Node node = client.nodes().withName(nodeName).get();
        if (node == null) {
            throw new IllegalStateException(
                    "node " + nodeName + " not found (check NODE_NAME / --node-name)");
        }
        return node;
    }

    @Override
    public Meta meta() {
        Node node = node();
        return new Meta(node.getMetadata().getLabels(), node.getMetadata().getAnnotations());
    }

    @Override
    public void patch(MigStep.NodeChanges changes) {
        if (changes.empty()) {
            return;
        }
        Node node = node();
        NodeLabelPatch patch = new NodeLabelPatch(changes.labels(), changes.annotations(), 0, 0);
        String json =
                Serialization.asJson(
                        patch.jsonPatchOnto(
                                node.getMetadata().getLabels(),
                                node.getMetadata().getAnnotations()));
        client.nodes().withName(nodeName).patch(PatchContext.of(PatchType.JSON), json);
    }

    @Override
    public List<String> gpuPods() {
        return podsOnNode().stream()
                .filter(KubeMigNodeAccess::running)
                .filter(KubeMigNodeAccess::holdsGpu)
                .map(KubeMigNodeAccess::name)
                .sorted()
                .toList();
    }

    @Override
    public List<String> clientPods() {
        return podsOnNode().stream()
                .filter(
                        p -> {
                            Map<String, String> labels = p.getMetadata().getLabels();
                            return labels != null
                                    && MigLabels.CLIENTS.containsValue(labels.get("app"));
                        })
                .map(KubeMigNodeAccess::name)
                .sorted()
                .toList();
    }

    private List<Pod> podsOnNode() {
        return podsOnNode.apply(nodeName);
    }

    private static boolean running(Pod pod) {
        String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
        return !"Succeeded".equals(phase) && !"Failed".equals(phase);
    }

    static boolean holdsGpu(Pod pod) {
        if (pod.getSpec() == null) {
            return false;
        }
        return Stream.concat(
                        pod.getSpec().getContainers().stream(),
                        pod.getSpec().getInitContainers().stream())
                .map(Container::getResources)
                .filter(r -> r != null)
                .flatMap(
                        r ->
                                Stream.concat(
                                        r.getLimits() == null
                                                ? Stream.<String>empty()
                                                : r.getLimits().keySet().stream(),
                                        r.getRequests() == null
                                                ? Stream.<String>empty()
                                                : r.getRequests().keySet().stream()))
                .anyMatch(k -> k.startsWith("nvidia.com/"));
    }

    private static String name(Pod pod) {
        return pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName();
    }
}
