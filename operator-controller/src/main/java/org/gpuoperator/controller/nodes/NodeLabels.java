package org.gpuoperator.controller.nodes;

import java.util.List;
import java.util.Map;

/** Node label keys the controller reads or writes, and the GPU-node test. */
public final class NodeLabels {

    public static final String GPU_PRESENT = "nvidia.com/gpu.present";

    /** Set to {@code false} by an admin: no operand on this node. */
    public static final String DEPLOY_OPERANDS = "nvidia.com/gpu.deploy.operands";

    /**
     * Value of the driver deploy label when a host driver was found (set by the driver agent or an
     * admin).
     */
    public static final String PRE_INSTALLED = "pre-installed";

    /** The value of a deploy label the controller sets: the operand may run on the node. */
    public static final String TRUE = "true";

    /**
     * Value of a deploy label while a driver upgrade keeps the operand off the node (upstream's
     * value): its DaemonSet removes the pod, so nothing holds the old driver while it is replaced
     * and the new pod starts on the new driver.
     */
    public static final String PAUSED_FOR_DRIVER_UPGRADE = "paused-for-driver-upgrade";

    /**
     * Value of a GPU client's deploy label while the MIG manager changes the node's MIG layout
     * (upstream's): the MIG manager's to set and lift, never ours.
     */
    public static final String PAUSED_FOR_MIG_CHANGE = "paused-for-mig-change";

    public static final String NFD_PREFIX = "feature.node.kubernetes.io/";

    /** NFD's PCI vendor 10de (NVIDIA) labels: any device, VGA class, 3D controller class. */
    public static final List<String> NFD_GPU_LABELS =
            List.of(
                    "feature.node.kubernetes.io/pci-10de.present",
                    "feature.node.kubernetes.io/pci-0300_10de.present",
                    "feature.node.kubernetes.io/pci-0302_10de.present");

    private NodeLabels() {}

    /** A GPU node per NFD, or a node marked as a simulated GPU node. */
    public static boolean isGpuNode(Map<String, String> labels, String simulationLabel) {
        for (String key : NFD_GPU_LABELS) {
            if ("true".equals(labels.get(key))) {
                return true;
            }
        }
        return simulationLabel != null && "true".equals(labels.get(simulationLabel));
    }

    public static boolean hasNfdLabels(Map<String, String> labels) {
        for (String key : labels.keySet()) {
            if (key.startsWith(NFD_PREFIX)) {
                return true;
            }
        }
        return false;
    }

    /**
     * Our own value ({@code true}, or paused by our driver upgrade); anything else non-empty
     * belongs to a user or another component and is never overwritten.
     */
    public static boolean isOurs(String value) {
        return "true".equals(value) || PAUSED_FOR_DRIVER_UPGRADE.equals(value);
    }

    public static boolean isForeign(String value) {
        return value != null && !value.isEmpty() && !isOurs(value);
    }
}
