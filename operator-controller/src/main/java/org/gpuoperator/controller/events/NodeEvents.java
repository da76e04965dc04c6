package org.gpuoperator.controller.events;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import org.gpuoperator.controller.nodes.NodeLabels;
import org.gpuoperator.controller.nodes.OperandPods;
import org.gpuoperator.controller.nodes.ValidationReport;
import org.gpuoperator.controller.operand.Operand;
import org.gpuoperator.controller.status.NodeSummary;
import org.gpuoperator.controller.upgrade.UpgradeState;

/** The messages of the Events about a node's gates and upgrade steps (pure). */
public final class NodeEvents {

    private NodeEvents() {}

    /**
     * One {@link EventReasons#GATE_PASSED} message per operand whose deploy label the node's patch
     * sets to {@code true}, in pipeline order.
     */
    public static List<String> gatesPassed(Map<String, String> labelChanges) {
        List<String> messages = new ArrayList<>();
        for (Operand o : Operand.values()) {
            if (NodeLabels.TRUE.equals(labelChanges.get(o.deployLabel()))) {
                messages.add(
                        "passed the gate of "
                                + o.id()
                                + " ("
                                + (o.predecessors().isEmpty()
                                        ? "no operand before it"
                                        : "every operand before it is done")
                                + "): "
                                + o.deployLabel()
                                + "=true");
            }
        }
        return messages;
    }

    /**
     * Why the node fails its gate: its stuck reason when that is a failure (an operand image that
     * cannot be pulled, a validator check that failed), not a wait; empty otherwise.
     */
    public static Optional<String> gateFailure(
            NodeSummary node, Map<Operand, OperandPods.PodState> pods, ValidationReport report) {
        if (node.stuckAt() == null || node.stuckReason() == null) {
            return Optional.empty();
        }
        String reason = node.stuckReason();
        boolean pull =
                pods.values().stream()
                        .map(OperandPods.PodState::pullFailure)
                        .filter(Objects::nonNull)
                        .anyMatch(reason::equals);
        boolean validator =
                reason.startsWith("validator: ") && report.steps().containsValue("failed");
        return pull || validator
                ? Optional.of("stuck at the gate of " + node.stuckAt().id() + ": " + reason)
                : Optional.empty();
    }

    /**
     * A driver upgrade step's message: the state label's change, and the failure's reason.
     *
     * @param failureReason the {@code ...-failure-reason} annotation the step writes, or null
     */
    public static String upgradeStep(UpgradeState from, UpgradeState to, String failureReason) {
        String text = "driver upgrade: " + name(from) + " -> " + name(to);
        return failureReason == null ? text : text + ": " + failureReason;
    }

    private static String name(UpgradeState s) {
        return s == UpgradeState.UNKNOWN ? "(none)" : s.label();
    }
}
