package org.gpuoperator.node.labels;

import java.util.Arrays;
import java.util.Map;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.function.Predicate;
import java.util.stream.Collectors;

/**
 * Which node labels an agent may remove: those it set, as recorded in {@code annotation} (a
 * comma-separated, sorted list of keys) and that it could own at all ({@code ownable}). Labels set
 * by a user, the controller or NFD are never removed.
 */
public record LabelOwnership(String annotation, Predicate<String> ownable) {

    /** The ownable keys the annotation lists; anything else in it is ignored, never removed. */
    public SortedSet<String> ownedKeys(Map<String, String> annotations) {
        String list = annotations.get(annotation);
        if (list == null || list.isBlank()) {
            return new TreeSet<>();
        }
        return Arrays.stream(list.split(","))
                .map(String::strip)
                .filter(ownable)
                .collect(Collectors.toCollection(TreeSet::new));
    }
}
