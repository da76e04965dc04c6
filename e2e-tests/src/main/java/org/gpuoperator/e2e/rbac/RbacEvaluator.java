package org.gpuoperator.e2e.rbac;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.PolicyRule;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBinding;
import io.fabric8.kubernetes.api.model.rbac.RoleRef;
import io.fabric8.kubernetes.api.model.rbac.Subject;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.gpuoperator.e2e.apiserver.ApiCall;
import org.gpuoperator.e2e.apiserver.ServiceAccountTokens;

/**
 * Kubernetes RBAC over a fixed set of Roles, ClusterRoles and their bindings, without an API
 * server: which {@link Grant}s a user holds, whether they allow a call, and which of them a set of
 * calls never used. Follows the RBAC authorizer: {@code *} in verbs, apiGroups and resources;
 * subresources as {@code pods/log} ({@code pods/*}, {@code *}/log); resourceNames restrict only
 * calls that name an object; a RoleBinding grants in its own namespace only.
 */
public final class RbacEvaluator {

    /**
     * One verb on one resource that a binding gives a user: the unit an unused grant is reported
     * in.
     *
     * @param role where the rule comes from, e.g. {@code ClusterRole/nvidia-driver}
     * @param namespace where it applies; null for everywhere (a ClusterRoleBinding)
     * @param apiGroup a group or {@code *}
     * @param resource a resource, {@code resource/subresource}, or a pattern with {@code *}
     * @param verb a verb or {@code *}
     * @param resourceNames the only objects it applies to; empty for all
     */
    public record Grant(
            String role,
            String namespace,
            String apiGroup,
            String resource,
            String verb,
            List<String> resourceNames) {

        /** Whether this grant allows {@code call}, whoever makes it. */
        public boolean allows(ApiCall call) {
            return (namespace == null || namespace.equals(call.namespace()))
                    && (verb.equals("*") || verb.equals(call.verb()))
                    && (apiGroup.equals("*") || apiGroup.equals(call.apiGroup()))
                    && resourceMatches(resource, call)
                    && (resourceNames.isEmpty()
                            || (call.name() != null && resourceNames.contains(call.name())));
        }

        private static boolean resourceMatches(String pattern, ApiCall call) {
            if (pattern.equals("*") || pattern.equals(call.resourcePath())) {
                return true;
            }
            if (call.subresource() == null) {
                return false;
            }
            return pattern.equals(call.resource() + "/*")
                    || pattern.equals("*/" + call.subresource());
        }

        @Override
        public String toString() {
            return "%s: %s %s%s%s%s"
                    .formatted(
                            role,
                            verb,
                            apiGroup.isEmpty() ? "" : apiGroup + "/",
                            resource,
                            resourceNames.isEmpty() ? "" : " named " + resourceNames,
                            namespace == null ? " (cluster-wide)" : " in " + namespace);
        }
    }

    /**
     * What a user's calls show against its grants.
     *
     * @param missing calls that no grant allows
     * @param unused grants that no call used
     */
    public record Comparison(List<ApiCall> missing, List<Grant> unused) {
        public boolean exact() {
            return missing.isEmpty() && unused.isEmpty();
        }
    }

    private final Map<String, List<Grant>> grantsByUser;

    private RbacEvaluator(Map<String, List<Grant>> grantsByUser) {
        this.grantsByUser = grantsByUser;
    }

    /**
     * @param objects Roles, ClusterRoles, RoleBindings and ClusterRoleBindings (anything else is
     *     ignored); a binding to a role that is not among them grants nothing, as on a cluster
     */
    public static RbacEvaluator of(Collection<? extends HasMetadata> objects) {
        Map<String, List<PolicyRule>> clusterRoles = new HashMap<>();
        Map<String, List<PolicyRule>> roles = new HashMap<>();
        for (HasMetadata o : objects) {
            if (o instanceof ClusterRole cr) {
                clusterRoles.put(cr.getMetadata().getName(), nullSafe(cr.getRules()));
            } else if (o instanceof Role r) {
                roles.put(
                        key(r.getMetadata().getNamespace(), r.getMetadata().getName()),
                        nullSafe(r.getRules()));
            }
        }
        Map<String, List<Grant>> byUser = new HashMap<>();
        for (HasMetadata o : objects) {
            if (o instanceof ClusterRoleBinding b && isClusterRole(b.getRoleRef())) {
                String role = "ClusterRole/" + b.getRoleRef().getName();
                List<PolicyRule> rules =
                        clusterRoles.getOrDefault(b.getRoleRef().getName(), List.of());
                for (String user : users(b.getSubjects(), null)) {
                    byUser.computeIfAbsent(user, u -> new ArrayList<>())
                            .addAll(grants(role, null, rules));
                }
            } else if (o instanceof RoleBinding b) {
                String ns = b.getMetadata().getNamespace();
                RoleRef ref = b.getRoleRef();
                List<PolicyRule> rules =
                        isClusterRole(ref)
                                ? clusterRoles.getOrDefault(ref.getName(), List.of())
                                : roles.getOrDefault(key(ns, ref.getName()), List.of());
                String role =
                        (isClusterRole(ref) ? "ClusterRole/" : "Role/" + ns + "/") + ref.getName();
                for (String user : users(b.getSubjects(), ns)) {
                    byUser.computeIfAbsent(user, u -> new ArrayList<>())
                            .addAll(grants(role, ns, rules));
                }
            }
        }
        return new RbacEvaluator(byUser);
    }

    /** Every grant {@code user} holds, one per verb × apiGroup × resource of each rule. */
    public List<Grant> grants(String user) {
        return List.copyOf(grantsByUser.getOrDefault(user, List.of()));
    }

    /** Whether some grant of the call's user allows it. */
    public boolean allows(ApiCall call) {
        return grants(call.user()).stream().anyMatch(g -> g.allows(call));
    }

    /** {@code user}'s calls among {@code calls} against {@code user}'s grants. */
    public Comparison compare(String user, Collection<ApiCall> calls) {
        List<ApiCall> own = calls.stream().filter(c -> c.user().equals(user)).toList();
        List<Grant> grants = grants(user);
        List<ApiCall> missing =
                own.stream()
                        .filter(c -> grants.stream().noneMatch(g -> g.allows(c)))
                        .sorted(java.util.Comparator.comparing(ApiCall::toString))
                        .toList();
        List<Grant> unused =
                grants.stream().distinct().filter(g -> own.stream().noneMatch(g::allows)).toList();
        return new Comparison(missing, unused);
    }

    private static List<Grant> grants(String role, String namespace, List<PolicyRule> rules) {
        List<Grant> out = new ArrayList<>();
        for (PolicyRule r : rules) {
            // non-resource URLs (/healthz, /metrics) are not calls to resources: no grant here
            for (String group : nullSafe(r.getApiGroups())) {
                for (String resource : nullSafe(r.getResources())) {
                    for (String verb : nullSafe(r.getVerbs())) {
                        out.add(
                                new Grant(
                                        role,
                                        namespace,
                                        group,
                                        resource,
                                        verb,
                                        List.copyOf(nullSafe(r.getResourceNames()))));
                    }
                }
            }
        }
        return out;
    }

    /**
     * The users a binding's subjects name; {@code bindingNamespace} is null for cluster bindings.
     */
    private static Set<String> users(List<Subject> subjects, String bindingNamespace) {
        Set<String> out = new LinkedHashSet<>();
        for (Subject s : nullSafe(subjects)) {
            if ("ServiceAccount".equals(s.getKind())) {
                String ns = s.getNamespace() != null ? s.getNamespace() : bindingNamespace;
                if (ns != null) {
                    out.add(ServiceAccountTokens.user(ns, s.getName()));
                }
            } else if ("User".equals(s.getKind())) {
                out.add(s.getName());
            } else {
                // group membership is not modelled: say so rather than grant nothing in silence
                throw new IllegalArgumentException(
                        "subject %s %s: only ServiceAccount and User subjects are evaluated"
                                .formatted(s.getKind(), s.getName()));
            }
        }
        return out;
    }

    private static boolean isClusterRole(RoleRef ref) {
        return ref != null && "ClusterRole".equals(ref.getKind());
    }

    private static String key(String namespace, String name) {
        return namespace + "/" + name;
    }

    private static <T> List<T> nullSafe(List<T> l) {
        return l == null ? List.of() : l;
    }
}
