package org.gpuoperator.controller.upgrade;

/**
 * The step where an upgrade failed: the prefix of {@link UpgradeKeys#FAILURE_REASON}. Each says
 * when its cause is gone (see {@link UpgradeMachine}).
 */
public enum FailureCause {
    /** The GPU pods could not all be evicted in podDeletion.timeoutSeconds, and drain is off. */
    POD_DELETION("pod-deletion"),
    /** The drain did not finish in drain.timeoutSeconds, or a pod may not be drained. */
    DRAIN("drain"),
    /** The new driver pod is not Ready after more than the restart limit. */
    DRIVER_POD("driver-pod"),
    /** The validator is not Ready on the node within the validation timeout. */
    VALIDATION("validation"),
    /** A failed state without a reason of ours (set by hand or by another operator). */
    UNKNOWN("unknown");

    private final String id;

    FailureCause(String id) {
        this.id = id;
    }

    public String id() {
        return id;
    }

    /** The annotation value: {@code <cause>: <message>}. */
    public String reason(String message) {
        return id + ": " + message;
    }

    /** The cause a reason annotation names; {@link #UNKNOWN} when absent or not ours. */
    public static FailureCause ofReason(String reason) {
        if (reason != null) {
            for (FailureCause c : values()) {
                if (reason.startsWith(c.id + ": ")) {
                    return c;
                }
            }
        }
        return UNKNOWN;
    }
}
