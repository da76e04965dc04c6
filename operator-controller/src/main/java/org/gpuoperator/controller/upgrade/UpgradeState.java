package org.gpuoperator.controller.upgrade;

/**
 * The values of the node label {@link UpgradeKeys#STATE_LABEL}, upstream's names exactly. {@link
 * #UNKNOWN} is the absent label.
 */
public enum UpgradeState {
    UNKNOWN(""),
    UPGRADE_REQUIRED("upgrade-required"),
    CORDON_REQUIRED("cordon-required"),
    WAIT_FOR_JOBS_REQUIRED("wait-for-jobs-required"),
    POD_DELETION_REQUIRED("pod-deletion-required"),
    DRAIN_REQUIRED("drain-required"),
    POD_RESTART_REQUIRED("pod-restart-required"),
    VALIDATION_REQUIRED("validation-required"),
    UNCORDON_REQUIRED("uncordon-required"),
    UPGRADE_DONE("upgrade-done"),
    UPGRADE_FAILED("upgrade-failed");

    private final String label;

    UpgradeState(String label) {
        this.label = label;
    }

    /** The label value; empty for {@link #UNKNOWN}. */
    public String label() {
        return label;
    }

    /**
     * Between the start (cordon) and the end (uncordon) of a node's upgrade: the node is ours to
     * move, and it holds one of the {@code maxParallelUpgrades} slots (as a failed node does).
     */
    public boolean active() {
        return switch (this) {
            case CORDON_REQUIRED,
                    WAIT_FOR_JOBS_REQUIRED,
                    POD_DELETION_REQUIRED,
                    DRAIN_REQUIRED,
                    POD_RESTART_REQUIRED,
                    VALIDATION_REQUIRED,
                    UNCORDON_REQUIRED ->
                    true;
            default -> false;
        };
    }

    /** The state a label value names; an absent or unrecognised value is {@link #UNKNOWN}. */
    public static UpgradeState fromLabel(String value) {
        if (value != null) {
            for (UpgradeState s : values()) {
                if (s != UNKNOWN && s.label.equals(value)) {
                    return s;
                }
            }
        }
        return UNKNOWN;
    }
}
