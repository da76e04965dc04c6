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
        return rollbackHint(lastGood, nodes, Map.of());
    }

    /**
     * As above; in NVIDIADriver mode the field to set is the failed node's NVIDIADriver's {@code
     * spec.version}, named per NVIDIADriver.
     *
     * @param nvidiaDriverOfNode node → its NVIDIADriver (empty: the ClusterPolicy's driver)
     */
    public static Optional<String> rollbackHint(
            Map<String, String> lastGood,
            List<UpgradeNode> nodes,
            Map<String, String> nvidiaDriverOfNode) {
        // field to set → version → nodes
        Map<String, Map<String, Set<String>>> byField = new TreeMap<>();
        for (UpgradeNode node : nodes) {
            if (node.state() == UpgradeState.UPGRADE_FAILED && lastGood.containsKey(node.name())) {
                String driver = nvidiaDriverOfNode.get(node.name());
                String field =
                        driver == null
                                ? "spec.driver.version"
                                : "spec.version of NVIDIADriver " + driver;
                byField.computeIfAbsent(field, f -> new TreeMap<>())
                        .computeIfAbsent(lastGood.get(node.name()), v -> new TreeSet<>())
                        .add(node.name());
            }
        }
        if (byField.isEmpty()) {
            return Optional.empty();
        }
        List<String> parts = new java.util.ArrayList<>();
        byField.forEach(
                (field, versions) ->
                        parts.add(
                                "set "
                                        + field
                                        + " to the last good version: "
                                        + nodesByVersion(versions)));
        return Optional.of("to roll back, " + String.join("; and ", parts));
    }

    /** {@code 550.54.15 (a, b); 550.90.07 (c)}. */
    private static String nodesByVersion(Map<String, Set<String>> versions) {
        return versions.entrySet().stream()
                .map(e -> e.getKey() + " (" + String.join(", ", e.getValue()) + ")")
                .collect(Collectors.joining("; "));
    }
}
