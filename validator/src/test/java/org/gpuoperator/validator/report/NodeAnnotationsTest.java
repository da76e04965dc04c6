package org.gpuoperator.validator.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.gpuoperator.validator.cuda.MockCluster;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class NodeAnnotationsTest {

    final MockCluster cluster = new MockCluster();

    @AfterEach
    void close() {
        cluster.close();
    }

    @Test
    void setsBothAnnotationsPatchesOnlyOnChangeAndRemovesTheReasonWhenAllAreReady() {
        cluster.node(Map.of());
        NodeAnnotations sink =
                new NodeAnnotations(
                        () -> cluster.client, MockCluster.NODE, "nvidia-operator-validator-x");
        NodeReport failing =
                new NodeReport(
                        Map.of(
                                Layer.DRIVER,
                                CheckResult.failed(
                                        "no usable host driver: /dev/nvidiactl missing under /host")));
        assertThat(sink.publish(failing)).isTrue();
        assertThat(sink.publish(failing)).as("same text: no patch").isFalse();
        Map<String, String> a = annotations();
        assertThat(a)
                .containsEntry(
                        "nvidia.com/gpu-operator.validation",
                        "driver=failed toolkit=waiting cuda=waiting plugin=waiting")
                .containsEntry(
                        "nvidia.com/gpu-operator.validation-reason",
                        "driver: no usable host driver: /dev/nvidiactl missing under /host")
                .containsEntry(
                        "nvidia.com/gpu-operator.validation-pod", "nvidia-operator-validator-x");

        NodeReport ready =
                new NodeReport(
                        Map.of(
                                Layer.DRIVER, CheckResult.ready(),
                                Layer.TOOLKIT, CheckResult.ready(),
                                Layer.CUDA, CheckResult.ready(),
                                Layer.PLUGIN, CheckResult.disabled()));
        assertThat(sink.publish(ready)).isTrue();
        assertThat(annotations())
                .containsEntry(
                        "nvidia.com/gpu-operator.validation",
                        "driver=ready toolkit=ready cuda=ready plugin=disabled")
                .doesNotContainKey("nvidia.com/gpu-operator.validation-reason");
    }

    Map<String, String> annotations() {
        return cluster.client
                .nodes()
                .withName(MockCluster.NODE)
                .get()
                .getMetadata()
                .getAnnotations();
    }
}
