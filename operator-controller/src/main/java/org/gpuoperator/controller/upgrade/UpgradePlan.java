package org.gpuoperator.controller.upgrade;

import java.util.List;
import java.util.Optional;

/**
 * What one pass of the upgrade machine decided.
 *
 * @param steps per node that changes or acts, sorted by node name
 * @param lines one line per node that is waiting, parked or failed, saying why (for the policy
 *     status), sorted by node name; then the pass-wide lines
 */
public record UpgradePlan(List<NodeStep> steps, UpgradeSummary summary, List<String> lines) {

    /**
     * @param from the state the node was in
     * @param to the state it moves to (equal to {@code from} when it only acts, e.g. evicts)
     */
    public record NodeStep(
            String node, UpgradeState from, UpgradeState to, List<UpgradeAction> actions) {}

    public Optional<NodeStep> step(String node) {
        return steps.stream().filter(s -> s.node().equals(node)).findFirst();
    }
}
