package org.gpuoperator.e2e.bench;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.gpuoperator.e2e.cluster.NodeProgress;

/**
 * When each node's gate labels turned true and when each step's pod turned Ready, and the split of
 * a node's time to ready between the controller (predecessor Ready → next label set) and the agents
 * (label set → pod Ready: pod placement, process start, the agent's own work). Thread-safe
 * recording; pure arithmetic.
 */
final class ConvergenceTimeline {

    private final long appliedAtMillis;
    private final Map<String, Map<String, Long>> labelledAt = new ConcurrentHashMap<>();
    private final Map<String, Map<String, Long>> readyAt = new ConcurrentHashMap<>();

    ConvergenceTimeline(long appliedAtMillis) {
        this.appliedAtMillis = appliedAtMillis;
    }

    void labelled(String node, String step, long at) {
        labelledAt.computeIfAbsent(node, k -> new ConcurrentHashMap<>()).putIfAbsent(step, at);
    }

    void ready(String node, String step, long at) {
        readyAt.computeIfAbsent(node, k -> new ConcurrentHashMap<>()).putIfAbsent(step, at);
    }

    /** One node's split, in milliseconds from the policy's creation. */
    record NodeSplit(String node, long totalMs, long controllerMs, long agentsMs) {}

    /** The split of {@code node}, or null while a step is still missing. */
    NodeSplit split(String node) {
        Map<String, Long> l = labelledAt.getOrDefault(node, Map.of());
        Map<String, Long> r = readyAt.getOrDefault(node, Map.of());
        List<String> steps = new ArrayList<>(NodeProgress.STEPS.keySet());
        for (String s : steps) {
            if (!l.containsKey(s) || !r.containsKey(s)) {
                return null;
            }
        }
        // The chain driver -> toolkit -> device-plugin, then the later of the two parallel leaves.
        String leaf =
                r.get("gpu-feature-discovery") >= r.get("dcgm-exporter")
                        ? "gpu-feature-discovery"
                        : "dcgm-exporter";
        List<String> path = List.of("driver", "container-toolkit", "device-plugin", leaf);
        long controller = 0;
        long agents = 0;
        long previousReady = appliedAtMillis;
        for (String s : path) {
            controller += Math.max(0, l.get(s) - previousReady);
            agents += Math.max(0, r.get(s) - l.get(s));
            previousReady = r.get(s);
        }
        return new NodeSplit(node, r.get(leaf) - appliedAtMillis, controller, agents);
    }

    /**
     * Each step of {@code node} as {@code step label+X ready+Y} (seconds from the policy's
     * creation), in gate order; a step not yet labelled or Ready shows {@code -}.
     */
    String steps(String node) {
        Map<String, Long> l = labelledAt.getOrDefault(node, Map.of());
        Map<String, Long> r = readyAt.getOrDefault(node, Map.of());
        StringBuilder out = new StringBuilder(node);
        for (String s : NodeProgress.STEPS.keySet()) {
            out.append("  ")
                    .append(s)
                    .append(" label+")
                    .append(secondsSinceApplied(l.get(s)))
                    .append(" ready+")
                    .append(secondsSinceApplied(r.get(s)));
        }
        return out.toString();
    }

    private String secondsSinceApplied(Long at) {
        return at == null ? "-" : String.format("%.1f", (at - appliedAtMillis) / 1000.0);
    }

    Map<String, NodeSplit> splits(List<String> nodes) {
        Map<String, NodeSplit> out = new LinkedHashMap<>();
        for (String n : nodes) {
            NodeSplit s = split(n);
            if (s != null) {
                out.put(n, s);
            }
        }
        return out;
    }
}
