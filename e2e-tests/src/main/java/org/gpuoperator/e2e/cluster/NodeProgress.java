package org.gpuoperator.e2e.cluster;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Where one node stands in the pipeline {@code driver -> container-toolkit -> device-plugin ->
 * (gpu-feature-discovery, dcgm-exporter)}, read from what an admin sees: the deploy labels and the
 * Ready operand pods. Pure.
 *
 * @param node the node's name
 * @param passed the steps whose operand pod is Ready on the node (or that count as done), in
 *     pipeline order
 * @param next the first step not passed yet, or null when the node is ready
 */
public record NodeProgress(String node, List<String> passed, String next) {

    /** Pipeline steps (deploy label suffixes) and the agent module that runs each. */
    public static final Map<String, String> STEPS;

    static {
        Map<String, String> s = new LinkedHashMap<>();
        s.put("driver", "driver-agent");
        s.put("container-toolkit", "toolkit-agent");
        s.put("device-plugin", "device-plugin");
        s.put("gpu-feature-discovery", "feature-discovery");
        s.put("dcgm-exporter", "dcgm-exporter");
        STEPS = java.util.Collections.unmodifiableMap(s);
    }

    public boolean ready() {
        return next == null;
    }

    /**
     * @param enabled the steps the policy enables
     */
    public static NodeProgress of(Node node, List<Pod> podsOnNode, Set<String> enabled) {
        Map<String, String> labels =
                node.getMetadata().getLabels() == null ? Map.of() : node.getMetadata().getLabels();
        List<String> passed = new ArrayList<>();
        String next = null;
        for (var step : STEPS.entrySet()) {
            String deploy = labels.get("nvidia.com/gpu.deploy." + step.getKey());
            boolean done =
                    !enabled.contains(step.getKey())
                            || "pre-installed".equals(deploy)
                            || ("true".equals(deploy)
                                    && podsOnNode.stream()
                                            .anyMatch(
                                                    p ->
                                                            runs(p, step.getValue())
                                                                    && Pods.isReady(p)));
            if (done) {
                passed.add(step.getKey());
            } else if (next == null) {
                next = step.getKey();
            }
        }
        return new NodeProgress(node.getMetadata().getName(), passed, next);
    }

    private static boolean runs(Pod p, String module) {
        return p.getMetadata().getLabels() != null
                && module.equals(p.getMetadata().getLabels().get("app.kubernetes.io/name"));
    }

    /**
     * One line for a person: {@code gpu-node-1: driver ✓ container-toolkit ✓ device-plugin …
     * waiting}.
     */
    public String describe() {
        StringBuilder sb = new StringBuilder(node).append(':');
        for (String step : STEPS.keySet()) {
            sb.append(' ')
                    .append(step)
                    .append(passed.contains(step) ? " ok" : step.equals(next) ? " waiting" : " -");
        }
        return sb.toString();
    }
}
