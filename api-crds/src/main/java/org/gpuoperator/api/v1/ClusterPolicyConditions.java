package org.gpuoperator.api.v1;

/**
 * Condition types and reasons of {@link ClusterPolicyStatus#getConditions()}, as upstream: {@code
 * Ready} and {@code Error} are maintained together and never both True.
 */
public final class ClusterPolicyConditions {
    public static final String TYPE_READY = "Ready";
    public static final String TYPE_ERROR = "Error";

    /** Every enabled operand is ready. */
    public static final String REASON_RECONCILED = "Reconciled";

    /** The reconcile failed with an error. */
    public static final String REASON_RECONCILE_FAILED = "ReconcileFailed";

    /** Node Feature Discovery labels are missing, so GPU nodes cannot be found. */
    public static final String REASON_NFD_LABELS_MISSING = "NFDLabelsMissing";

    /** No GPU node (detected or simulated) is in the cluster. */
    public static final String REASON_NO_GPU_NODES = "NoGPUNodes";

    /** An operand is not ready on some node. */
    public static final String REASON_OPERAND_NOT_READY = "OperandNotReady";

    /** The driver is not ready on some node. */
    public static final String REASON_DRIVER_NOT_READY = "DriverNotReady";

    /** The node status exporter is not ready. */
    public static final String REASON_NODE_STATUS_EXPORTER_NOT_READY = "NodeStatusExporterNotReady";

    /** Something the policy needs is missing from the cluster. */
    public static final String REASON_PREREQUISITE_NOT_MET = "PrerequisiteNotMet";

    /** The spec has errors (this project's addition); the message lists them with their paths. */
    public static final String REASON_INVALID_SPEC = "InvalidSpec";

    private ClusterPolicyConditions() {}
}
