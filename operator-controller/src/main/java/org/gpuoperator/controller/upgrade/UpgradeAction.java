package org.gpuoperator.controller.upgrade;

/**
 * One write the wiring performs for a node, in the order given. The node writes (state label,
 * annotations, cordon) may go in one patch; the state label comes last so that a failed write
 * leaves the node in its state for the next pass.
 */
public sealed interface UpgradeAction {

    /** Set the state label; {@link UpgradeState#UNKNOWN} removes it. */
    record SetState(UpgradeState state) implements UpgradeAction {}

    /** Set a node annotation; a null value removes it. */
    record Annotate(String key, String value) implements UpgradeAction {}

    /** Set a node label; a null value removes it. */
    record SetLabel(String key, String value) implements UpgradeAction {}

    /** {@code spec.unschedulable: true}. */
    record Cordon() implements UpgradeAction {}

    /** {@code spec.unschedulable: false}. */
    record Uncordon() implements UpgradeAction {}

    /**
     * Evict the pod through the Eviction API (which honours PodDisruptionBudgets: a 429 is recorded
     * as {@link NodePod#evictionBlocked} and retried on the next pass).
     */
    record EvictPod(String namespace, String name) implements UpgradeAction {}

    /** Delete the outdated driver pod; the OnDelete DaemonSet recreates it at its revision. */
    record DeleteDriverPod(String namespace, String name) implements UpgradeAction {}

    /**
     * Delete an operand pod, whose DaemonSet recreates it: a validator Ready only from before the
     * new driver started.
     */
    record RestartOperandPod(String namespace, String name) implements UpgradeAction {}
}
