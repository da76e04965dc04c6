package org.gpuoperator.e2e.apiserver;

import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * One request to a resource as RBAC sees it: who, which verb, on what.
 *
 * @param user the caller ({@link ServiceAccountTokens#caller})
 * @param verb the Kubernetes verb: get, list, watch, create, update, patch, delete,
 *     deletecollection
 * @param apiGroup "" for the core group
 * @param subresource null when the request names none ({@code log} for {@code pods/log})
 * @param namespace null for cluster-scoped requests and requests across all namespaces
 * @param name null for requests on a collection (a {@code metadata.name} field selector names one)
 */
public record ApiCall(
        String user,
        String verb,
        String apiGroup,
        String resource,
        String subresource,
        String namespace,
        String name) {

    /** {@code resource} or {@code resource/subresource}, as RBAC rules name it. */
    public String resourcePath() {
        return subresource == null ? resource : resource + "/" + subresource;
    }

    @Override
    public String toString() {
        return "%s %s %s%s%s%s"
                .formatted(
                        user,
                        verb,
                        apiGroup.isEmpty() ? "" : apiGroup + "/",
                        resourcePath(),
                        namespace == null ? "" : " in " + namespace,
                        name == null ? "" : " named " + name);
    }

    /**
     * The call an HTTP request makes, the API server's way ({@code GET} on a collection is list,
     * with {@code watch=true} watch, {@code DELETE} on a collection deletecollection); empty for
     * paths that name no resource (discovery, /version, /healthz).
     */
    public static Optional<ApiCall> of(
            String user, String method, String path, Map<String, String> query) {
        Optional<ApiPath> parsed = ApiPath.parse(path);
        if (parsed.isEmpty()) {
            return Optional.empty();
        }
        ApiPath p = parsed.get();
        String name = p.name();
        boolean collection = name == null;
        if (collection) {
            name = nameFromFieldSelector(query.get("fieldSelector"));
        }
        String watchParam = query.get("watch");
        boolean watch = "true".equals(watchParam) || "1".equals(watchParam);
        // kube-apiserver authorizes exec, attach and port-forward as create, WebSocket GETs too
        boolean connect =
                p.resource().equals("pods")
                        && p.subresource() != null
                        && Set.of("exec", "attach", "portforward").contains(p.subresource());
        String verb =
                connect
                        ? "create"
                        : switch (method.toUpperCase(java.util.Locale.ROOT)) {
                            case "GET", "HEAD" -> watch ? "watch" : collection ? "list" : "get";
                            case "POST" -> "create";
                            case "PUT" -> "update";
                            case "PATCH" -> "patch";
                            case "DELETE" -> collection ? "deletecollection" : "delete";
                            default -> method.toLowerCase(java.util.Locale.ROOT);
                        };
        return Optional.of(
                new ApiCall(
                        user, verb, p.group(), p.resource(), p.subresource(), p.namespace(), name));
    }

    /** {@code metadata.name=x} in a field selector: a list or watch of one object. */
    static String nameFromFieldSelector(String selector) {
        if (selector == null) {
            return null;
        }
        for (String term : selector.split(",")) {
            String t = term.trim();
            for (String prefix : new String[] {"metadata.name==", "metadata.name="}) {
                if (t.startsWith(prefix)) {
                    return t.substring(prefix.length());
                }
            }
        }
        return null;
    }
}
