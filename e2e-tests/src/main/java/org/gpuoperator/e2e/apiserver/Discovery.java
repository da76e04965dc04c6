package org.gpuoperator.e2e.apiserver;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The discovery documents ({@code /api}, {@code /api/v1}, {@code /apis}, {@code
 * /apis/<group>/<version>}) computed from a list of resource types: pure data in, JSON-ready maps
 * out. Groups keep the order of their first resource; each group serves exactly one version here,
 * so it is also the preferred one.
 */
public final class Discovery {

    private final List<ApiResource> resources;

    public Discovery(List<ApiResource> resources) {
        this.resources = List.copyOf(resources);
    }

    /** Built-in types plus the types the given CRD objects (as parsed JSON) define. */
    public static Discovery of(List<Map<String, Object>> crds) {
        List<ApiResource> all = new ArrayList<>(BuiltinResources.ALL);
        for (Map<String, Object> crd : crds) {
            all.addAll(CrdResources.fromCrd(crd));
        }
        return new Discovery(all);
    }

    public List<ApiResource> resources() {
        return resources;
    }

    /** The type served at {@code group/version/plural}, if any. */
    public Optional<ApiResource> find(String group, String version, String plural) {
        return resources.stream()
                .filter(
                        r ->
                                r.group().equals(group)
                                        && r.version().equals(version)
                                        && r.plural().equals(plural))
                .findFirst();
    }

    /** {@code GET /api}. */
    public Map<String, Object> coreVersions(String serverAddress) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("kind", "APIVersions");
        m.put("versions", List.of("v1"));
        m.put(
                "serverAddressByClientCIDRs",
                List.of(Map.of("clientCIDR", "0.0.0.0/0", "serverAddress", serverAddress)));
        return m;
    }

    /** {@code GET /apis}: every non-core group. */
    public Map<String, Object> groupList() {
        Map<String, List<String>> versionsByGroup = new LinkedHashMap<>();
        for (ApiResource r : resources) {
            if (!r.group().isEmpty()) {
                List<String> vs =
                        versionsByGroup.computeIfAbsent(r.group(), g -> new ArrayList<>());
                if (!vs.contains(r.version())) {
                    vs.add(r.version());
                }
            }
        }
        List<Map<String, Object>> groups = new ArrayList<>();
        versionsByGroup.forEach((g, vs) -> groups.add(group(g, vs)));
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("kind", "APIGroupList");
        m.put("apiVersion", "v1");
        m.put("groups", groups);
        return m;
    }

    /** {@code GET /apis/<group>}, or empty when no type lives in that group. */
    public Optional<Map<String, Object>> group(String group) {
        List<String> vs =
                resources.stream()
                        .filter(r -> r.group().equals(group))
                        .map(ApiResource::version)
                        .distinct()
                        .toList();
        if (vs.isEmpty() || group.isEmpty()) {
            return Optional.empty();
        }
        Map<String, Object> m = group(group, vs);
        m.put("kind", "APIGroup");
        m.put("apiVersion", "v1");
        return Optional.of(m);
    }

    private static Map<String, Object> group(String group, List<String> versions) {
        List<Map<String, Object>> gvs =
                versions.stream()
                        .map(
                                v ->
                                        Map.<String, Object>of(
                                                "groupVersion", group + "/" + v, "version", v))
                        .toList();
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("name", group);
        m.put("versions", gvs);
        m.put("preferredVersion", gvs.getFirst());
        return m;
    }

    /**
     * {@code GET /api/v1} or {@code /apis/<group>/<version>}, or empty when nothing is served
     * there.
     */
    public Optional<Map<String, Object>> resourceList(String group, String version) {
        List<ApiResource> inGv =
                resources.stream()
                        .filter(r -> r.group().equals(group) && r.version().equals(version))
                        .toList();
        if (inGv.isEmpty()) {
            return Optional.empty();
        }
        List<Map<String, Object>> list = new ArrayList<>();
        for (ApiResource r : inGv) {
            Map<String, Object> e = new LinkedHashMap<>();
            e.put("name", r.plural());
            e.put("singularName", r.singular());
            e.put("namespaced", r.namespaced());
            e.put("kind", r.kind());
            e.put("verbs", r.verbs());
            if (!r.shortNames().isEmpty()) {
                e.put("shortNames", r.shortNames());
            }
            if (!r.categories().isEmpty()) {
                e.put("categories", r.categories());
            }
            list.add(e);
            for (ApiResource.Subresource s : r.subresources()) {
                Map<String, Object> se = new LinkedHashMap<>();
                se.put("name", r.plural() + "/" + s.name());
                se.put("singularName", "");
                se.put("namespaced", r.namespaced());
                if (s.group() != null) {
                    se.put("group", s.group());
                    se.put("version", s.version());
                }
                se.put("kind", s.kind() != null ? s.kind() : r.kind());
                se.put("verbs", s.verbs());
                list.add(se);
            }
        }
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("kind", "APIResourceList");
        m.put("apiVersion", "v1");
        m.put("groupVersion", group.isEmpty() ? version : group + "/" + version);
        m.put("resources", list);
        return Optional.of(m);
    }
}
