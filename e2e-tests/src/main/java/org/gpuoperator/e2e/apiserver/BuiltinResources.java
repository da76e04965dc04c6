package org.gpuoperator.e2e.apiserver;

import java.util.List;
import org.gpuoperator.e2e.apiserver.ApiResource.Subresource;

/**
 * The built-in types the simulated API server serves, as data. Names, short names and categories
 * are the ones kubectl users know; every type gets the full CRUD verb set because the mock stores
 * anything.
 */
public final class BuiltinResources {

    private BuiltinResources() {}

    private static final Subresource STATUS = Subresource.of("status", "get", "patch", "update");
    private static final Subresource SCALE =
            new Subresource(
                    "scale", "autoscaling", "v1", "Scale", List.of("get", "patch", "update"));

    public static final List<ApiResource> ALL =
            List.of(
                    core("namespaces", "Namespace", false, List.of("ns"), List.of(), STATUS),
                    core("nodes", "Node", false, List.of("no"), List.of(), STATUS),
                    core(
                            "pods",
                            "Pod",
                            true,
                            List.of("po"),
                            List.of("all"),
                            STATUS,
                            Subresource.of("log", "get"),
                            new Subresource(
                                    "eviction", "policy", "v1", "Eviction", List.of("create"))),
                    core("services", "Service", true, List.of("svc"), List.of("all"), STATUS),
                    core("endpoints", "Endpoints", true, List.of("ep"), List.of()),
                    core("configmaps", "ConfigMap", true, List.of("cm"), List.of()),
                    core("secrets", "Secret", true, List.of(), List.of()),
                    core(
                            "serviceaccounts",
                            "ServiceAccount",
                            true,
                            List.of("sa"),
                            List.of(),
                            new Subresource(
                                    "token",
                                    "authentication.k8s.io",
                                    "v1",
                                    "TokenRequest",
                                    List.of("create"))),
                    core("events", "Event", true, List.of("ev"), List.of()),
                    core(
                            "persistentvolumeclaims",
                            "PersistentVolumeClaim",
                            true,
                            List.of("pvc"),
                            List.of(),
                            STATUS),
                    of(
                            "apps",
                            "daemonsets",
                            "DaemonSet",
                            true,
                            List.of("ds"),
                            List.of("all"),
                            STATUS),
                    of(
                            "apps",
                            "deployments",
                            "Deployment",
                            true,
                            List.of("deploy"),
                            List.of("all"),
                            STATUS,
                            SCALE),
                    of(
                            "apps",
                            "replicasets",
                            "ReplicaSet",
                            true,
                            List.of("rs"),
                            List.of("all"),
                            STATUS,
                            SCALE),
                    of(
                            "apps",
                            "statefulsets",
                            "StatefulSet",
                            true,
                            List.of("sts"),
                            List.of("all"),
                            STATUS,
                            SCALE),
                    of(
                            "apps",
                            "controllerrevisions",
                            "ControllerRevision",
                            true,
                            List.of(),
                            List.of()),
                    of("batch", "jobs", "Job", true, List.of(), List.of("all"), STATUS),
                    of("batch", "cronjobs", "CronJob", true, List.of("cj"), List.of("all"), STATUS),
                    of(
                            "rbac.authorization.k8s.io",
                            "clusterroles",
                            "ClusterRole",
                            false,
                            List.of(),
                            List.of()),
                    of(
                            "rbac.authorization.k8s.io",
                            "clusterrolebindings",
                            "ClusterRoleBinding",
                            false,
                            List.of(),
                            List.of()),
                    of("rbac.authorization.k8s.io", "roles", "Role", true, List.of(), List.of()),
                    of(
                            "rbac.authorization.k8s.io",
                            "rolebindings",
                            "RoleBinding",
                            true,
                            List.of(),
                            List.of()),
                    of(
                            "node.k8s.io",
                            "runtimeclasses",
                            "RuntimeClass",
                            false,
                            List.of(),
                            List.of()),
                    of("coordination.k8s.io", "leases", "Lease", true, List.of(), List.of()),
                    of(
                            "policy",
                            "poddisruptionbudgets",
                            "PodDisruptionBudget",
                            true,
                            List.of("pdb"),
                            List.of(),
                            STATUS),
                    of(
                            "apiextensions.k8s.io",
                            "customresourcedefinitions",
                            "CustomResourceDefinition",
                            false,
                            List.of("crd", "crds"),
                            List.of("api-extensions"),
                            STATUS));

    private static ApiResource core(
            String plural,
            String kind,
            boolean namespaced,
            List<String> shortNames,
            List<String> categories,
            Subresource... subs) {
        return of("", plural, kind, namespaced, shortNames, categories, subs);
    }

    private static ApiResource of(
            String group,
            String plural,
            String kind,
            boolean namespaced,
            List<String> shortNames,
            List<String> categories,
            Subresource... subs) {
        return new ApiResource(
                group,
                "v1",
                plural,
                null,
                kind,
                namespaced,
                ApiResource.ALL_VERBS,
                shortNames,
                categories,
                List.of(subs));
    }
}
