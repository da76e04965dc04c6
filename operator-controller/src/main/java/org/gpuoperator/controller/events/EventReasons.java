package org.gpuoperator.controller.events;

/**
 * The reasons of the Events this controller emits, one word each (kubectl's Reason column). A new
 * step machine (e.g. MIG reconfiguration) adds its own reason here and records each node transition
 * as {@link #DRIVER_UPGRADE} does.
 */
public final class EventReasons {

    /**
     * A node's deploy label for an operand set to {@code true}: every operand before it is done.
     */
    public static final String GATE_PASSED = "GatePassed";

    /** A node held at a gate by a failure (image pull, validator check), on the node and policy. */
    public static final String GATE_FAILED = "GateFailed";

    /** The ClusterPolicy cannot be acted on; nothing deployed changes. */
    public static final String INVALID_SPEC = "InvalidSpec";

    public static final String DAEMONSET_CREATED = "DaemonSetCreated";
    public static final String DAEMONSET_UPDATED = "DaemonSetUpdated";
    public static final String DAEMONSET_DELETED = "DaemonSetDeleted";

    /**
     * An NVIDIADriver claims nodes another also claims (upstream's condition reason), on the
     * NVIDIADriver when the conflict appears or changes.
     */
    public static final String CONFLICTING_NODE_SELECTOR = "ConflictingNodeSelector";

    /**
     * Each driver upgrade state a node moves to (upstream's upgrade library records its state label
     * changes on the node under this reason).
     */
    public static final String DRIVER_UPGRADE = "GPUDriverUpgrade";

    private EventReasons() {}
}
