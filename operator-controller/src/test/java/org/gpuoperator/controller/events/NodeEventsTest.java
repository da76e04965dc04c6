package org.gpuoperator.controller.events;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.gpuoperator.controller.nodes.OperandPods;
import org.gpuoperator.controller.nodes.ValidationReport;
import org.gpuoperator.controller.operand.Operand;
import org.gpuoperator.controller.status.NodeSummary;
import org.gpuoperator.controller.upgrade.UpgradeState;
import org.junit.jupiter.api.Test;

/** The messages of the node Events, and which stuck reasons are failures. */
class NodeEventsTest {

    @Test
    void aGateIsPassedWhenItsDeployLabelIsSetToTrue() {
        Map<String, String> changes = new LinkedHashMap<>();
        changes.put(Operand.CONTAINER_TOOLKIT.deployLabel(), "true");
        changes.put(Operand.DRIVER.deployLabel(), "paused-for-driver-upgrade");
        changes.put(Operand.DEVICE_PLUGIN.deployLabel(), null);
        changes.put("nvidia.com/gpu.present", "true");
        assertThat(NodeEvents.gatesPassed(changes))
                .containsExactly(
                        "passed the gate of container-toolkit (every operand before it is done): "
                                + Operand.CONTAINER_TOOLKIT.deployLabel()
                                + "=true");
    }

    private static NodeSummary stuck(String reason) {
        return new NodeSummary(
                "gpu-1",
                false,
                true,
                null,
                Set.of(),
                Set.of(),
                Set.of(),
                false,
                Operand.DEVICE_PLUGIN,
                reason,
                null,
                null);
    }

    @Test
    void anImagePullFailureOrAFailedValidatorCheckFailsTheGateAWaitDoesNot() {
        String pull = "pod gpu-operator/p on node gpu-1 cannot pull image x: ErrImagePull: no";
        Map<Operand, OperandPods.PodState> pods =
                Map.of(Operand.DEVICE_PLUGIN, new OperandPods.PodState(false, "h", pull));
        ValidationReport none = ValidationReport.of(Map.of());
        assertThat(NodeEvents.gateFailure(stuck(pull), pods, none))
                .contains("stuck at the gate of device-plugin: " + pull);

        ValidationReport failed =
                ValidationReport.of(
                        Map.of(
                                ValidationReport.ANNOTATION,
                                "driver=ready toolkit=failed cuda=waiting plugin=waiting",
                                ValidationReport.REASON_ANNOTATION,
                                "toolkit: no runtime"));
        assertThat(
                        NodeEvents.gateFailure(
                                stuck("validator: toolkit: no runtime"), Map.of(), failed))
                .contains("stuck at the gate of device-plugin: validator: toolkit: no runtime");

        ValidationReport waiting =
                ValidationReport.of(
                        Map.of(ValidationReport.ANNOTATION, "driver=ready toolkit=waiting"));
        assertThat(NodeEvents.gateFailure(stuck("validator: toolkit waiting"), Map.of(), waiting))
                .isEmpty();
        assertThat(
                        NodeEvents.gateFailure(
                                stuck(
                                        "the nvidia-device-plugin-daemonset pod on this node is not Ready"),
                                Map.of(),
                                none))
                .isEmpty();
    }

    @Test
    void anUpgradeStepNamesBothStatesAndAFailuresReason() {
        assertThat(NodeEvents.upgradeStep(UpgradeState.UNKNOWN, UpgradeState.UPGRADE_DONE, null))
                .isEqualTo("driver upgrade: (none) -> upgrade-done");
        assertThat(
                        NodeEvents.upgradeStep(
                                UpgradeState.VALIDATION_REQUIRED,
                                UpgradeState.UPGRADE_FAILED,
                                "validation: not Ready in 600s"))
                .isEqualTo(
                        "driver upgrade: validation-required -> upgrade-failed: validation: not"
                                + " Ready in 600s");
    }
}
