package org.gpuoperator.controller.status;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import org.gpuoperator.controller.nodes.NodePlan;
import org.gpuoperator.controller.nodes.OperandPods;
import org.gpuoperator.controller.operand.Operand;
import org.gpuoperator.controller.operand.PodContract;
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
                        "single",
                        null,
                        null)
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

    /** An operand pod on gpu-1 whose container waits with the kubelet's reason and message. */
    private static Pod pod(Operand o, String name, String image, String reason, String message) {
        return new PodBuilder()
                .withNewMetadata()
                .withNamespace("gpu-operator")
                .withName(name)
                .withLabels(Map.of(PodContract.APP_NAME_LABEL, o.module()))
                .endMetadata()
                .withNewSpec()
                .withNodeName("gpu-1")
                .addNewContainer()
                .withName(o.module())
                .withImage(image)
                .endContainer()
                .endSpec()
                .withNewStatus()
                .addNewContainerStatus()
                .withName(o.module())
                .withImage(image)
                .withNewState()
                .withNewWaiting()
                .withReason(reason)
                .withMessage(message)
                .endWaiting()
                .endState()
                .endContainerStatus()
                .endStatus()
                .build();
    }

    private static String reasonWith(Operand at, String deployValue, Pod... pods) {
        Map<String, String> labels =
                deployValue == null ? Map.of() : Map.of(at.deployLabel(), deployValue);
        NodePlan plan = new NodePlan("gpu-1", true, false, Map.of(), at);
        return NodeSummary.of(
                        "gpu-1",
                        labels,
                        plan,
                        OperandPods.onNode(List.of(pods)),
                        EnumSet.allOf(Operand.class),
                        Map.of(),
                        null,
                        "single",
                        null,
                        null)
                .stuckReason();
    }

    @Test
    void aPodWhoseImageCannotBePulledIsNamedWithItsNodeImageAndTheKubeletsMessage() {
        String image = "ghcr.io/gpu-operator-java/driver-agent:999.1.1";
        Pod driver =
                pod(
                        Operand.DRIVER,
                        "nvidia-driver-daemonset-x7k2p",
                        image,
                        "ImagePullBackOff",
                        "Back-off pulling image \"" + image + "\"");
        assertThat(reasonWith(Operand.DRIVER, "true", driver))
                .isEqualTo(
                        "pod gpu-operator/nvidia-driver-daemonset-x7k2p on node gpu-1 cannot pull"
                                + " image "
                                + image
                                + ": ImagePullBackOff: Back-off pulling image \""
                                + image
                                + "\"");
        // the node waits at the toolkit, held by the driver's pod
        assertThat(
                        reasonWith(
                                Operand.CONTAINER_TOOLKIT,
                                null,
                                pod(
                                        Operand.DRIVER,
                                        "nvidia-driver-daemonset-x7k2p",
                                        image,
                                        "ErrImagePull",
                                        "rpc error: code = NotFound desc = failed to pull and"
                                                + " unpack image")))
                .startsWith(
                        "pod gpu-operator/nvidia-driver-daemonset-x7k2p on node gpu-1 cannot pull"
                                + " image "
                                + image
                                + ": ErrImagePull: rpc error");
    }

    @Test
    void aPodWaitingForAnotherReasonKeepsTheUsualReason() {
        Pod creating =
                pod(
                        Operand.DRIVER,
                        "nvidia-driver-daemonset-x7k2p",
                        "img:1",
                        "ContainerCreating",
                        null);
        assertThat(reasonWith(Operand.DRIVER, "true", creating))
                .isEqualTo("the nvidia-driver-daemonset pod on this node is not Ready");
    }
}
