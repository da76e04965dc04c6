package org.gpuoperator.e2e.apiserver;

import java.util.Arrays;
import java.util.List;
import java.util.Optional;

/**
 * A resource URL split into its parts: {@code /api/v1/namespaces/gpu-operator/pods/p1/log} is core
 * group, version v1, namespace gpu-operator, resource pods, name p1, subresource log.
 *
 * @param group "" for the core group
 * @param namespace null for cluster-scoped requests and requests across all namespaces
 * @param name null for collections
 */
public record ApiPath(
        String group,
        String version,
        String namespace,
        String resource,
        String name,
        String subresource) {

    /**
     * Parses the path part of a URL (no query); empty for paths that name no resource (discovery,
     * /version).
     */
    public static Optional<ApiPath> parse(String path) {
        List<String> s = Arrays.stream(path.split("/")).filter(x -> !x.isEmpty()).toList();
        String group;
        String version;
        List<String> rest;
        if (s.size() >= 3 && s.get(0).equals("api")) {
            group = "";
            version = s.get(1);
            rest = s.subList(2, s.size());
        } else if (s.size() >= 4 && s.get(0).equals("apis")) {
            group = s.get(1);
            version = s.get(2);
            rest = s.subList(3, s.size());
        } else {
            return Optional.empty();
        }
        String namespace = null;
        // namespaces/<ns>/<resource>... is namespaced; namespaces and namespaces/<ns>[/status] is
        // the Namespace type
        boolean namespaceSubresource =
                rest.size() == 3
                        && rest.get(0).equals("namespaces")
                        && (rest.get(2).equals("status") || rest.get(2).equals("finalize"));
        if (rest.size() >= 3 && rest.get(0).equals("namespaces") && !namespaceSubresource) {
            namespace = rest.get(1);
            rest = rest.subList(2, rest.size());
        }
        if (rest.size() > 3) {
            return Optional.empty();
        }
        return Optional.of(
                new ApiPath(
                        group,
                        version,
                        namespace,
                        rest.get(0),
                        rest.size() > 1 ? rest.get(1) : null,
                        rest.size() > 2 ? rest.get(2) : null));
    }
}
