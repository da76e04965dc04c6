package org.gpuoperator.validator;

import org.gpuoperator.validator.report.CheckResult;
import org.gpuoperator.validator.report.CheckState;
import org.gpuoperator.validator.report.Layer;

/**
 * The validator's decisions, without I/O: what to do with a layer this round, and what becomes of
 * its readiness file afterwards.
 */
public final class LayerPlan {

    /** What the validator does with a layer this round. */
    public enum Step {
        /** The plugin layer with no managed device plugin: skipped, not counted for readiness. */
        DISABLED,
        /** An earlier layer is not ready yet. */
        WAIT_FOR_PREDECESSOR,
        /** A managed layer whose operand has not written its readiness file yet. */
        WAIT_FOR_OPERAND,
        CHECK
    }

    /** What becomes of the layer's readiness file after its check. */
    public enum FileAction {
        /** The operand owns the file (managed), or the layer is disabled. */
        LEAVE,
        WRITE,
        REMOVE
    }

    private LayerPlan() {}

    public static Step step(
            Layer layer, boolean managed, boolean predecessorReady, boolean operandFilePresent) {
        if (layer == Layer.PLUGIN && !managed) {
            return Step.DISABLED;
        }
        if (!predecessorReady) {
            return Step.WAIT_FOR_PREDECESSOR;
        }
        if (ownedByOperand(layer, managed) && !operandFilePresent) {
            return Step.WAIT_FOR_OPERAND;
        }
        return Step.CHECK;
    }

    public static FileAction fileAction(Layer layer, boolean managed, CheckResult result) {
        if (ownedByOperand(layer, managed) || result.state() == CheckState.DISABLED) {
            return FileAction.LEAVE;
        }
        return result.isReady() ? FileAction.WRITE : FileAction.REMOVE;
    }

    /**
     * Whether the layer's check runs a workload (a container through CRI, a pod): a pass of these
     * is kept in the rounds while a layer is not ready ({@link ValidatorDaemon}).
     */
    public static boolean runsWorkload(Layer layer) {
        return layer == Layer.TOOLKIT || layer == Layer.CUDA;
    }

    /** The validator writes cuda-ready always, and a layer's file when its operand is disabled. */
    public static boolean ownedByOperand(Layer layer, boolean managed) {
        return managed && layer.operand() != null;
    }

    /** The result reported for a layer that did not run its check this round. */
    public static CheckResult notChecked(Step step, Layer layer, Layer predecessor) {
        return switch (step) {
            case DISABLED -> CheckResult.disabled();
            case WAIT_FOR_PREDECESSOR ->
                    CheckResult.waiting("waiting for the " + predecessor.key() + " layer");
            case WAIT_FOR_OPERAND ->
                    CheckResult.waiting(
                            "waiting for " + layer.readinessFile() + " from " + layer.operand());
            case CHECK -> throw new IllegalArgumentException("a checked layer has its own result");
        };
    }
}
