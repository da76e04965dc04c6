package org.gpuoperator.controller.nodes;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import org.gpuoperator.controller.operand.Operand;

/**
 * The per-node gate, a pure function: which of our labels a node should carry given its labels and
 * the Ready operand pods on it.
 *
 * <ul>
 *   <li>GPU node (NFD PCI label or simulation marker) → {@code nvidia.com/gpu.present=true};
 *       otherwise our labels come off.
 *   <li>An operand's deploy label is set to {@code true} only when every operand before it is done
 *       on the node: its pod is Ready, it is disabled, or (driver) the node is labelled {@code
 *       pre-installed}.
 *   <li>{@code nvidia.com/gpu.deploy.operands=false} removes all our deploy labels.
 *   <li>A value that is not ours ({@code true}) is never written over nor removed.
 *   <li>{@code paused-for-driver-upgrade} is the driver upgrade's to lift; the gate lifts it only
 *       when no driver is managed here any more (the driver disabled mid-upgrade).
 *   <li>A label already set stays set when a predecessor later becomes unready: pulling it would
 *       evict every operand downstream on a transient restart; the agents' readiness files hold
 *       them back on the node.
 * </ul>
 */
public final class NodeGate {

    private NodeGate() {}

    public static NodePlan plan(NodeView node, Set<Operand> enabled, String simulationLabel) {
        Map<String, String> labels = node.labels();
        Map<String, String> changes = new LinkedHashMap<>();
        boolean gpu = NodeLabels.isGpuNode(labels, simulationLabel);
        if (!gpu) {
            String present = labels.get(NodeLabels.GPU_PRESENT);
            if ("true".equals(present) || "false".equals(present)) {
                changes.put(NodeLabels.GPU_PRESENT, null);
            }
            removeOurDeployLabels(labels, changes);
            return new NodePlan(
                    node.name(), false, false, Collections.unmodifiableMap(changes), null);
        }
        if (!"true".equals(labels.get(NodeLabels.GPU_PRESENT))) {
            changes.put(NodeLabels.GPU_PRESENT, "true");
        }
        if ("false".equals(labels.get(NodeLabels.DEPLOY_OPERANDS))) {
            removeOurDeployLabels(labels, changes);
            return new NodePlan(
                    node.name(), true, true, Collections.unmodifiableMap(changes), null);
        }
        Operand stuckAt = null;
        for (Operand operand : Operand.values()) {
            String current = labels.get(operand.deployLabel());
            if (!enabled.contains(operand)) {
                if (NodeLabels.isOurs(current)) {
                    changes.put(operand.deployLabel(), null);
                }
                continue;
            }
            boolean gateOpen =
                    operand.appliesTo(labels)
                            && operand.predecessors().stream()
                                    .allMatch(p -> done(p, node, enabled));
            boolean orphanedPause =
                    NodeLabels.PAUSED_FOR_DRIVER_UPGRADE.equals(current)
                            && !enabled.contains(Operand.DRIVER);
            if (gateOpen && (current == null || current.isEmpty() || orphanedPause)) {
                changes.put(operand.deployLabel(), "true");
            }
            if (stuckAt == null && !done(operand, node, enabled)) {
                stuckAt = operand;
            }
        }
        return new NodePlan(
                node.name(), true, false, Collections.unmodifiableMap(changes), stuckAt);
    }

    /** The labels the controller removes when its ClusterPolicy is deleted: ours only. */
    public static Map<String, String> cleanup(Map<String, String> labels) {
        Map<String, String> changes = new LinkedHashMap<>();
        if (labels.containsKey(NodeLabels.GPU_PRESENT)) {
            changes.put(NodeLabels.GPU_PRESENT, null);
        }
        removeOurDeployLabels(labels, changes);
        return changes;
    }

    static boolean done(Operand operand, NodeView node, Set<Operand> enabled) {
        if (!enabled.contains(operand)) {
            return true;
        }
        if (!operand.appliesTo(node.labels())
                && !NodeLabels.TRUE.equals(node.labels().get(operand.deployLabel()))) {
            return true; // not for this node (the MIG manager without MIG-capable GPUs)
        }
        if (operand == Operand.DRIVER
                && NodeLabels.PRE_INSTALLED.equals(node.labels().get(operand.deployLabel()))) {
            return true;
        }
        return node.readyOperands().contains(operand);
    }

    private static void removeOurDeployLabels(
            Map<String, String> labels, Map<String, String> changes) {
        for (Operand operand : Operand.values()) {
            if (NodeLabels.isOurs(labels.get(operand.deployLabel()))) {
                changes.put(operand.deployLabel(), null);
            }
        }
    }
}
