package org.gpuoperator.controller.nvidiadriver;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.NodeSelectorRequirement;
import io.fabric8.kubernetes.api.model.NodeSelectorTerm;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.DaemonSetBuilder;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.gpuoperator.controller.upgrade.UpgradeState;
import org.junit.jupiter.api.Test;

class DriverHandoverTest {

    private static Pod driverPod(String pool, boolean controlled, boolean terminating) {
        Map<String, String> labels = new HashMap<>(Map.of("app", "nvidia-driver-daemonset"));
        if (pool != null) {
            labels.put(DriverPools.POOL_LABEL, pool);
        }
        PodBuilder b =
                new PodBuilder()
                        .withNewMetadata()
                        .withName("driver")
                        .withNamespace("gpu-operator")
                        .withLabels(labels)
                        .endMetadata();
        if (controlled) {
            b.editMetadata()
                    .addNewOwnerReference()
                    .withKind("DaemonSet")
                    .withName("ds")
                    .withUid("ds-uid")
                    .withController(true)
                    .endOwnerReference()
                    .endMetadata();
        }
        if (terminating) {
            b.editMetadata().withDeletionTimestamp("2026-12-03T00:00:00Z").endMetadata();
        }
        return b.build();
    }

    @Test
    void aNodeRunningTheClusterPolicysDriverKeepsItsLabelsUntilItsUpgradeMayReplaceThePod() {
        List<Pod> old = List.of(driverPod(null, false, false));
        for (UpgradeState s :
                List.of(
                        UpgradeState.UNKNOWN,
                        UpgradeState.UPGRADE_DONE,
                        UpgradeState.UPGRADE_REQUIRED,
                        UpgradeState.CORDON_REQUIRED,
                        UpgradeState.WAIT_FOR_JOBS_REQUIRED,
                        UpgradeState.POD_DELETION_REQUIRED,
                        UpgradeState.DRAIN_REQUIRED,
                        UpgradeState.UPGRADE_FAILED)) {
            assertThat(DriverHandover.holdsLabels(old, true, "default-ubuntu22.04-abc", s, true))
                    .as("state %s", s)
                    .isTrue();
        }
        for (UpgradeState s :
                List.of(
                        UpgradeState.POD_RESTART_REQUIRED,
                        UpgradeState.VALIDATION_REQUIRED,
                        UpgradeState.UNCORDON_REQUIRED)) {
            assertThat(DriverHandover.holdsLabels(old, true, "default-ubuntu22.04-abc", s, true))
                    .as("state %s", s)
                    .isFalse();
        }
    }

    @Test
    void thePodOfTheTargetPoolOrNoPodLetsTheLabelsMove() {
        String pool = "default-ubuntu22.04-abc";
        assertThat(
                        DriverHandover.holdsLabels(
                                List.of(driverPod(pool, true, false)),
                                true,
                                pool,
                                UpgradeState.UNKNOWN,
                                true))
                .isFalse();
        assertThat(DriverHandover.holdsLabels(List.of(), true, pool, UpgradeState.UNKNOWN, true))
                .isFalse();
        // an old pod already going counts as gone
        assertThat(
                        DriverHandover.holdsLabels(
                                List.of(driverPod(null, true, true)),
                                true,
                                pool,
                                UpgradeState.UNKNOWN,
                                true))
                .isFalse();
    }

    @Test
    void anOrphanOfTheTargetsPoolIsStillReplacedAndAnotherPoolsPodHoldsTheLabels() {
        String pool = "a-ubuntu22.04-abc";
        assertThat(DriverHandover.isTargets(driverPod(pool, false, false), pool)).isFalse();
        assertThat(
                        DriverHandover.holdsLabels(
                                List.of(driverPod(pool, false, false)),
                                true,
                                pool,
                                UpgradeState.UPGRADE_REQUIRED,
                                true))
                .isTrue();
        assertThat(
                        DriverHandover.holdsLabels(
                                List.of(driverPod("b-ubuntu22.04-abc", true, false)),
                                true,
                                pool,
                                UpgradeState.UPGRADE_REQUIRED,
                                true))
                .isTrue();
        // leaving NVIDIADriver mode: the target is the ClusterPolicy's DaemonSet (no pool)
        assertThat(
                        DriverHandover.holdsLabels(
                                List.of(driverPod(pool, true, false)),
                                true,
                                null,
                                UpgradeState.UPGRADE_REQUIRED,
                                true))
                .isTrue();
        assertThat(DriverHandover.isTargets(driverPod(null, true, false), null)).isTrue();
    }

    @Test
    void withoutAutomaticUpgradesOrWithoutATargetTheLabelsMoveAtOnce() {
        List<Pod> old = List.of(driverPod(null, false, false));
        assertThat(DriverHandover.holdsLabels(old, true, "p", UpgradeState.UNKNOWN, false))
                .isFalse();
        assertThat(DriverHandover.holdsLabels(old, false, null, UpgradeState.UNKNOWN, true))
                .isFalse();
    }

    @Test
    void autoUpgradeIsTheNvidiaDriversOrElseTheClusterPolicys() {
        var auto = new DriverHandover.AutoUpgrade(false, Map.of("a", true));
        assertThat(auto.of("a")).isTrue();
        assertThat(auto.of("b")).isFalse();
        assertThat(auto.of(null)).isFalse();
        assertThat(auto).isEqualTo(new DriverHandover.AutoUpgrade(false, Map.of("a", true)));
    }

    @Test
    void theClusterPolicysDaemonSetStaysOffNodesWithAPoolLabelInEveryAffinityTerm() {
        DaemonSet bare =
                new DaemonSetBuilder()
                        .withNewSpec()
                        .withNewTemplate()
                        .withNewSpec()
                        .endSpec()
                        .endTemplate()
                        .endSpec()
                        .build();
        DriverHandover.excludePoolNodes(bare);
        List<NodeSelectorTerm> terms =
                bare.getSpec()
                        .getTemplate()
                        .getSpec()
                        .getAffinity()
                        .getNodeAffinity()
                        .getRequiredDuringSchedulingIgnoredDuringExecution()
                        .getNodeSelectorTerms();
        assertThat(terms).hasSize(1);
        assertThat(terms.get(0).getMatchExpressions())
                .containsExactly(
                        new NodeSelectorRequirement(DriverPools.POOL_LABEL, "DoesNotExist", null));

        DaemonSet withTerms =
                new DaemonSetBuilder()
                        .withNewSpec()
                        .withNewTemplate()
                        .withNewSpec()
                        .withNewAffinity()
                        .withNewNodeAffinity()
                        .withNewRequiredDuringSchedulingIgnoredDuringExecution()
                        .addNewNodeSelectorTerm()
                        .addToMatchExpressions(
                                new NodeSelectorRequirement("zone", "In", List.of("a")))
                        .endNodeSelectorTerm()
                        .addNewNodeSelectorTerm()
                        .addToMatchExpressions(
                                new NodeSelectorRequirement("zone", "In", List.of("b")))
                        .endNodeSelectorTerm()
                        .endRequiredDuringSchedulingIgnoredDuringExecution()
                        .endNodeAffinity()
                        .endAffinity()
                        .endSpec()
                        .endTemplate()
                        .endSpec()
                        .build();
        DriverHandover.excludePoolNodes(withTerms);
        assertThat(
                        withTerms
                                .getSpec()
                                .getTemplate()
                                .getSpec()
                                .getAffinity()
                                .getNodeAffinity()
                                .getRequiredDuringSchedulingIgnoredDuringExecution()
                                .getNodeSelectorTerms())
                .allSatisfy(
                        t ->
                                assertThat(t.getMatchExpressions())
                                        .hasSize(2)
                                        .extracting(NodeSelectorRequirement::getOperator)
                                        .containsExactly("In", "DoesNotExist"));
    }
}
