package org.gpuoperator.node.labels;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;

/**
 * The change that turns a node's labels into an agent's wanted labels, touching nothing else: a
 * pure function of the node's current labels and annotations and the wanted labels. Keys are
 * removed only as {@link LabelOwnership} allows, and the ownership annotation is kept equal to the
 * wanted keys.
 *
 * @param labels labels to set (value) or remove (null value)
 * @param annotations annotations to set or remove (null value): the ownership annotation, or the
 *     agent's own ones ({@link #annotations})
 * @param set how many labels are set
 * @param removed how many labels are removed
 */
public record NodeLabelPatch(
        Map<String, String> labels, Map<String, String> annotations, int set, int removed) {

    public boolean empty() {
        return labels.isEmpty() && annotations.isEmpty();
    }

    /** Computes the patch; every wanted key must be ownable. */
    public static NodeLabelPatch between(
            LabelOwnership ownership,
            Map<String, String> currentLabels,
            Map<String, String> currentAnnotations,
            SortedMap<String, String> wanted) {
        for (String key : wanted.keySet()) {
            if (!ownership.ownable().test(key)) {
                throw new IllegalArgumentException(
                        "refusing to publish " + key + ": not a label this agent owns");
            }
        }
        Map<String, String> labels = new LinkedHashMap<>();
        int set = 0;
        int removed = 0;
        for (Map.Entry<String, String> e : wanted.entrySet()) {
            if (!Objects.equals(currentLabels.get(e.getKey()), e.getValue())) {
                labels.put(e.getKey(), e.getValue());
                set++;
            }
        }
        for (String key : ownership.ownedKeys(currentAnnotations)) {
            if (!wanted.containsKey(key) && currentLabels.containsKey(key)) {
                labels.put(key, null);
                removed++;
            }
        }
        Map<String, String> annotations = new LinkedHashMap<>();
        String owned = String.join(",", wanted.keySet());
        String recorded = currentAnnotations.get(ownership.annotation());
        if (owned.isEmpty() && recorded != null) {
            annotations.put(
                    ownership.annotation(), null); // nothing owned any more: drop the annotation
        } else if (!owned.isEmpty() && !owned.equals(recorded)) {
            annotations.put(ownership.annotation(), owned);
        }
        return new NodeLabelPatch(labels, annotations, set, removed);
    }

    /**
     * The change that turns a node's annotations into {@code wanted}, touching no label and no
     * other annotation: for an agent that publishes annotations it owns by name. A null value
     * removes the annotation when present. Pure.
     */
    public static NodeLabelPatch annotations(
            Map<String, String> currentAnnotations, Map<String, String> wanted) {
        Map<String, String> annotations = new LinkedHashMap<>();
        wanted.forEach(
                (key, value) -> {
                    if (value == null
                            ? currentAnnotations.containsKey(key)
                            : !value.equals(currentAnnotations.get(key))) {
                        annotations.put(key, value);
                    }
                });
        return new NodeLabelPatch(Map.of(), annotations, 0, 0);
    }

    /**
     * The RFC 6902 operations: {@code add} (which also replaces) for each key set, {@code remove}
     * for each key removed. Unlike a merge patch it names each key on its own path, so nothing else
     * in the maps is touched.
     */
    public List<Map<String, Object>> jsonPatch(boolean hasLabels, boolean hasAnnotations) {
        return ops(hasLabels, hasAnnotations);
    }

    /**
     * {@link #jsonPatch(boolean, boolean)} onto a node read with these maps. fabric8 reads an
     * absent map as an empty one, and the API server drops an emptied map (Go's omitempty), so an
     * empty map counts as absent: it is added first, else {@code add} of a key fails ("doc is
     * missing path"), as the API server answers once a node's last annotation is gone.
     */
    public List<Map<String, Object>> jsonPatchOnto(
            Map<String, String> currentLabels, Map<String, String> currentAnnotations) {
        return ops(
                currentLabels != null && !currentLabels.isEmpty(),
                currentAnnotations != null && !currentAnnotations.isEmpty());
    }

    private List<Map<String, Object>> ops(boolean hasLabels, boolean hasAnnotations) {
        List<Map<String, Object>> ops = new ArrayList<>();
        addAll(ops, "/metadata/labels", labels, hasLabels);
        addAll(ops, "/metadata/annotations", annotations, hasAnnotations);
        return ops;
    }

    private static void addAll(
            List<Map<String, Object>> ops,
            String mapPath,
            Map<String, String> changes,
            boolean mapExists) {
        if (changes.isEmpty()) {
            return;
        }
        if (!mapExists) {
            ops.add(op("add", mapPath, Map.of()));
        }
        changes.forEach(
                (key, value) -> {
                    String path = mapPath + "/" + key.replace("~", "~0").replace("/", "~1");
                    ops.add(value == null ? op("remove", path, null) : op("add", path, value));
                });
    }

    /** One operation, its keys in the RFC's order so that the JSON text is stable. */
    private static Map<String, Object> op(String op, String path, Object value) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("op", op);
        m.put("path", path);
        if (value != null) {
            m.put("value", value);
        }
        return m;
    }
}
