package org.gpuoperator.node.labels;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.util.Map;
import java.util.SortedMap;

/**
 * Puts an agent's labels on its node with one JSON patch that names only the keys that change, so a
 * concurrent writer of other labels is never overwritten. Needs RBAC {@code get} and {@code patch}
 * on {@code nodes}. The node is read and patched as a generic resource ({@link
 * AgentKubeClient#NODES}): only its labels and annotations are needed, and Jackson's reader of
 * fabric8's whole Node model is then not built on the way to the first labels. (fabric8 is an
 * optional dependency of this library: an agent that patches labels brings it.)
 */
public final class NodeLabelPatcher {

    /** What a patch did: nothing when the node already had the wanted labels. */
    public record Outcome(boolean changed, int set, int removed) {
        public static final Outcome UNCHANGED = new Outcome(false, 0, 0);
    }

    /** The node is missing or the API refused the patch; the next run starts afresh. */
    public static final class PatchFailedException extends RuntimeException {
        PatchFailedException(String message, Throwable cause) {
            super(message, cause);
        }
    }

    private final KubernetesClient client;
    private final String nodeName;
    private final LabelOwnership ownership;

    public NodeLabelPatcher(KubernetesClient client, String nodeName, LabelOwnership ownership) {
        this.client = client;
        this.nodeName = nodeName;
        this.ownership = ownership;
    }

    public Outcome apply(SortedMap<String, String> wanted) {
        Resource<GenericKubernetesResource> resource = AgentKubeClient.node(client, nodeName);
        GenericKubernetesResource node = resource.get();
        if (node == null) {
            throw new PatchFailedException(
                    "node " + nodeName + " not found (check NODE_NAME / --node-name)", null);
        }
        Map<String, String> labels = node.getMetadata().getLabels();
        Map<String, String> annotations = node.getMetadata().getAnnotations();
        NodeLabelPatch patch =
                NodeLabelPatch.between(
                        ownership,
                        labels == null ? Map.of() : labels,
                        annotations == null ? Map.of() : annotations,
                        wanted);
        if (patch.empty()) {
            return Outcome.UNCHANGED;
        }
        String json =
                client.getKubernetesSerialization()
                        .asJson(patch.jsonPatchOnto(labels, annotations));
        try {
            resource.patch(PatchContext.of(PatchType.JSON), json);
        } catch (KubernetesClientException e) {
            // Typically a label removed by someone else between read and patch.
            throw new PatchFailedException(
                    "cannot patch the labels of node " + nodeName + ": " + e.getMessage(), e);
        }
        return new Outcome(true, patch.set(), patch.removed());
    }

    public String nodeName() {
        return nodeName;
    }
}
