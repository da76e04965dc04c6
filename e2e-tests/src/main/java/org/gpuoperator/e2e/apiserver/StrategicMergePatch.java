package org.gpuoperator.e2e.apiserver;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Strategic merge patch (what kubectl sends to built-in types: apply, edit, annotate) applied to a
 * stored object, for the mock which only knows JSON merge patch. Maps merge as in a JSON merge
 * patch (null deletes); lists of objects whose field has a known merge key merge element by element
 * (with {@code $patch: delete} and {@code $setElementOrder}); {@code $deleteFromPrimitiveList} and
 * {@code $retainKeys} are honoured; other lists are replaced. The merge keys are the upstream ones
 * for the fields our objects use, as data.
 */
public final class StrategicMergePatch {

    /** Field name to the key its list elements merge on. */
    static final Map<String, String> MERGE_KEYS =
            Map.ofEntries(
                    Map.entry("containers", "name"),
                    Map.entry("initContainers", "name"),
                    Map.entry("ephemeralContainers", "name"),
                    Map.entry("env", "name"),
                    Map.entry("volumes", "name"),
                    Map.entry("volumeMounts", "mountPath"),
                    Map.entry("volumeDevices", "devicePath"),
                    Map.entry("ports", "containerPort"),
                    Map.entry("imagePullSecrets", "name"),
                    Map.entry("conditions", "type"),
                    Map.entry("addresses", "type"),
                    Map.entry("taints", "key"),
                    Map.entry("ownerReferences", "uid"),
                    Map.entry("containerStatuses", "name"),
                    Map.entry("initContainerStatuses", "name"),
                    Map.entry("hostAliases", "ip"));

    /** Primitive lists that merge as sets. */
    static final List<String> SET_LISTS = List.of("finalizers");

    private StrategicMergePatch() {}

    /** The patched object; {@code original} is not changed. */
    public static Map<String, Object> apply(
            Map<String, Object> original, Map<String, Object> patch) {
        return mergeMap(original, patch);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> mergeMap(
            Map<String, Object> original, Map<String, Object> patch) {
        if ("replace".equals(patch.get("$patch"))) {
            Map<String, Object> copy = new LinkedHashMap<>(patch);
            copy.remove("$patch");
            return copy;
        }
        Map<String, Object> out = new LinkedHashMap<>(original);
        if (patch.get("$retainKeys") instanceof List<?> keep) {
            out.keySet().retainAll(keep);
        }
        for (Map.Entry<String, Object> e : patch.entrySet()) {
            String key = e.getKey();
            Object value = e.getValue();
            if (key.equals("$patch")
                    || key.equals("$retainKeys")
                    || key.startsWith("$setElementOrder/")) {
                continue;
            }
            if (key.startsWith("$deleteFromPrimitiveList/")) {
                String field = key.substring("$deleteFromPrimitiveList/".length());
                if (out.get(field) instanceof List<?> l && value instanceof List<?> del) {
                    List<Object> kept = new ArrayList<>(l);
                    kept.removeAll(del);
                    out.put(field, kept);
                }
                continue;
            }
            if (value == null) {
                out.remove(key);
            } else if (value instanceof Map<?, ?> pm) {
                Object cur = out.get(key);
                out.put(
                        key,
                        mergeMap(
                                cur instanceof Map<?, ?> cm ? (Map<String, Object>) cm : Map.of(),
                                (Map<String, Object>) pm));
            } else if (value instanceof List<?> pl) {
                Object order = patch.get("$setElementOrder/" + key);
                out.put(
                        key,
                        mergeList(
                                key,
                                out.get(key) instanceof List<?> cl ? cl : List.of(),
                                pl,
                                order instanceof List<?> ol ? ol : null));
            } else {
                out.put(key, value);
            }
        }
        return out;
    }

    @SuppressWarnings("unchecked")
    private static List<Object> mergeList(
            String field, List<?> original, List<?> patch, List<?> order) {
        if (SET_LISTS.contains(field)) {
            LinkedHashSet<Object> set = new LinkedHashSet<>(original);
            set.addAll(patch);
            return new ArrayList<>(set);
        }
        String mergeKey = MERGE_KEYS.get(field);
        if (mergeKey == null || !patch.stream().allMatch(Map.class::isInstance)) {
            return new ArrayList<>(patch);
        }
        Map<Object, Map<String, Object>> merged = new LinkedHashMap<>();
        List<Object> unkeyed = new ArrayList<>();
        for (Object o : original) {
            if (o instanceof Map<?, ?> m && m.get(mergeKey) != null) {
                merged.put(m.get(mergeKey), (Map<String, Object>) m);
            } else {
                unkeyed.add(o);
            }
        }
        for (Object o : patch) {
            Map<String, Object> pm = (Map<String, Object>) o;
            Object k = pm.get(mergeKey);
            if (k == null) {
                throw new IllegalArgumentException(
                        "strategic merge patch: an element of "
                                + field
                                + " lacks its merge key "
                                + mergeKey);
            }
            if ("delete".equals(pm.get("$patch"))) {
                merged.remove(k);
            } else {
                merged.put(k, mergeMap(merged.getOrDefault(k, Map.of()), pm));
            }
        }
        List<Object> out = new ArrayList<>(unkeyed);
        if (order != null) {
            // the order kubectl computed; elements it does not name keep their place after
            for (Object o : order) {
                if (o instanceof Map<?, ?> om && merged.containsKey(om.get(mergeKey))) {
                    out.add(merged.remove(om.get(mergeKey)));
                }
            }
        }
        out.addAll(merged.values());
        return out;
    }

    /** Content types that are a strategic merge patch. */
    public static boolean isStrategic(String contentType) {
        return contentType != null
                && Objects.equals(
                        contentType.split(";")[0].strip(),
                        "application/strategic-merge-patch+json");
    }
}
