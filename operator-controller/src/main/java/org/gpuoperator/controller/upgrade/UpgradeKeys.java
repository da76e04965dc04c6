package org.gpuoperator.controller.upgrade;

/**
 * Node labels and annotations of the driver upgrade: upstream's keys (k8s-operator-libs with driver
 * name {@code gpu}), plus ours for what upstream keeps in memory (timeouts, the failure reason).
 */
public final class UpgradeKeys {

    /** The node's upgrade state; values in {@link UpgradeState}. */
    public static final String STATE_LABEL = "nvidia.com/gpu-driver-upgrade-state";

    /** {@code true}: the node is never started (it stays in upgrade-required, reported). */
    public static final String SKIP_LABEL = "nvidia.com/gpu-driver-upgrade.skip";

    /** On a pod: {@code true} keeps it off the drain (the operator's own pod carries it). */
    public static final String DRAIN_SKIP_POD_LABEL = "nvidia.com/gpu-driver-upgrade-drain.skip";

    /**
     * {@code true}/{@code false}: whether the node was unschedulable when the upgrade cordoned it;
     * {@code true} keeps it cordoned at the end.
     */
    public static final String INITIAL_STATE_UNSCHEDULABLE =
            "nvidia.com/gpu-driver-upgrade.node-initial-state.unschedulable";

    /** Unix seconds when the wait for the jobs' completion started. */
    public static final String WAIT_FOR_POD_COMPLETION_START =
            "nvidia.com/gpu-driver-upgrade-wait-for-pod-completion-start-time";

    /** Unix seconds when the wait for the validator started. */
    public static final String VALIDATION_START =
            "nvidia.com/gpu-driver-upgrade-validation-start-time";

    /** {@code true}, set by an admin (or for an orphaned driver pod): upgrade this node again. */
    public static final String UPGRADE_REQUESTED = "nvidia.com/gpu-driver-upgrade-requested";

    /** Ours: unix seconds when the GPU pods' eviction started (podDeletion.timeoutSeconds). */
    public static final String POD_DELETION_START =
            "nvidia.com/gpu-driver-upgrade-pod-deletion-start-time";

    /** Ours: unix seconds when the drain started (drain.timeoutSeconds). */
    public static final String DRAIN_START = "nvidia.com/gpu-driver-upgrade-drain-start-time";

    /**
     * Ours: {@code true} while the node's upgrade only replaces the driver pod (its configuration
     * digest unchanged): no eviction, no drain, the operands not paused.
     */
    public static final String RESTART_ONLY = "nvidia.com/gpu-driver-upgrade-restart-only";

    /** Ours: why the node is upgrade-failed, {@code <cause>: <message>} ({@link FailureCause}). */
    public static final String FAILURE_REASON = "nvidia.com/gpu-driver-upgrade-failure-reason";

    /** GPU resources whose pods are evicted before the driver restarts (prefixes). */
    public static final String GPU_RESOURCE_PREFIX = "nvidia.com/gpu";

    public static final String MIG_RESOURCE_PREFIX = "nvidia.com/mig-";

    private UpgradeKeys() {}
}
