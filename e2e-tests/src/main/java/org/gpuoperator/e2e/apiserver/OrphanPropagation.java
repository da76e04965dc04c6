package org.gpuoperator.e2e.apiserver;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A delete with {@code propagationPolicy: Orphan} (query or DeleteOptions body, as fabric8's {@code
 * withPropagationPolicy(ORPHAN)} and {@code kubectl delete --cascade=orphan} send it): the garbage
 * collector removes the owner's references from its dependents before the owner goes, so they stay.
 * Pure: which request asks for it, and a dependent without the reference.
 */
final class OrphanPropagation {

    private OrphanPropagation() {}

    /** Whether the DELETE asks to orphan the dependents. */
    static boolean requested(Map<String, String> query, String deleteOptions) {
        if ("Orphan".equals(query.get("propagationPolicy"))
                || "true".equals(query.get("orphanDependents"))) {
            return true;
        }
        if (deleteOptions == null || deleteOptions.isBlank()) {
            return false;
        }
        try {
            Map<String, Object> options = Json.parse(deleteOptions);
            return "Orphan".equals(options.get("propagationPolicy"))
                    || Boolean.TRUE.equals(options.get("orphanDependents"));
        } catch (IllegalArgumentException e) {
            return false;
        }
    }

    /**
     * The dependent without its references to {@code ownerUid}; empty when it has none (nothing to
     * write).
     */
    @SuppressWarnings("unchecked")
    static Optional<Map<String, Object>> withoutOwner(
            Map<String, Object> dependent, String ownerUid) {
        Map<String, Object> copy = (Map<String, Object>) JsonPatch.copy(dependent);
        Map<String, Object> meta = Json.map(copy, "metadata");
        List<Map<String, Object>> owners = Json.maps(meta, "ownerReferences");
        List<Map<String, Object>> kept =
                owners.stream().filter(o -> !ownerUid.equals(o.get("uid"))).toList();
        if (kept.size() == owners.size()) {
            return Optional.empty();
        }
        if (kept.isEmpty()) {
            meta.remove("ownerReferences");
        } else {
            meta.put("ownerReferences", kept);
        }
        return Optional.of(copy);
    }
}
