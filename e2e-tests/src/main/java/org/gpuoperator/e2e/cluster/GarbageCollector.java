package org.gpuoperator.e2e.cluster;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
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
     * view; each is deleted only if {@link #danglingNow} agrees (an informer may show a new pod
     * before its new ReplicaSet, or a pod as it was before an orphaning delete took its reference).
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
        candidates.forEach(this::deleteIfDangling);
    }

    /**
     * The dependent as the API server has it now, if it still has owner references and every owner
     * they name is gone there: the garbage collector decides on the latest object, never on a list
     * that may predate an orphaning delete (which takes the reference away before the owner goes).
     * Null when it must stay: gone, going, replaced (another uid), orphaned, or one owner live. An
     * owner of a kind this cannot read counts as live.
     */
    static <T extends HasMetadata> T danglingNow(KubernetesClient client, T seen) {
        T now = client.resource(seen).get();
        if (now == null
                || now.getMetadata().getDeletionTimestamp() != null
                || !Objects.equals(now.getMetadata().getUid(), seen.getMetadata().getUid())) {
            return null;
        }
        List<OwnerReference> refs = now.getMetadata().getOwnerReferences();
        if (refs == null || refs.isEmpty()) {
            return null;
        }
        for (OwnerReference r : refs) {
            if (ownerLive(client, now.getMetadata().getNamespace(), r)) {
                return null;
            }
        }
        return now;
    }

    private static boolean ownerLive(KubernetesClient client, String ns, OwnerReference r) {
        HasMetadata owner;
        try {
            owner =
                    switch (r.getKind()) {
                        case "Deployment" ->
                                client.apps()
                                        .deployments()
                                        .inNamespace(ns)
                                        .withName(r.getName())
                                        .get();
                        case "ReplicaSet" ->
                                client.apps()
                                        .replicaSets()
                                        .inNamespace(ns)
                                        .withName(r.getName())
                                        .get();
                        case "DaemonSet" ->
                                client.apps()
                                        .daemonSets()
                                        .inNamespace(ns)
                                        .withName(r.getName())
                                        .get();
                        case "ClusterPolicy" ->
                                client.genericKubernetesResources(SimulatedCluster.CLUSTER_POLICIES)
                                        .withName(r.getName())
                                        .get();
                        case "NVIDIADriver" ->
                                client.genericKubernetesResources(NVIDIA_DRIVERS)
                                        .withName(r.getName())
                                        .get();
                        default -> null;
                    };
        } catch (KubernetesClientException e) {
            return true; // cannot tell: leave the dependent alone
        }
        if (owner == null) {
            return !OWNER_KINDS.contains(r.getKind());
        }
        return r.getUid().equals(owner.getMetadata().getUid());
    }

    /** Owner kinds {@link #danglingNow} reads; an owner of another kind counts as live. */
    private static final Set<String> OWNER_KINDS =
            Set.of("Deployment", "ReplicaSet", "DaemonSet", "ClusterPolicy", "NVIDIADriver");

    private void deleteIfDangling(HasMetadata seen) {
        HasMetadata now = danglingNow(client, seen);
        if (now == null) {
            return;
        }
        try {
            client.resource(now).delete();
            String ns = now.getMetadata().getNamespace();
            events.accept(
                    "garbage collector: deleted "
                            + now.getKind()
                            + " "
                            + (ns == null ? "" : ns + "/")
                            + now.getMetadata().getName()
                            + " (its "
                            + now.getMetadata().getOwnerReferences().get(0).getKind()
                            + " is gone)");
        } catch (KubernetesClientException e) {
            // already gone
        }
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
        orphans(dependents, kinds, owners).forEach(this::deleteIfDangling);
    }
}
