package org.gpuoperator.controller.upgrade;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * The last driver version that ran well on each node, kept in the status so that a failed rollout
 * can be reversed in one edit: setting that version back is an upgrade like any other.
 */
public final class LastGoodVersions {

    private LastGoodVersions() {}

    /**
     * The new map: a node done (or never upgraded) whose current driver pod is Ready records its
     * version; the others keep theirs; nodes that are gone drop out.
     */
    public static Map<String, String> update(
            Map<String, String> previous, List<UpgradeNode> nodes) {
        Map<String, String> next = new TreeMap<>();
        for (UpgradeNode node : nodes) {
            UpgradeState s = node.state();
            String version = node.driverPod().map(UpgradeNode.DriverPod::version).orElse(null);
            if ((s == UpgradeState.UPGRADE_DONE || s == UpgradeState.UNKNOWN)
                    && !node.needsUpgrade()
                    && node.driverCurrentAndReady()
                    && version != null) {
                next.put(node.name(), version);
            } else if (previous.containsKey(node.name())) {
                next.put(node.name(), previous.get(node.name()));
            }
        }
        return next;
    }

    /**
     * A status line for failed nodes: the version to set back. Empty when no node failed or none of
     * them has a last good version.
     */
    public static Optional<String> rollbackHint(
            Map<String, String> lastGood, List<UpgradeNode> nodes) {
        Map<String, Set<String>> byVersion = new TreeMap<>();
        for (UpgradeNode node : nodes) {
            if (node.state() == UpgradeState.UPGRADE_FAILED && lastGood.containsKey(node.name())) {
                byVersion
                        .computeIfAbsent(lastGood.get(node.name()), v -> new TreeSet<>())
                        .add(node.name());
            }
        }
        if (byVersion.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of(
                "to roll back, set spec.driver.version to the last good version: "
                        + byVersion.entrySet().stream()
                                .map(e -> e.getKey() + " (" + String.join(", ", e.getValue()) + ")")
                                .collect(Collectors.joining("; ")));
    }
}
