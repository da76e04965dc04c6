package org.gpuoperator.e2e.apiserver;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A minimal OpenAPI v3 answer: per group-version, one PATCH operation per type that declares the
 * {@code fieldValidation} query parameter. That is what kubectl (1.27+) looks for to leave
 * validation to the server ({@code kubectl apply} without {@code --validate=false}); no schemas are
 * published, and the mock stores what it gets.
 */
public final class OpenApi {

    private OpenApi() {}

    /** {@code GET /openapi/v3}. */
    public static Map<String, Object> root(Discovery discovery) {
        Map<String, Object> paths = new LinkedHashMap<>();
        for (ApiResource r : discovery.resources()) {
            String key =
                    r.group().isEmpty()
                            ? "api/" + r.version()
                            : "apis/" + r.group() + "/" + r.version();
            paths.putIfAbsent(key, Map.of("serverRelativeURL", "/openapi/v3/" + key));
        }
        return Map.of("paths", paths);
    }

    /** {@code GET /openapi/v3/api/v1} or {@code /openapi/v3/apis/<group>/<version>}. */
    public static Optional<Map<String, Object>> groupVersion(Discovery discovery, String gvPath) {
        String[] p = gvPath.split("/");
        String group;
        String version;
        if (p.length == 2 && p[0].equals("api")) {
            group = "";
            version = p[1];
        } else if (p.length == 3 && p[0].equals("apis")) {
            group = p[1];
            version = p[2];
        } else {
            return Optional.empty();
        }
        List<ApiResource> inGv =
                discovery.resources().stream()
                        .filter(r -> r.group().equals(group) && r.version().equals(version))
                        .toList();
        if (inGv.isEmpty()) {
            return Optional.empty();
        }
        Map<String, Object> paths = new LinkedHashMap<>();
        String prefix = group.isEmpty() ? "/api/" + version : "/apis/" + group + "/" + version;
        for (ApiResource r : inGv) {
            String path =
                    prefix
                            + (r.namespaced() ? "/namespaces/{namespace}/" : "/")
                            + r.plural()
                            + "/{name}";
            Map<String, Object> patch = new LinkedHashMap<>();
            patch.put(
                    "x-kubernetes-group-version-kind",
                    Map.of("group", r.group(), "version", r.version(), "kind", r.kind()));
            patch.put(
                    "parameters",
                    List.of(
                            Map.of(
                                    "name",
                                    "fieldValidation",
                                    "in",
                                    "query",
                                    "schema",
                                    Map.of("type", "string")),
                            Map.of(
                                    "name",
                                    "fieldManager",
                                    "in",
                                    "query",
                                    "schema",
                                    Map.of("type", "string"))));
            patch.put("responses", Map.of("200", Map.of("description", "OK")));
            paths.put(path, Map.of("patch", patch));
        }
        Map<String, Object> doc = new LinkedHashMap<>();
        doc.put("openapi", "3.0.0");
        doc.put("info", Map.of("title", "simulated Kubernetes", "version", "v1.32.0"));
        doc.put("paths", paths);
        return Optional.of(doc);
    }
}
