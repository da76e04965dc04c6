package org.gpuoperator.validator;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.gpuoperator.validator.LayerPlan.FileAction;
import org.gpuoperator.validator.LayerPlan.Step;
import org.gpuoperator.validator.report.CheckResult;
import org.gpuoperator.validator.report.Layer;
import org.junit.jupiter.api.Test;

class LayerPlanTest {

    @Test
    void aManagedLayerWaitsForItsOperandsFileAndNeverTouchesIt() {
        assertThat(LayerPlan.step(Layer.DRIVER, true, true, false))
                .isEqualTo(Step.WAIT_FOR_OPERAND);
        assertThat(LayerPlan.step(Layer.DRIVER, true, true, true)).isEqualTo(Step.CHECK);
        assertThat(LayerPlan.fileAction(Layer.DRIVER, true, CheckResult.ready()))
                .isEqualTo(FileAction.LEAVE);
        assertThat(LayerPlan.fileAction(Layer.DRIVER, true, CheckResult.failed("x")))
                .isEqualTo(FileAction.LEAVE);
    }

    @Test
    void aLayerWithoutItsOperandIsCheckedAndItsFileFollowsTheResult() {
        assertThat(LayerPlan.step(Layer.TOOLKIT, false, true, false)).isEqualTo(Step.CHECK);
        assertThat(LayerPlan.fileAction(Layer.TOOLKIT, false, CheckResult.ready(Map.of())))
                .isEqualTo(FileAction.WRITE);
        assertThat(LayerPlan.fileAction(Layer.TOOLKIT, false, CheckResult.failed("x")))
                .isEqualTo(FileAction.REMOVE);
        assertThat(LayerPlan.fileAction(Layer.TOOLKIT, false, CheckResult.waiting("x")))
                .isEqualTo(FileAction.REMOVE);
    }

    @Test
    void cudaIsAlwaysTheValidatorsOwn() {
        assertThat(LayerPlan.step(Layer.CUDA, true, true, false)).isEqualTo(Step.CHECK);
        assertThat(LayerPlan.fileAction(Layer.CUDA, true, CheckResult.ready()))
                .isEqualTo(FileAction.WRITE);
    }

    @Test
    void pluginWithoutADevicePluginIsDisabledAndWaitsForNobody() {
        assertThat(LayerPlan.step(Layer.PLUGIN, false, false, false)).isEqualTo(Step.DISABLED);
        assertThat(LayerPlan.fileAction(Layer.PLUGIN, false, CheckResult.disabled()))
                .isEqualTo(FileAction.LEAVE);
    }

    @Test
    void aLayerAfterAnUnreadyOneWaitsAndSaysForWhich() {
        assertThat(LayerPlan.step(Layer.CUDA, false, false, false))
                .isEqualTo(Step.WAIT_FOR_PREDECESSOR);
        assertThat(
                        LayerPlan.notChecked(Step.WAIT_FOR_PREDECESSOR, Layer.CUDA, Layer.TOOLKIT)
                                .reason())
                .isEqualTo("waiting for the toolkit layer");
        assertThat(LayerPlan.notChecked(Step.WAIT_FOR_OPERAND, Layer.DRIVER, null).reason())
                .isEqualTo("waiting for driver-ready from driver-agent");
    }
}
