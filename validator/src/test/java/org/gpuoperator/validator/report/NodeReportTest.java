package org.gpuoperator.validator.report;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.util.LinkedHashMap;
import java.util.Map;
import org.gpuoperator.node.labels.AgentKubeClient;
import org.junit.jupiter.api.Test;

class NodeReportTest {

    /** The validator's client's serialization. */
    private static final KubernetesSerialization JSON = AgentKubeClient.serialization();

    @Test
    void theAnnotationListsEveryLayerInOrderWithItsState() {
        NodeReport r =
                new NodeReport(
                        Map.of(
                                Layer.DRIVER, CheckResult.ready(),
                                Layer.TOOLKIT, CheckResult.failed("no handler"),
                                Layer.PLUGIN, CheckResult.disabled()));
        assertThat(r.annotation())
                .isEqualTo("driver=ready toolkit=failed cuda=waiting plugin=disabled");
    }

    @Test
    void theReasonIsTheFirstFailingOrWaitingLayerAndWhy() {
        NodeReport r =
                new NodeReport(
                        Map.of(
                                Layer.DRIVER,
                                CheckResult.failed(
                                        "no usable host driver: /dev/nvidiactl missing under /host"),
                                Layer.TOOLKIT,
                                CheckResult.waiting("waiting for the driver layer")));
        assertThat(r.reason())
                .contains("driver: no usable host driver: /dev/nvidiactl missing under /host");
        assertThat(r.ready()).isFalse();
    }

    @Test
    void allReadyWithPluginDisabledIsReadyWithoutAReasonAndPluginMetricZero() {
        NodeReport r =
                new NodeReport(
                        Map.of(
                                Layer.DRIVER, CheckResult.ready(),
                                Layer.TOOLKIT, CheckResult.ready(),
                                Layer.CUDA, CheckResult.ready(),
                                Layer.PLUGIN, CheckResult.disabled()));
        assertThat(r.ready()).isTrue();
        assertThat(r.reason()).isEmpty();
        assertThat(r.metrics())
                .contains("# TYPE gpu_operator_node_driver_ready gauge\n")
                .contains("\ngpu_operator_node_driver_ready 1\n")
                .contains("\ngpu_operator_node_toolkit_ready 1\n")
                .contains("\ngpu_operator_node_cuda_ready 1\n")
                .contains("\ngpu_operator_node_plugin_ready 0\n");
    }

    @Test
    void theJsonPatchAddsChangedValuesRemovesAStaleReasonAndIsEmptyWhenNothingChanged() {
        Map<String, String> wanted = new LinkedHashMap<>();
        wanted.put(NodeReport.ANNOTATION, "driver=ready toolkit=ready cuda=ready plugin=ready");
        wanted.put(NodeReport.REASON_ANNOTATION, null);
        assertThat(
                        NodeAnnotations.jsonPatch(
                                JSON,
                                Map.of(NodeReport.REASON_ANNOTATION, "cuda: x", "other", "y"),
                                wanted))
                .isEqualTo(
                        "[{\"op\":\"add\",\"path\":\"/metadata/annotations/nvidia.com~1gpu-operator.validation\","
                                + "\"value\":\"driver=ready toolkit=ready cuda=ready plugin=ready\"},"
                                + "{\"op\":\"remove\",\"path\":\"/metadata/annotations/nvidia.com~1gpu-operator.validation-reason\"}]");
        assertThat(
                        NodeAnnotations.jsonPatch(
                                JSON,
                                Map.of(
                                        NodeReport.ANNOTATION,
                                        "driver=ready toolkit=ready cuda=ready plugin=ready"),
                                wanted))
                .isEqualTo("[]");
        assertThat(
                        NodeAnnotations.jsonPatch(
                                JSON,
                                null,
                                Map.of(NodeReport.REASON_ANNOTATION, "cuda: said \"no\"\n")))
                .startsWith("[{\"op\":\"add\",\"path\":\"/metadata/annotations\",\"value\":{}},")
                .contains("\"value\":\"cuda: said \\\"no\\\"\\n\"");
    }
}
