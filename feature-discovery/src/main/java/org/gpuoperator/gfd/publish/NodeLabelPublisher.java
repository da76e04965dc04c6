package org.gpuoperator.gfd.publish;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SortedMap;

/**
 * Publishes the labels straight onto the Node object (when NFD's NodeFeature API is not there) with one JSON merge
 * patch that names only the keys that change, so a concurrent writer of other labels is never overwritten.
 * Needs RBAC {@code get} and {@code patch} on {@code nodes}.
 */
public final class NodeLabelPublisher implements LabelPublisher {

    private static final ObjectMapper JSON = new ObjectMapper();

    private final KubernetesClient client;
    private final String nodeName;

    public NodeLabelPublisher(KubernetesClient client, String nodeName) {
        this.client = client;
        this.nodeName = nodeName;
    }

    @Override
    public Outcome publish(SortedMap<String, String> labels) {
        Node node = client.nodes().withName(nodeName).get();
        if (node == null) {
            throw new PublishException("node " + nodeName + " not found (check NODE_NAME / --node-name)");
        }
        Map<String, String> current = node.getMetadata().getLabels() == null ? Map.of() : node.getMetadata().getLabels();
        Map<String, String> annotations = node.getMetadata().getAnnotations() == null ? Map.of()
                : node.getMetadata().getAnnotations();
        NodeLabelPatch patch = NodeLabelPatch.between(current, annotations, labels);
        if (patch.empty()) {
            return Outcome.UNCHANGED;
        }
        client.nodes().withName(nodeName).patch(PatchContext.of(PatchType.JSON_MERGE), toJson(patch));
        return new Outcome(true, patch.set(), patch.removed());
    }

    static String toJson(NodeLabelPatch patch) {
        Map<String, Object> metadata = new LinkedHashMap<>();
        if (!patch.labels().isEmpty()) {
            metadata.put("labels", patch.labels());
        }
        if (!patch.annotations().isEmpty()) {
            metadata.put("annotations", patch.annotations());
        }
        try {
            return JSON.writeValueAsString(Map.of("metadata", metadata));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public String target() {
        return "node/" + nodeName;
    }
}
