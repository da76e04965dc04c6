package org.gpuoperator.gfd.publish;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.stream.Collectors;
import org.gpuoperator.gfd.labels.GfdKeys;

/**
 * The change that turns a node's labels into the wanted GFD labels, touching nothing else: a pure function of the
 * node's current labels and annotations and the wanted labels.
 *
 * <p>Ownership is recorded on the node in the annotation {@value #OWNED_KEYS_ANNOTATION}: the comma-separated,
 * sorted keys this agent set. A key is removed only when it is in that list, no longer wanted, and a GFD key
 * ({@link GfdKeys#owned}); so labels set by a user, the controller or NFD are never removed.
 *
 * @param labels      labels to set (value) or remove (null value)
 * @param annotations annotations to set or remove (null value); only the ownership annotation
 * @param set         how many labels are set
 * @param removed     how many labels are removed
 */
public record NodeLabelPatch(Map<String, String> labels, Map<String, String> annotations, int set, int removed) {

    public static final String OWNED_KEYS_ANNOTATION = "nvidia.com/gfd.labels";

    public boolean empty() {
        return labels.isEmpty() && annotations.isEmpty();
    }

    /** Computes the patch; every wanted key must be a GFD key. */
    public static NodeLabelPatch between(Map<String, String> currentLabels, Map<String, String> currentAnnotations,
            SortedMap<String, String> wanted) {
        for (String key : wanted.keySet()) {
            if (!GfdKeys.owned(key)) {
                throw new IllegalArgumentException("refusing to publish " + key + ": not a feature discovery label");
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
        for (String key : ownedKeys(currentAnnotations)) {
            if (!wanted.containsKey(key) && currentLabels.containsKey(key)) {
                labels.put(key, null);
                removed++;
            }
        }
        Map<String, String> annotations = new LinkedHashMap<>();
        String owned = String.join(",", wanted.keySet());
        String recorded = currentAnnotations.get(OWNED_KEYS_ANNOTATION);
        if (owned.isEmpty() && recorded != null) {
            annotations.put(OWNED_KEYS_ANNOTATION, null); // nothing owned any more: drop the annotation
        } else if (!owned.isEmpty() && !owned.equals(recorded)) {
            annotations.put(OWNED_KEYS_ANNOTATION, owned);
        }
        return new NodeLabelPatch(labels, annotations, set, removed);
    }

    /** The GFD keys the annotation lists; anything else in it is ignored, never removed. */
    static SortedSet<String> ownedKeys(Map<String, String> annotations) {
        String list = annotations.get(OWNED_KEYS_ANNOTATION);
        if (list == null || list.isBlank()) {
            return new TreeSet<>();
        }
        return Arrays.stream(list.split(",")).map(String::strip).filter(GfdKeys::owned)
                .collect(Collectors.toCollection(TreeSet::new));
    }
}
