package org.gpuoperator.migmanager.reconcile;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.util.List;
import java.util.function.Function;
import org.gpuoperator.node.labels.AgentKubeClient;
import org.gpuoperator.node.labels.NodeLabelPatch;
import org.gpuoperator.node.labels.OwnNodeInformer;

/**
 * {@link MigNodeAccess} through the Kubernetes API. RBAC: nodes get, list, watch, patch; pods list
 * (cluster-wide, by field selector on the node).
 *
 * <p>The node's pods are read as generic resources ({@link NodePod} takes the few fields needed):
 * building Jackson's deserializer for fabric8's whole Pod model cost ~150 ms of CPU at the first
 * reconcile and ~4.5 MB of heap that stayed live, for a list read only for names, labels, phases
 * and resource names. They are named by their resource ({@link AgentKubeClient#PODS}), not by
 * apiVersion and kind: fabric8 looks a kind up in the registry of its model classes, which it
 * builds at the first lookup (~80 ms of CPU on the way to the first reconcile's end, by
 * async-profiler).
 */
public final class KubeMigNodeAccess implements MigNodeAccess {

    private final KubernetesClient client;
    private final String nodeName;
    private final Function<String, List<GenericKubernetesResource>> podsOnNode;

    public KubeMigNodeAccess(KubernetesClient client, String nodeName) {
        this(
                client,
                nodeName,
                node ->
                        client.genericKubernetesResources(AgentKubeClient.PODS)
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
            KubernetesClient client,
            String nodeName,
            Function<String, List<GenericKubernetesResource>> podsOnNode) {
        this.client = client;
        this.nodeName = nodeName;
        this.podsOnNode = podsOnNode;
    }

    /** The node's metadata, read as a generic resource ({@link OwnNodeInformer#read}). */
    private ObjectMeta node() {
        ObjectMeta node = OwnNodeInformer.read(client, nodeName);
        if (node == null) {
            throw new IllegalStateException(
                    "node " + nodeName + " not found (check NODE_NAME / --node-name)");
        }
        return node;
    }

    @Override
    public Meta meta() {
        ObjectMeta node = node();
        return new Meta(node.getLabels(), node.getAnnotations());
    }

    @Override
    public void patch(MigStep.NodeChanges changes) {
        if (changes.empty()) {
            return;
        }
        ObjectMeta node = node();
        NodeLabelPatch patch = new NodeLabelPatch(changes.labels(), changes.annotations(), 0, 0);
        String json =
                client.getKubernetesSerialization()
                        .asJson(patch.jsonPatchOnto(node.getLabels(), node.getAnnotations()));
        AgentKubeClient.node(client, nodeName).patch(PatchContext.of(PatchType.JSON), json);
    }

    @Override
    public Pods pods(boolean gpuHolders, boolean clients) {
        if (!gpuHolders && !clients) {
            return Pods.NONE;
        }
        List<NodePod> pods = podsOnNode();
        return new Pods(
                gpuHolders
                        ? pods.stream()
                                .filter(NodePod::running)
                                .filter(NodePod::holdsGpu)
                                .map(NodePod::name)
                                .sorted()
                                .toList()
                        : List.of(),
                clients
                        ? pods.stream()
                                .filter(
                                        p ->
                                                p.app() != null
                                                        && MigLabels.CLIENTS.containsValue(p.app()))
                                .map(NodePod::name)
                                .sorted()
                                .toList()
                        : List.of());
    }

    private List<NodePod> podsOnNode() {
        return podsOnNode.apply(nodeName).stream().map(NodePod::of).toList();
    }
}
