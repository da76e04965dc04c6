package org.gpuoperator.e2e.apiserver;

import java.util.List;
import java.util.Objects;

/**
 * One resource type as discovery announces it: where it lives (group, version), its names, scope,
 * verbs, and its subresources.
 *
 * @param group "" for the core group
 */
public record ApiResource(
        String group,
        String version,
        String plural,
        String singular,
        String kind,
        boolean namespaced,
        List<String> verbs,
        List<String> shortNames,
        List<String> categories,
        List<Subresource> subresources) {

    /** Every verb a CRUD type answers. */
    public static final List<String> ALL_VERBS =
            List.of(
                    "create",
                    "delete",
                    "deletecollection",
                    "get",
                    "list",
                    "patch",
                    "update",
                    "watch");

    public ApiResource {
        Objects.requireNonNull(group, "group");
        requireText(version, "version");
        requireText(plural, "plural");
        requireText(kind, "kind");
        singular =
                singular == null || singular.isEmpty()
                        ? kind.toLowerCase(java.util.Locale.ROOT)
                        : singular;
        verbs = List.copyOf(verbs);
        shortNames = List.copyOf(shortNames);
        categories = List.copyOf(categories);
        subresources = List.copyOf(subresources);
    }

    /**
     * A subresource ({@code pods/log}); {@code group}/{@code version}/{@code kind} name what its
     * body is when that differs from the parent ({@code pods/eviction} takes a policy/v1 Eviction),
     * else null.
     */
    public record Subresource(
            String name, String group, String version, String kind, List<String> verbs) {
        public Subresource {
            requireText(name, "subresource name");
            verbs = List.copyOf(verbs);
        }

        public static Subresource of(String name, String... verbs) {
            return new Subresource(name, null, null, null, List.of(verbs));
        }
    }

    public String groupVersion() {
        return group.isEmpty() ? version : group + "/" + version;
    }

    public ApiResource withSubresources(List<Subresource> subs) {
        return new ApiResource(
                group,
                version,
                plural,
                singular,
                kind,
                namespaced,
                verbs,
                shortNames,
                categories,
                subs);
    }

    private static void requireText(String s, String what) {
        if (s == null || s.isBlank()) {
            throw new IllegalArgumentException(what + " must not be empty");
        }
    }
}
