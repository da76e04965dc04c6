package org.gpuoperator.controller.status;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.EnumSet;
import java.util.Map;
import org.gpuoperator.controller.nodes.NodePlan;
import org.gpuoperator.controller.operand.Operand;
import org.junit.jupiter.api.Test;

class NodeSummaryStuckReasonTest {

    private static String reason(String deployValue) {
        Map<String, String> labels =
                deployValue == null
                        ? Map.of()
                        : Map.of(Operand.DEVICE_PLUGIN.deployLabel(), deployValue);
        NodePlan plan = new NodePlan("gpu-1", true, false, Map.of(), Operand.DEVICE_PLUGIN);
        return NodeSummary.of(
                        "gpu-1",
                        labels,
                        plan,
                        Map.of(),
                        EnumSet.allOf(Operand.class),
                        Map.of(),
                        null,
                        "single")
                .stuckReason();
    }

    @Test
    void aNodeWhoseOperandIsPausedForADriverUpgradeSaysSo() {
        assertThat(reason("paused-for-driver-upgrade"))
                .isEqualTo(
                        "paused for the driver upgrade"
                                + " (nvidia.com/gpu.deploy.device-plugin=paused-for-driver-upgrade)");
    }

    @Test
    void theOtherReasonsStay() {
        assertThat(reason("true"))
                .isEqualTo("the nvidia-device-plugin-daemonset pod on this node is not Ready");
        assertThat(reason("false")).contains("is set by someone else");
        assertThat(reason(null)).isEqualTo("waiting for the pods before device-plugin to be Ready");
    }
}
