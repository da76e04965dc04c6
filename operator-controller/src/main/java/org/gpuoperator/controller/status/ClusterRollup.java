package org.gpuoperator.controller.status;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.gpuoperator.controller.operand.Operand;

/**
 * The status figures summed over all nodes, updated one node at a time: replacing a node's summary
 * costs O(log nodes), so a node event never makes the controller walk the whole cluster. No I/O;
 * not thread-safe (the reconciler owns it).
 */
public final class ClusterRollup {

    private final Map<String, NodeSummary> byName = new HashMap<>();
    private int nfdNodes;
    private int gpuNodes;
    private int readyNodes;
    private final Map<Operand, int[]> counts =
            new EnumMap<>(Operand.class); // desired, ready pods, updated pods
    private final Map<String, Integer> driverVersions = new TreeMap<>();
    private final TreeMap<String, NodeSummary> stuck = new TreeMap<>();
    private final Map<Operand, Integer> waitingAt = new EnumMap<>(Operand.class);
    private final TreeMap<String, List<String>> disagreements = new TreeMap<>();
    private final Map<String, Integer> pluginConfigs = new TreeMap<>();
    private final TreeMap<String, String> pluginConfigErrors = new TreeMap<>();

    public ClusterRollup() {
        for (Operand op : Operand.values()) {
            counts.put(op, new int[3]);
        }
    }

    public static ClusterRollup of(Iterable<NodeSummary> nodes) {
        ClusterRollup rollup = new ClusterRollup();
        nodes.forEach(rollup::put);
        return rollup;
    }

    /** Adds or replaces the summary of one node. */
    public void put(NodeSummary node) {
        remove(node.name());
        byName.put(node.name(), node);
        count(node, 1);
    }

    /** Forgets a node that is gone. */
    public void remove(String name) {
        NodeSummary old = byName.remove(name);
        if (old != null) {
            count(old, -1);
        }
    }

    private void count(NodeSummary node, int sign) {
        if (node.nfdLabels()) {
            nfdNodes += sign;
        }
        if (!node.gpuNode()) {
            return;
        }
        gpuNodes += sign;
        if (node.driverVersion() != null) {
            driverVersions.merge(node.driverVersion(), sign, (a, b) -> a + b == 0 ? null : a + b);
        }
        String applied = node.pluginConfig().applied();
        if (applied != null) {
            pluginConfigs.merge(applied, sign, (a, b) -> a + b == 0 ? null : a + b);
        }
        if (node.pluginConfig().error() != null) {
            if (sign > 0) {
                pluginConfigErrors.put(node.name(), node.pluginConfig().error());
            } else {
                pluginConfigErrors.remove(node.name());
            }
        }
        node.desired().forEach(op -> counts.get(op)[0] += sign);
        node.readyPods().forEach(op -> counts.get(op)[1] += sign);
        node.updatedPods().forEach(op -> counts.get(op)[2] += sign);
        if (node.ready()) {
            readyNodes += sign;
        }
        if (!node.disagreements().isEmpty()) {
            if (sign > 0) {
                disagreements.put(node.name(), node.disagreements());
            } else {
                disagreements.remove(node.name());
            }
        }
        if (node.stuckAt() != null) {
            if (sign > 0) {
                stuck.put(node.name(), node);
            } else {
                stuck.remove(node.name());
            }
            waitingAt.merge(node.stuckAt(), sign, (a, b) -> a + b == 0 ? null : a + b);
        }
    }

    /** GPU nodes per gate they wait at; every operand is a key (0 where none waits). */
    public Map<Operand, Integer> waitingAt() {
        Map<Operand, Integer> out = new EnumMap<>(Operand.class);
        for (Operand op : Operand.values()) {
            out.put(op, waitingAt.getOrDefault(op, 0));
        }
        return out;
    }

    public Set<String> nodeNames() {
        return byName.keySet();
    }

    public boolean clusterHasNfd() {
        return nfdNodes > 0;
    }

    public int gpuNodes() {
        return gpuNodes;
    }

    public int readyNodes() {
        return readyNodes;
    }

    public int desired(Operand op) {
        return counts.get(op)[0];
    }

    public int readyPods(Operand op) {
        return counts.get(op)[1];
    }

    public int updatedPods(Operand op) {
        return counts.get(op)[2];
    }

    /** Nodes per driver version, sorted by version. */
    public Map<String, Integer> driverVersions() {
        return new TreeMap<>(driverVersions);
    }

    /**
     * Where feature discovery and the device plugin disagree, node by node in name order; at most
     * {@code max} lines.
     */
    public List<String> disagreements(int max) {
        return disagreements.values().stream().flatMap(List::stream).limit(max).toList();
    }

    /** GPU nodes per device-plugin config in force, sorted by config name. */
    public Map<String, Integer> pluginConfigs() {
        return new TreeMap<>(pluginConfigs);
    }

    /** {@code <node>: <error>} per node whose device plugin refused its config, by node name. */
    public List<String> pluginConfigErrors(int max) {
        return pluginConfigErrors.entrySet().stream()
                .limit(max)
                .map(e -> e.getKey() + ": " + e.getValue())
                .toList();
    }

    public int stuckTotal() {
        return stuck.size();
    }

    /** The first {@code max} stuck nodes by name: a stable list, so the status does not churn. */
    public List<NodeSummary> firstStuck(int max) {
        List<NodeSummary> first = new ArrayList<>(Math.min(max, stuck.size()));
        for (NodeSummary node : stuck.values()) {
            if (first.size() == max) {
                break;
            }
            first.add(node);
        }
        return first;
    }
}
