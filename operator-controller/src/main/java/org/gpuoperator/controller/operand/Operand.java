package org.gpuoperator.controller.operand;

import java.util.List;

/**
 * The operands, in pipeline order. Each owns one DaemonSet selected by its deploy label; names are
 * upstream's so that existing dashboards, scripts and runbooks keep working.
 */
public enum Operand {
    DRIVER("driver", "driver", "nvidia-driver-daemonset", "driver-agent", "nvidia-driver"),
    CONTAINER_TOOLKIT(
            "container-toolkit",
            "toolkit",
            "nvidia-container-toolkit-daemonset",
            "toolkit-agent",
            "nvidia-container-toolkit"),
    DEVICE_PLUGIN(
            "device-plugin",
            "devicePlugin",
            "nvidia-device-plugin-daemonset",
            "device-plugin",
            "nvidia-device-plugin"),
    GPU_FEATURE_DISCOVERY(
            "gpu-feature-discovery",
            "gfd",
            "gpu-feature-discovery",
            "feature-discovery",
            "nvidia-gpu-feature-discovery"),
    DCGM_EXPORTER(
            "dcgm-exporter",
            "dcgmExporter",
            "nvidia-dcgm-exporter",
            "dcgm-exporter",
            "nvidia-dcgm-exporter"),
    /**
     * Applies the MIG layout its node's {@code nvidia.com/mig.config} label names; only on nodes
     * whose GPUs can do MIG ({@link #appliesTo}).
     */
    MIG_MANAGER(
            "mig-manager", "migManager", "nvidia-mig-manager", "mig-manager", "nvidia-mig-manager"),
    /**
     * Validates each layer on the node and writes the readiness file of a layer whose operand is
     * disabled. Always enabled, as upstream; it waits for nothing before it is scheduled: its own
     * checks wait on the node.
     */
    VALIDATOR(
            "operator-validator",
            "validator",
            "nvidia-operator-validator",
            "validator",
            "nvidia-operator-validator");

    public static final String DEPLOY_LABEL_PREFIX = "nvidia.com/gpu.deploy.";

    private final String id;
    private final String specSection;
    private final String daemonSetName;
    private final String module;
    private final String serviceAccountName;

    Operand(
            String id,
            String specSection,
            String daemonSetName,
            String module,
            String serviceAccountName) {
        this.id = id;
        this.specSection = specSection;
        this.daemonSetName = daemonSetName;
        this.module = module;
        this.serviceAccountName = serviceAccountName;
    }

    /** Short name used in the deploy label and in status messages. */
    public String id() {
        return id;
    }

    /** The JSON name of this operand's section in ClusterPolicy.spec. */
    public String specSection() {
        return specSection;
    }

    public String daemonSetName() {
        return daemonSetName;
    }

    /**
     * The Maven module / image whose jar runs in the pod; also the pod label {@code
     * app.kubernetes.io/name}.
     */
    public String module() {
        return module;
    }

    public String serviceAccountName() {
        return serviceAccountName;
    }

    /**
     * The value of {@code app.kubernetes.io/component} on the operand's objects and pods:
     * upstream's {@code nvidia-driver} for the driver (upstream's driver validation and users'
     * scripts select driver pods by it), the operand's id for the others (upstream sets none on
     * them).
     */
    public String component() {
        return this == DRIVER ? "nvidia-driver" : id;
    }

    /**
     * Upstream's {@code app.kubernetes.io/part-of} of the operand's DaemonSet and pods ({@code
     * nvidia-gpu} on feature discovery, {@code gpu-operator} on the validator), or null where
     * upstream sets none.
     */
    public String partOf() {
        return switch (this) {
            case GPU_FEATURE_DISCOVERY -> "nvidia-gpu";
            case VALIDATOR -> "gpu-operator";
            default -> null;
        };
    }

    /** {@code nvidia.com/gpu.deploy.<id>}: the DaemonSet's nodeSelector and the per-node gate. */
    public String deployLabel() {
        return DEPLOY_LABEL_PREFIX + id;
    }

    /**
     * The operands that must be Ready on a node before this one may be scheduled there. Feature
     * discovery and the exporter both follow the device plugin and do not wait for each other.
     */
    public List<Operand> predecessors() {
        return switch (this) {
            case DRIVER, VALIDATOR -> List.of();
            case CONTAINER_TOOLKIT -> List.of(DRIVER);
            case MIG_MANAGER -> List.of(DRIVER, CONTAINER_TOOLKIT);
            case DEVICE_PLUGIN -> List.of(DRIVER, CONTAINER_TOOLKIT);
            case GPU_FEATURE_DISCOVERY, DCGM_EXPORTER ->
                    List.of(DRIVER, CONTAINER_TOOLKIT, DEVICE_PLUGIN);
        };
    }

    /** Feature discovery's label of a node whose GPUs can do MIG (upstream's). */
    public static final String MIG_CAPABLE_LABEL = "nvidia.com/mig.capable";

    /**
     * Whether the operand belongs on a node with these labels: the MIG manager only where feature
     * discovery found MIG-capable GPUs (as upstream), every other operand on every GPU node.
     */
    public boolean appliesTo(java.util.Map<String, String> nodeLabels) {
        return this != MIG_MANAGER || "true".equals(nodeLabels.get(MIG_CAPABLE_LABEL));
    }

    public static Operand byModule(String module) {
        for (Operand o : values()) {
            if (o.module.equals(module)) {
                return o;
            }
        }
        return null;
    }
}
