package org.gpuoperator.controller.operand;

import java.util.Map;

/**
 * One of several DaemonSets of an operand (the driver of an NVIDIADriver node pool): its own name,
 * labels that also go into its pod template and selector (so that the DaemonSets' selectors do not
 * overlap), a nodeSelector added to the operand's deploy label, and annotations of the DaemonSet.
 */
public record Placement(
        String name,
        Map<String, String> labels,
        Map<String, String> nodeSelector,
        Map<String, String> annotations) {

    public Placement {
        labels = Map.copyOf(labels);
        nodeSelector = Map.copyOf(nodeSelector);
        annotations = Map.copyOf(annotations);
    }
}
