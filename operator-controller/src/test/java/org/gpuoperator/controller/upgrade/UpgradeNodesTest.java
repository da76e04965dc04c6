package org.gpuoperator.controller.upgrade;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.gpuoperator.controller.operand.PodContract;
import org.junit.jupiter.api.Test;

class UpgradeNodesTest {

    private static Node node(boolean ready, boolean unschedulable) {
        return new NodeBuilder()
                .withNewMetadata()
                .withName("a")
                .addToLabels(UpgradeKeys.STATE_LABEL, "pod-restart-required")
                .addToAnnotations(UpgradeKeys.INITIAL_STATE_UNSCHEDULABLE, "false")
                .endMetadata()
                .withNewSpec()
                .withUnschedulable(unschedulable)
                .endSpec()
                .withNewStatus()
                .addNewCondition()
                .withType("Ready")
                .withStatus(ready ? "True" : "Unknown")
                .endCondition()
                .endStatus()
                .build();
    }

    private static PodBuilder operandPod(String app, String name, String hash, boolean ready) {
        return new PodBuilder()
                .withNewMetadata()
                .withNamespace("gpu-operator")
                .withName(name)
                .withCreationTimestamp("2026-06-01T00:00:00Z")
                .addToLabels(PodContract.APP_LABEL, app)
                .addToAnnotations(PodContract.TEMPLATE_HASH_ANNOTATION, hash)
                .addNewOwnerReference()
                .withKind("DaemonSet")
                .withName("nvidia-driver-daemonset")
                .withUid("ds-uid")
                .withController(true)
                .endOwnerReference()
                .endMetadata()
                .withNewSpec()
                .withNodeName("a")
                .addNewContainer()
                .withName("driver-agent")
                .addNewEnv()
                .withName("DRIVER_VERSION")
                .withValue("580.65.06")
                .endEnv()
                .endContainer()
                .endSpec()
                .withNewStatus()
                .withStartTime("2026-06-01T00:00:05Z")
                .addNewCondition()
                .withType("Ready")
                .withStatus(ready ? "True" : "False")
                .withLastTransitionTime("2026-06-01T00:01:00Z")
                .endCondition()
                .addNewContainerStatus()
                .withName("driver-agent")
                .withRestartCount(3)
                .endContainerStatus()
                .endStatus();
    }

    @Test
    void theViewReadsTheNodeTheDriverPodTheValidatorAndTheOtherPods() {
        Pod driver = operandPod("nvidia-driver-daemonset", "driver-a", "h2", false).build();
        Pod validator = operandPod("nvidia-operator-validator", "validator-a", "v", true).build();
        Pod job =
                new PodBuilder()
                        .withNewMetadata()
                        .withNamespace("work")
                        .withName("job")
                        .endMetadata()
                        .withNewSpec()
                        .withNodeName("a")
                        .endSpec()
                        .build();
        UpgradeNode v =
                UpgradeNodes.of(
                        node(true, true),
                        List.of(driver, validator, job),
                        "h2",
                        Set.of("work/job"));
        assertThat(v.ready()).isTrue();
        assertThat(v.unschedulable()).isTrue();
        assertThat(v.state()).isEqualTo(UpgradeState.POD_RESTART_REQUIRED);
        assertThat(v.annotation(UpgradeKeys.INITIAL_STATE_UNSCHEDULABLE)).isEqualTo("false");
        assertThat(v.driverPod())
                .contains(
                        new UpgradeNode.DriverPod(
                                "gpu-operator",
                                "driver-a",
                                true,
                                false,
                                3,
                                "580.65.06",
                                Instant.parse("2026-06-01T00:00:05Z")));
        assertThat(v.validator())
                .contains(
                        new UpgradeNode.ValidatorPod(
                                "gpu-operator",
                                "validator-a",
                                true,
                                Instant.parse("2026-06-01T00:01:00Z"),
                                false));
        assertThat(v.pods()).extracting(NodePod::ref).containsExactly("work/job");
        assertThat(v.pods().getFirst().evictionBlocked()).isTrue();
    }

    /**
     * The device plugin's MPS control daemon holds the GPUs open: the upgrade waits for it to leave
     * with the device plugin (its nodeSelector has the plugin's deploy label), and never takes it
     * for a workload.
     */
    @Test
    void theMpsControlDaemonPodIsADriverUserNotAWorkload() {
        Pod driver = operandPod("nvidia-driver-daemonset", "driver-a", "h2", true).build();
        Pod plugin = operandPod("nvidia-device-plugin-daemonset", "plugin-a", "p", true).build();
        Pod daemon =
                operandPod("nvidia-device-plugin-mps-control-daemon", "mps-a", "m", true).build();
        UpgradeNode v =
                UpgradeNodes.of(node(true, false), List.of(driver, plugin, daemon), "h2", Set.of());
        assertThat(v.driverUsers())
                .extracting(UpgradeNode.OperandPod::name)
                .containsExactlyInAnyOrder("plugin-a", "mps-a");
        assertThat(v.pods()).isEmpty();
    }

    @Test
    void anOutdatedOrOrphanDriverPodIsOutOfSyncAndATerminatingOneGivesWayToItsSuccessor() {
        Pod old = operandPod("nvidia-driver-daemonset", "driver-old", "h1", true).build();
        assertThat(UpgradeNodes.of(node(false, false), List.of(old), "h2", Set.of()).driverPod())
                .map(UpgradeNode.DriverPod::inSync)
                .contains(false);
        Pod terminating =
                new PodBuilder(old)
                        .editMetadata()
                        .withDeletionTimestamp("2026-06-01T00:02:00Z")
                        .endMetadata()
                        .build();
        Pod successor = operandPod("nvidia-driver-daemonset", "driver-new", "h2", false).build();
        UpgradeNode v =
                UpgradeNodes.of(
                        node(false, false), List.of(terminating, successor), "h2", Set.of());
        assertThat(v.ready()).isFalse();
        assertThat(v.driverPod()).map(UpgradeNode.DriverPod::name).contains("driver-new");
        assertThat(UpgradeNodes.of(node(true, false), List.of(), "h2", Set.of()).driverPod())
                .isEqualTo(Optional.empty());
    }

    @Test
    void aDriverPodLeftByADeletedDaemonSetOrOfAnotherPoolIsOutdatedAndTakesTheFullPath() {
        String hash = "d1-h2";
        Pod orphan =
                operandPod("nvidia-driver-daemonset", "driver-a", hash, true)
                        .editMetadata()
                        .withOwnerReferences(List.of())
                        .endMetadata()
                        .build();
        UpgradeNode.DriverPod viewed =
                UpgradeNodes.of(
                                node(true, false),
                                List.of(orphan),
                                hash,
                                null,
                                Set.of(),
                                GpuClaims.UNREADABLE)
                        .driverPod()
                        .orElseThrow();
        // the same template hash and digest: a DaemonSet's pod would be in sync
        assertThat(viewed.inSync()).isFalse();
        assertThat(viewed.restartOnly()).isFalse();

        Pod ofPoolA =
                operandPod("nvidia-driver-daemonset", "driver-a", hash, true)
                        .editMetadata()
                        .addToLabels("nvidia.com/gpu.driver-pool", "a-ubuntu22.04-0123abcd")
                        .endMetadata()
                        .build();
        UpgradeNode.DriverPod moving =
                UpgradeNodes.of(
                                node(true, false),
                                List.of(ofPoolA),
                                hash,
                                "b-ubuntu22.04-0123abcd",
                                Set.of(),
                                GpuClaims.UNREADABLE)
                        .driverPod()
                        .orElseThrow();
        assertThat(moving.inSync()).isFalse();
        assertThat(moving.restartOnly()).isFalse();
        assertThat(
                        UpgradeNodes.of(
                                        node(true, false),
                                        List.of(ofPoolA),
                                        hash,
                                        "a-ubuntu22.04-0123abcd",
                                        Set.of(),
                                        GpuClaims.UNREADABLE)
                                .driverPod()
                                .orElseThrow()
                                .inSync())
                .isTrue();
    }
}
