package org.gpuoperator.e2e.apiserver;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The answer to a {@code SelfSubjectRulesReview} (authorization.k8s.io/v1): what the caller may do
 * in a namespace, from the RBAC objects stored, as kube-apiserver's RBAC authorizer lists it. The
 * mock would store the review and answer it without a status; the Java Operator SDK's leader
 * election asks it before taking its Lease. A caller that is not a service account (the
 * kubeconfig's user) is the cluster's admin: every verb on every resource.
 */
final class SelfSubjectRulesReviews {

    static final String PATH = "/apis/authorization.k8s.io/v1/selfsubjectrulesreviews";

    private SelfSubjectRulesReviews() {}

    /**
     * The review with its status.
     *
     * @param review the request's body
     * @param user the caller ({@link ServiceAccountTokens#caller})
     * @param roleBindings the RoleBindings of the review's namespace
     * @param clusterRoleBindings every ClusterRoleBinding
     * @param roles the Roles of the namespace, by name
     * @param clusterRoles every ClusterRole, by name
     */
    @SuppressWarnings("unchecked")
    static Map<String, Object> answer(
            Map<String, Object> review,
            String user,
            List<Map<String, Object>> roleBindings,
            List<Map<String, Object>> clusterRoleBindings,
            Map<String, Map<String, Object>> roles,
            Map<String, Map<String, Object>> clusterRoles) {
        Map<String, Object> spec = (Map<String, Object>) review.getOrDefault("spec", Map.of());
        String namespace = (String) spec.get("namespace");
        List<Object> resourceRules = new ArrayList<>();
        List<Object> nonResourceRules = new ArrayList<>();
        if (!user.startsWith("system:serviceaccount:")) {
            resourceRules.add(
                    Map.of(
                            "verbs", List.of("*"),
                            "apiGroups", List.of("*"),
                            "resources", List.of("*")));
            nonResourceRules.add(Map.of("verbs", List.of("*"), "nonResourceURLs", List.of("*")));
        } else {
            List<Map<String, Object>> granted = new ArrayList<>();
            for (Map<String, Object> b : clusterRoleBindings) {
                if (binds(b, user)) {
                    granted.add(role(b, roles, clusterRoles, false));
                }
            }
            for (Map<String, Object> b : roleBindings) {
                if (binds(b, user)) {
                    granted.add(role(b, roles, clusterRoles, true));
                }
            }
            for (Map<String, Object> r : granted) {
                if (r == null) {
                    continue;
                }
                for (Map<String, Object> rule :
                        (List<Map<String, Object>>) r.getOrDefault("rules", List.of())) {
                    if (rule.containsKey("nonResourceURLs")) {
                        nonResourceRules.add(
                                Map.of(
                                        "verbs", rule.get("verbs"),
                                        "nonResourceURLs", rule.get("nonResourceURLs")));
                    } else {
                        Map<String, Object> out = new LinkedHashMap<>();
                        out.put("verbs", rule.getOrDefault("verbs", List.of()));
                        out.put("apiGroups", rule.getOrDefault("apiGroups", List.of()));
                        out.put("resources", rule.getOrDefault("resources", List.of()));
                        if (rule.get("resourceNames") != null) {
                            out.put("resourceNames", rule.get("resourceNames"));
                        }
                        resourceRules.add(out);
                    }
                }
            }
        }
        Map<String, Object> out = new LinkedHashMap<>(review);
        out.putIfAbsent("apiVersion", "authorization.k8s.io/v1");
        out.putIfAbsent("kind", "SelfSubjectRulesReview");
        out.put(
                "status",
                Map.of(
                        "resourceRules", resourceRules,
                        "nonResourceRules", nonResourceRules,
                        "incomplete", false));
        if (namespace == null) {
            out.put(
                    "status",
                    Map.of(
                            "resourceRules",
                            List.of(),
                            "nonResourceRules",
                            List.of(),
                            "incomplete",
                            true,
                            "evaluationError",
                            "no namespace on selfsubjectrulesreview"));
        }
        return out;
    }

    /** Whether the binding names the service account, its namespace's group or every one's. */
    @SuppressWarnings("unchecked")
    private static boolean binds(Map<String, Object> binding, String user) {
        String[] parts = user.split(":"); // system:serviceaccount:<ns>:<name>
        for (Map<String, Object> s :
                (List<Map<String, Object>>) binding.getOrDefault("subjects", List.of())) {
            String kind = (String) s.get("kind");
            String name = (String) s.get("name");
            if ("ServiceAccount".equals(kind)
                    && parts[3].equals(name)
                    && parts[2].equals(s.get("namespace"))) {
                return true;
            }
            if ("User".equals(kind) && user.equals(name)) {
                return true;
            }
            if ("Group".equals(kind)
                    && ("system:serviceaccounts".equals(name)
                            || ("system:serviceaccounts:" + parts[2]).equals(name))) {
                return true;
            }
        }
        return false;
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> role(
            Map<String, Object> binding,
            Map<String, Map<String, Object>> roles,
            Map<String, Map<String, Object>> clusterRoles,
            boolean namespaced) {
        Map<String, Object> ref = (Map<String, Object>) binding.getOrDefault("roleRef", Map.of());
        String name = (String) ref.get("name");
        return namespaced && "Role".equals(ref.get("kind"))
                ? roles.get(name)
                : clusterRoles.get(name);
    }
}
