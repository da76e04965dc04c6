package org.gpuoperator.e2e.simulate;

import com.fasterxml.jackson.databind.MappingIterator;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * What helm install, upgrade and uninstall do with a chart's rendered objects, as pure functions:
 * which objects are hooks of which event, in which order hooks run (weight, then name, kinds in
 * Helm's install order), the order Helm applies and deletes release objects in, and what an upgrade
 * deletes (what the old release rendered and the new one no longer does). The orders are Helm 3's
 * (pkg/release/util kind_sorter, pkg/action hooks): kinds it does not know go last in both install
 * and uninstall order, which is why a ClusterPolicy needs the chart's pre-delete hook to go before
 * the operator.
 */
public final class HelmSequence {

    public static final String HOOK = "helm.sh/hook";
    public static final String HOOK_WEIGHT = "helm.sh/hook-weight";
    public static final String HOOK_DELETE_POLICY = "helm.sh/hook-delete-policy";

    static final List<String> INSTALL_ORDER =
            List.of(
                    "PriorityClass",
                    "Namespace",
                    "NetworkPolicy",
                    "ResourceQuota",
                    "LimitRange",
                    "PodSecurityPolicy",
                    "PodDisruptionBudget",
                    "ServiceAccount",
                    "Secret",
                    "SecretList",
                    "ConfigMap",
                    "StorageClass",
                    "PersistentVolume",
                    "PersistentVolumeClaim",
                    "CustomResourceDefinition",
                    "ClusterRole",
                    "ClusterRoleList",
                    "ClusterRoleBinding",
                    "ClusterRoleBindingList",
                    "Role",
                    "RoleList",
                    "RoleBinding",
                    "RoleBindingList",
                    "Service",
                    "DaemonSet",
                    "Pod",
                    "ReplicationController",
                    "ReplicaSet",
                    "Deployment",
                    "HorizontalPodAutoscaler",
                    "StatefulSet",
                    "Job",
                    "CronJob",
                    "IngressClass",
                    "Ingress",
                    "APIService",
                    "MutatingWebhookConfiguration",
                    "ValidatingWebhookConfiguration");

    static final List<String> UNINSTALL_ORDER =
            List.of(
                    "MutatingWebhookConfiguration",
                    "ValidatingWebhookConfiguration",
                    "APIService",
                    "Ingress",
                    "IngressClass",
                    "Service",
                    "CronJob",
                    "Job",
                    "StatefulSet",
                    "HorizontalPodAutoscaler",
                    "Deployment",
                    "ReplicaSet",
                    "ReplicationController",
                    "Pod",
                    "DaemonSet",
                    "RoleBindingList",
                    "RoleBinding",
                    "RoleList",
                    "Role",
                    "ClusterRoleBindingList",
                    "ClusterRoleBinding",
                    "ClusterRoleList",
                    "ClusterRole",
                    "CustomResourceDefinition",
                    "PersistentVolumeClaim",
                    "PersistentVolume",
                    "StorageClass",
                    "ConfigMap",
                    "SecretList",
                    "Secret",
                    "ServiceAccount",
                    "PodDisruptionBudget",
                    "PodSecurityPolicy",
                    "LimitRange",
                    "ResourceQuota",
                    "NetworkPolicy",
                    "Namespace",
                    "PriorityClass");

    private static final YAMLMapper YAML = new YAMLMapper();

    private HelmSequence() {}

    /** One rendered object. */
    public record Manifest(Map<String, Object> object) {

        public String kind() {
            return (String) object.get("kind");
        }

        public String name() {
            return (String) meta().get("name");
        }

        public String namespace() {
            Object ns = meta().get("namespace");
            return ns == null ? "" : (String) ns;
        }

        /** kind/namespace/name, the identity Helm tracks a release object by. */
        public String key() {
            return kind() + "/" + namespace() + "/" + name();
        }

        /** The events this object is a hook of (helm.sh/hook: pre-upgrade,post-install); none. */
        public Set<String> hookEvents() {
            String hook = annotation(HOOK);
            Set<String> events = new LinkedHashSet<>();
            if (hook != null) {
                Arrays.stream(hook.split(","))
                        .map(String::strip)
                        .filter(s -> !s.isEmpty())
                        .forEach(events::add);
            }
            return events;
        }

        public boolean isHook() {
            return !hookEvents().isEmpty();
        }

        public int hookWeight() {
            String w = annotation(HOOK_WEIGHT);
            if (w == null || w.isBlank()) {
                return 0;
            }
            try {
                return Integer.parseInt(w.strip());
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(
                        key() + ": " + HOOK_WEIGHT + " \"" + w + "\" is not an integer", e);
            }
        }

        /** helm.sh/hook-delete-policy; Helm's default is before-hook-creation. */
        public Set<String> deletePolicies() {
            String p = annotation(HOOK_DELETE_POLICY);
            if (p == null || p.isBlank()) {
                return Set.of("before-hook-creation");
            }
            Set<String> policies = new LinkedHashSet<>();
            Arrays.stream(p.split(",")).map(String::strip).forEach(policies::add);
            return policies;
        }

        @SuppressWarnings("unchecked")
        private Map<String, Object> meta() {
            Object m = object.get("metadata");
            return m instanceof Map<?, ?> ? (Map<String, Object>) m : Map.of();
        }

        @SuppressWarnings("unchecked")
        private String annotation(String key) {
            Object a = meta().get("annotations");
            return a instanceof Map<?, ?> ? (String) ((Map<String, Object>) a).get(key) : null;
        }
    }

    /** The objects of a multi-document YAML (helm template's output); empty documents skipped. */
    public static List<Manifest> parse(String yaml) throws IOException {
        List<Manifest> out = new ArrayList<>();
        try (MappingIterator<Map<String, Object>> it = YAML.readerFor(Map.class).readValues(yaml)) {
            while (it.hasNext()) {
                Map<String, Object> o = it.next();
                if (o != null && !o.isEmpty()) {
                    Manifest m = new Manifest(o);
                    if (m.kind() == null || m.name() == null) {
                        throw new IllegalArgumentException(
                                "rendered object without kind or metadata.name: " + o);
                    }
                    if (m.isHook()) {
                        m.hookWeight(); // a weight that is no integer fails here, naming the object
                    }
                    out.add(m);
                }
            }
        }
        return out;
    }

    /** The release's objects (not hooks), in the order helm install and upgrade apply them. */
    public static List<Manifest> release(List<Manifest> rendered) {
        return rendered.stream().filter(m -> !m.isHook()).sorted(byKind(INSTALL_ORDER)).toList();
    }

    /** The hooks of one event (pre-upgrade, pre-delete, ...) in the order Helm runs them. */
    public static List<Manifest> hooks(List<Manifest> rendered, String event) {
        return rendered.stream()
                .filter(m -> m.hookEvents().contains(event))
                .sorted(byKind(INSTALL_ORDER))
                .sorted(Comparator.comparingInt(Manifest::hookWeight).thenComparing(Manifest::name))
                .toList();
    }

    /** What helm uninstall deletes after its pre-delete hooks, in its order. */
    public static List<Manifest> uninstall(List<Manifest> release) {
        return release.stream().filter(m -> !m.isHook()).sorted(byKind(UNINSTALL_ORDER)).toList();
    }

    /**
     * What helm upgrade deletes after applying the new release: the old release's objects the new
     * one no longer renders, in uninstall order.
     */
    public static List<Manifest> removedByUpgrade(
            List<Manifest> oldRelease, List<Manifest> newRelease) {
        Set<String> kept = new LinkedHashSet<>();
        newRelease.stream().filter(m -> !m.isHook()).forEach(m -> kept.add(m.key()));
        return uninstall(oldRelease.stream().filter(m -> !kept.contains(m.key())).toList());
    }

    /**
     * The JSON merge patch (RFC 7386) that turns {@code from} into {@code to}, as Helm's upgrade
     * computes it between the old and the new manifest of an object ({@code
     * jsonpatch.CreateMergePatch}): keys whose value changed or that are new carry the new value
     * (maps recursively, lists whole), keys the new manifest dropped are null. Empty when the
     * manifests are equal: the upgrade then leaves the object as it is, whatever others wrote
     * there. Pure.
     */
    @SuppressWarnings("unchecked")
    public static Map<String, Object> mergePatch(Map<String, Object> from, Map<String, Object> to) {
        Map<String, Object> patch = new LinkedHashMap<>();
        for (var e : to.entrySet()) {
            Object old = from.get(e.getKey());
            Object now = e.getValue();
            if (old instanceof Map<?, ?> o && now instanceof Map<?, ?> n) {
                Map<String, Object> inner =
                        mergePatch((Map<String, Object>) o, (Map<String, Object>) n);
                if (!inner.isEmpty()) {
                    patch.put(e.getKey(), inner);
                }
            } else if (!Objects.equals(old, now) || !from.containsKey(e.getKey())) {
                patch.put(e.getKey(), now);
            }
        }
        for (String key : from.keySet()) {
            if (!to.containsKey(key)) {
                patch.put(key, null);
            }
        }
        return patch;
    }

    /**
     * Kinds in the given order, unknown kinds last and among themselves alphabetically (Helm's
     * lessByKind); a stable sort keeps the chart's order within a kind.
     */
    static Comparator<Manifest> byKind(List<String> order) {
        return (a, b) -> {
            int ia = order.indexOf(a.kind());
            int ib = order.indexOf(b.kind());
            if (ia < 0 && ib < 0) {
                return a.kind().compareTo(b.kind());
            }
            if (ia < 0) {
                return 1;
            }
            if (ib < 0) {
                return -1;
            }
            return Integer.compare(ia, ib);
        };
    }
}
