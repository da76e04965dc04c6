package org.gpuoperator.controller.reconcile;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.net.HttpURLConnection;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.gpuoperator.controller.apply.ObjectRef;
import org.gpuoperator.controller.operand.Operand;
import org.gpuoperator.controller.operand.PodContract;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * RBAC objects that an earlier version of this operator created for an operand and this version no
 * longer renders (an agent's rules narrowed, a ClusterRole it no longer needs): ours by our labels
 * and by the policy's owner reference, so nothing someone else made is touched. Looked for once per
 * policy and controller start: the rules are fixed per version, and an upgrade restarts the
 * controller.
 */
final class LeftoverRbac {

    /** Our RBAC objects as they are: ClusterRoles and their bindings, Roles and theirs. */
    @FunctionalInterface
    interface Lister {
        List<HasMetadata> list(String namespace);

        /** Lists the four kinds by our managed-by label. */
        static Lister of(KubernetesClient client) {
            return namespace -> {
                Map<String, String> ours =
                        Map.of(PodContract.MANAGED_BY_LABEL, PodContract.MANAGED_BY);
                List<HasMetadata> out = new ArrayList<>();
                out.addAll(client.rbac().clusterRoles().withLabels(ours).list().getItems());
                out.addAll(client.rbac().clusterRoleBindings().withLabels(ours).list().getItems());
                out.addAll(
                        client.rbac()
                                .roles()
                                .inNamespace(namespace)
                                .withLabels(ours)
                                .list()
                                .getItems());
                out.addAll(
                        client.rbac()
                                .roleBindings()
                                .inNamespace(namespace)
                                .withLabels(ours)
                                .list()
                                .getItems());
                return out;
            };
        }
    }

    private static final Logger LOG = LoggerFactory.getLogger(LeftoverRbac.class);

    private final Lister lister;
    private final Set<String> checkedPolicies = ConcurrentHashMap.newKeySet();

    LeftoverRbac(Lister lister) {
        this.lister = lister;
    }

    /**
     * The leftovers to delete, the first time this policy is reconciled by this controller; none
     * after that. A failed list is not remembered, so the next reconcile looks again.
     *
     * @param kept what this reconcile applies or deletes by itself
     */
    List<ObjectRef> find(String policyUid, String namespace, Collection<ObjectRef> kept) {
        if (checkedPolicies.contains(policyUid)) {
            return List.of();
        }
        List<HasMetadata> live;
        try {
            live = lister.list(namespace);
        } catch (KubernetesClientException e) {
            // never stops the reconcile; without the list grant (an older deploy) it is not retried
            LOG.warn("cannot look for leftover RBAC (code {}): {}", e.getCode(), e.getMessage());
            if (e.getCode() == HttpURLConnection.HTTP_FORBIDDEN) {
                checkedPolicies.add(policyUid);
            }
            return List.of();
        }
        checkedPolicies.add(policyUid);
        return leftovers(live, kept, policyUid);
    }

    /**
     * Pure: each object with our managed-by label and an operand's component label, owned by the
     * policy, that is not among {@code kept}.
     */
    static List<ObjectRef> leftovers(
            List<HasMetadata> live, Collection<ObjectRef> kept, String policyUid) {
        Set<String> components = new HashSet<>();
        for (Operand o : Operand.values()) {
            components.add(o.id()); // what versions before upstream's driver component wrote
            components.add(o.component());
        }
        Set<ObjectRef> keep = Set.copyOf(kept);
        List<ObjectRef> out = new ArrayList<>();
        for (HasMetadata object : live) {
            Map<String, String> labels = object.getMetadata().getLabels();
            if (labels == null
                    || !PodContract.MANAGED_BY.equals(labels.get(PodContract.MANAGED_BY_LABEL))
                    || !components.contains(labels.get(PodContract.COMPONENT_LABEL))
                    || !ownedBy(object, policyUid)) {
                continue;
            }
            ObjectRef ref = ObjectRef.of(object);
            if (!keep.contains(ref)) {
                out.add(ref);
            }
        }
        return out;
    }

    private static boolean ownedBy(HasMetadata object, String policyUid) {
        List<OwnerReference> owners = object.getMetadata().getOwnerReferences();
        return owners != null
                && owners.stream()
                        .anyMatch(
                                o ->
                                        "ClusterPolicy".equals(o.getKind())
                                                && policyUid.equals(o.getUid()));
    }
}
