package org.gpuoperator.controller.nodes;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.gpuoperator.controller.nodes.StackReadiness.Condition;
import org.gpuoperator.controller.operand.Operand;
import org.junit.jupiter.api.Test;

class StackReadinessTest {

    private static final ValidationReport NONE = ValidationReport.of(Map.of());

    private record T(String key, String effect) {}

    private static final T OURS = new T("nvidia.com/gpu-not-ready", "NoSchedule");
    private static final T OTHER = new T("nvidia.com/gpu", "NoSchedule");
    private static final T SAME_KEY_OTHER_EFFECT = new T("nvidia.com/gpu-not-ready", "NoExecute");

    private static List<T> taints(List<T> current, boolean optIn, boolean gpu, boolean ready) {
        return StackReadiness.taints(
                current, t -> StackReadiness.ours(t.key(), t.effect()), OURS, optIn, gpu, ready);
    }

    @Test
    void trueWhenTheValidatorPodIsReady() {
        Condition c = StackReadiness.condition(true, null, NONE);
        assertThat(c.status()).isEqualTo("True");
        assertThat(c.reason()).isEqualTo("Validated");
    }

    @Test
    void falseWithTheValidatorsBlockingStepAndReason() {
        ValidationReport report =
                ValidationReport.of(
                        Map.of(
                                ValidationReport.ANNOTATION,
                                "driver=failed toolkit=waiting cuda=waiting plugin=waiting",
                                ValidationReport.REASON_ANNOTATION,
                                "driver: no usable host driver"));
        Condition c = StackReadiness.condition(false, Operand.CONTAINER_TOOLKIT, report);
        assertThat(c)
                .isEqualTo(
                        new Condition(
                                "False", "WaitingForDriver", "driver: no usable host driver"));
    }

    @Test
    void falseWithTheGateStepWhenTheValidatorSaidNothing() {
        Condition c = StackReadiness.condition(false, Operand.DEVICE_PLUGIN, NONE);
        assertThat(c.status()).isEqualTo("False");
        assertThat(c.reason()).isEqualTo("WaitingForDevicePlugin");
        assertThat(c.message()).contains("nvidia-device-plugin-daemonset");
        assertThat(StackReadiness.condition(false, Operand.VALIDATOR, NONE).reason())
                .isEqualTo("WaitingForValidator");
        assertThat(StackReadiness.condition(false, null, NONE).reason())
                .isEqualTo("WaitingForValidator");
    }

    @Test
    void writtenOnlyWhenStatusReasonOrMessageDiffer() {
        Condition c = new Condition("False", "WaitingForDriver", "m");
        assertThat(StackReadiness.needsWrite(c, "False", "WaitingForDriver", "m")).isFalse();
        assertThat(StackReadiness.needsWrite(c, null, null, null)).isTrue();
        assertThat(StackReadiness.needsWrite(c, "True", "WaitingForDriver", "m")).isTrue();
        assertThat(StackReadiness.needsWrite(c, "False", "WaitingForToolkit", "m")).isTrue();
        assertThat(StackReadiness.needsWrite(c, "False", "WaitingForDriver", "other")).isTrue();
    }

    @Test
    void theTaintIsAddedWhileOptedInAndNotReadyKeepingOtherTaints() {
        assertThat(taints(List.of(OTHER), true, true, false)).containsExactly(OTHER, OURS);
        assertThat(taints(List.of(OTHER, OURS), true, true, false)).isNull(); // already there
    }

    @Test
    void theTaintComesOffWhenReadyOptedOutOrNoLongerAGpuNodeAndNothingElseChanges() {
        List<T> tainted = List.of(SAME_KEY_OTHER_EFFECT, OURS, OTHER);
        assertThat(taints(tainted, true, true, true)).containsExactly(SAME_KEY_OTHER_EFFECT, OTHER);
        assertThat(taints(tainted, false, true, false))
                .containsExactly(SAME_KEY_OTHER_EFFECT, OTHER);
        assertThat(taints(tainted, true, false, false))
                .containsExactly(SAME_KEY_OTHER_EFFECT, OTHER);
        assertThat(taints(List.of(OTHER), false, true, false)).isNull();
        assertThat(taints(List.of(SAME_KEY_OTHER_EFFECT), true, true, true)).isNull();
    }
}
