package org.gpuoperator.controller.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBinding;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBuilder;
import io.fabric8.kubernetes.api.model.rbac.Role;
import io.fabric8.kubernetes.api.model.rbac.RoleBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.gpuoperator.controller.apply.ObjectRef;
import org.junit.jupiter.api.Test;

class LeftoverRbacTest {

    private static final String UID = "policy-uid";
    private static final String NS = "gpu-operator";

    private static ObjectMeta meta(String name, String ns, String component, String ownerUid) {
        ObjectMetaBuilder b = new ObjectMetaBuilder().withName(name).withNamespace(ns);
        if (component != null) {
            b.addToLabels("app.kubernetes.io/managed-by", "gpu-operator")
                    .addToLabels("app.kubernetes.io/component", component);
        }
        if (ownerUid != null) {
            b.addNewOwnerReference()
                    .withKind("ClusterPolicy")
                    .withName("cluster-policy")
                    .withUid(ownerUid)
                    .endOwnerReference();
        }
        return b.build();
    }

    private static ClusterRole clusterRole(String name, String component, String ownerUid) {
        return new ClusterRoleBuilder().withMetadata(meta(name, null, component, ownerUid)).build();
    }

    private static final List<HasMetadata> LIVE =
            List.of(
                    // rendered by this version: kept
                    clusterRole("gpu-feature-discovery", "gpu-feature-discovery", UID),
                    // an earlier version's, no longer rendered
                    clusterRole("nvidia-dcgm-exporter", "dcgm-exporter", UID),
                    new ClusterRoleBindingBuilder()
                            .withMetadata(meta("nvidia-dcgm-exporter", null, "dcgm-exporter", UID))
                            .build(),
                    new RoleBuilder()
                            .withMetadata(meta("nvidia-device-plugin", NS, "device-plugin", UID))
                            .build(),
                    // not ours: another policy's, no owner, no labels, not an operand
                    clusterRole("other-policy", "dcgm-exporter", "another-uid"),
                    clusterRole("no-owner", "dcgm-exporter", null),
                    clusterRole("foreign", null, UID),
                    clusterRole("not-an-operand", "something-else", UID));

    private static final List<ObjectRef> KEPT =
            List.of(new ObjectRef(ClusterRole.class, null, "gpu-feature-discovery"));

    @Test
    void ourOperandsRbacOwnedByThePolicyAndNotRenderedIsALeftover() {
        assertThat(LeftoverRbac.leftovers(LIVE, KEPT, UID))
                .containsExactly(
                        new ObjectRef(ClusterRole.class, null, "nvidia-dcgm-exporter"),
                        new ObjectRef(ClusterRoleBinding.class, null, "nvidia-dcgm-exporter"),
                        new ObjectRef(Role.class, NS, "nvidia-device-plugin"));
        assertThat(LeftoverRbac.leftovers(LIVE, KEPT, "unknown-uid")).isEmpty();
    }

    @Test
    void lookedForOncePerPolicyAndAgainOnlyAfterAFailureThatMayPass() {
        AtomicInteger lists = new AtomicInteger();
        LeftoverRbac once =
                new LeftoverRbac(
                        ns -> {
                            lists.incrementAndGet();
                            return LIVE;
                        });
        assertThat(once.find(UID, NS, KEPT)).hasSize(3);
        assertThat(once.find(UID, NS, KEPT)).isEmpty();
        assertThat(lists).hasValue(1);

        AtomicInteger failures = new AtomicInteger();
        LeftoverRbac unavailable =
                new LeftoverRbac(
                        ns -> {
                            failures.incrementAndGet();
                            throw new KubernetesClientException("down", 503, null);
                        });
        assertThat(unavailable.find(UID, NS, KEPT)).isEmpty();
        assertThat(unavailable.find(UID, NS, KEPT)).isEmpty();
        assertThat(failures).hasValue(2);

        AtomicInteger forbidden = new AtomicInteger();
        LeftoverRbac noGrant =
                new LeftoverRbac(
                        ns -> {
                            forbidden.incrementAndGet();
                            throw new KubernetesClientException("forbidden", 403, null);
                        });
        assertThat(noGrant.find(UID, NS, KEPT)).isEmpty();
        assertThat(noGrant.find(UID, NS, KEPT)).isEmpty();
        assertThat(forbidden).hasValue(1);
    }
}
