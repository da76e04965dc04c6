package org.gpuoperator.gfd.publish;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;

/**
 * Publishes the labels straight onto the Node object (when NFD's NodeFeature API is not there) with one JSON patch
 * that names only the keys that change, so a concurrent writer of other labels is never overwritten.
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
        String json = toJsonPatch(patch, node.getMetadata().getLabels() != null,
                node.getMetadata().getAnnotations() != null);
        try {
            client.nodes().withName(nodeName).patch(PatchContext.of(PatchType.JSON), json);
        } catch (KubernetesClientException e) {
            // Typically a label removed by someone else between read and patch; the next run starts afresh.
            throw new PublishException("cannot patch the labels of node " + nodeName + ": " + e.getMessage(), e);
        }
        return new Outcome(true, patch.set(), patch.removed());
    }

    /**
     * An RFC 6902 JSON patch: {@code add} (which also replaces) for each label set, {@code remove} for each label
     * removed. Unlike a merge patch it names each key on its own path, so nothing else in the maps is touched.
     */
    static String toJsonPatch(NodeLabelPatch patch, boolean hasLabels, boolean hasAnnotations) {
        List<Map<String, Object>> ops = new ArrayList<>();
        addAll(ops, "/metadata/labels", patch.labels(), hasLabels);
        addAll(ops, "/metadata/annotations", patch.annotations(), hasAnnotations);
        try {
            return JSON.writeValueAsString(ops);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void addAll(List<Map<String, Object>> ops, String mapPath, Map<String, String> changes,
            boolean mapExists) {
        if (changes.isEmpty()) {
            return;
        }
        if (!mapExists) {
            ops.add(Map.of("op", "add", "path", mapPath, "value", Map.of()));
        }
        changes.forEach((key, value) -> {
            String path = mapPath + "/" + key.replace("~", "~0").replace("/", "~1");
            ops.add(value == null ? Map.of("op", "remove", "path", path)
                    : Map.of("op", "add", "path", path, "value", value));
        });
    }

    @Override
    public String target() {
        return "node/" + nodeName;
    }
}
