package org.gpuoperator.e2e.cluster;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;

/**
 * Plays the kube-controller-manager's garbage collector for what the operator owns: an object whose
 * every owner (by UID) is gone is deleted, as background cascading deletion does. The mock API
 * server has no collector of its own, and without it deleting a ClusterPolicy would leave its
 * DaemonSets running.
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

    void sync() {
        Set<String> owners = new HashSet<>();
        client.genericKubernetesResources(SimulatedCluster.CLUSTER_POLICIES)
                .list()
                .getItems()
                .forEach(cp -> owners.add(cp.getMetadata().getUid()));
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
        for (HasMetadata d : dependents) {
            List<OwnerReference> refs = d.getMetadata().getOwnerReferences();
            boolean ownedByPolicy =
                    refs != null
                            && !refs.isEmpty()
                            && refs.stream().allMatch(r -> "ClusterPolicy".equals(r.getKind()));
            if (ownedByPolicy && refs.stream().noneMatch(r -> owners.contains(r.getUid()))) {
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
}
