package org.gpuoperator.e2e.cluster;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;

/**
 * Plays the kube-controller-manager's garbage collector for what the operator owns (owned by a
 * ClusterPolicy or an NVIDIADriver, both cluster-scoped) and for Deployments: an object whose every
 * owner (by UID) is gone is deleted, as background cascading deletion does. The mock API server has
 * no collector of its own, and without it deleting a ClusterPolicy would leave its DaemonSets
 * running, and deleting a Deployment its ReplicaSets and their pods.
 */
final class GarbageCollector {

    private final KubernetesClient client;
    private final String namespace;
    private final Consumer<String> events;

    GarbageCollector(KubernetesClient client, String namespace, Consumer<String> events) {
        this.client = client;
        this.namespace = namespace;
        this.events = events;
    }

    static final ResourceDefinitionContext NVIDIA_DRIVERS =
            new ResourceDefinitionContext.Builder()
                    .withGroup("nvidia.com")
                    .withVersion("v1alpha1")
                    .withKind("NVIDIADriver")
                    .withPlural("nvidiadrivers")
                    .withNamespaced(false)
                    .build();

    /** Owner kinds whose dependents {@link #syncWorkloads} collects, in every namespace. */
    static final Set<String> WORKLOAD_OWNERS = Set.of("Deployment", "ReplicaSet");

    /**
     * Dependents whose owner references all name {@code kinds} and none of whose owners is among
     * {@code live} (uids): what background propagation deletes.
     */
    static <T extends HasMetadata> List<T> orphans(
            List<T> dependents, Set<String> kinds, Set<String> live) {
        List<T> out = new ArrayList<>();
        for (T d : dependents) {
            List<OwnerReference> refs = d.getMetadata().getOwnerReferences();
            if (refs != null
                    && !refs.isEmpty()
                    && refs.stream().allMatch(r -> kinds.contains(r.getKind()))
                    && refs.stream().noneMatch(r -> live.contains(r.getUid()))
                    && d.getMetadata().getDeletionTimestamp() == null) {
                out.add(d);
            }
        }
        return out;
    }

    /**
     * ReplicaSets whose Deployment is gone, and pods whose ReplicaSet is gone, from the informers'
     * view; each owner's absence is checked against the API server before the delete (an informer
     * may show a new pod before its new ReplicaSet).
     */
    void syncWorkloads(
            List<io.fabric8.kubernetes.api.model.apps.Deployment> deployments,
            List<io.fabric8.kubernetes.api.model.apps.ReplicaSet> replicaSets,
            List<io.fabric8.kubernetes.api.model.Pod> pods) {
        Set<String> live = new HashSet<>();
        deployments.forEach(d -> live.add(d.getMetadata().getUid()));
        replicaSets.forEach(r -> live.add(r.getMetadata().getUid()));
        List<HasMetadata> candidates = new ArrayList<>();
        candidates.addAll(orphans(replicaSets, WORKLOAD_OWNERS, live));
        candidates.addAll(orphans(pods, WORKLOAD_OWNERS, live));
        for (HasMetadata d : candidates) {
            if (d.getMetadata().getOwnerReferences().stream().anyMatch(r -> ownerExists(d, r))) {
                continue;
            }
            try {
                client.resource(d).delete();
                events.accept(
                        "garbage collector: deleted "
                                + d.getKind()
                                + " "
                                + d.getMetadata().getNamespace()
                                + "/"
                                + d.getMetadata().getName()
                                + " (its "
                                + d.getMetadata().getOwnerReferences().get(0).getKind()
                                + " is gone)");
            } catch (KubernetesClientException e) {
                // already gone
            }
        }
    }

    private boolean ownerExists(HasMetadata dependent, OwnerReference r) {
        String ns = dependent.getMetadata().getNamespace();
        HasMetadata owner =
                switch (r.getKind()) {
                    case "Deployment" ->
                            client.apps().deployments().inNamespace(ns).withName(r.getName()).get();
                    case "ReplicaSet" ->
                            client.apps().replicaSets().inNamespace(ns).withName(r.getName()).get();
                    default -> null;
                };
        return owner != null && r.getUid().equals(owner.getMetadata().getUid());
    }

    void sync() {
        List<HasMetadata> dependents = new ArrayList<>();
        dependents.addAll(client.apps().daemonSets().inNamespace(namespace).list().getItems());
        dependents.addAll(client.configMaps().inNamespace(namespace).list().getItems());
        dependents.addAll(client.serviceAccounts().inNamespace(namespace).list().getItems());
        dependents.addAll(client.services().inNamespace(namespace).list().getItems());
        dependents.addAll(client.rbac().roles().inNamespace(namespace).list().getItems());
        dependents.addAll(client.rbac().roleBindings().inNamespace(namespace).list().getItems());
        dependents.addAll(client.rbac().clusterRoles().list().getItems());
        dependents.addAll(client.rbac().clusterRoleBindings().list().getItems());
        dependents.addAll(
                client.resources(io.fabric8.kubernetes.api.model.node.v1.RuntimeClass.class)
                        .list()
                        .getItems());
        // owners listed after their dependents: an owner made since is not missed
        Set<String> owners = new HashSet<>();
        client.genericKubernetesResources(SimulatedCluster.CLUSTER_POLICIES)
                .list()
                .getItems()
                .forEach(cp -> owners.add(cp.getMetadata().getUid()));
        Set<String> kinds = new HashSet<>(Set.of("ClusterPolicy"));
        try {
            client.genericKubernetesResources(NVIDIA_DRIVERS)
                    .list()
                    .getItems()
                    .forEach(d -> owners.add(d.getMetadata().getUid()));
            kinds.add("NVIDIADriver");
        } catch (KubernetesClientException e) {
            // no NVIDIADriver CRD: what they own is left alone
        }
        for (HasMetadata d : orphans(dependents, kinds, owners)) {
            try {
                client.resource(d).delete();
                events.accept(
                        "garbage collector: deleted "
                                + d.getKind()
                                + " "
                                + d.getMetadata().getName());
            } catch (KubernetesClientException e) {
                // already gone
            }
        }
    }
}
