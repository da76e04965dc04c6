package org.gpuoperator.controller.nodes;

import java.util.Map;
import java.util.Set;
import org.gpuoperator.controller.operand.Operand;

/** What the gate knows about one node: its labels and which operand pods on it are Ready. */
public record NodeView(String name, Map<String, String> labels, Set<Operand> readyOperands) {
    public NodeView {
        labels = labels == null ? Map.of() : labels;
        readyOperands = readyOperands == null ? Set.of() : readyOperands;
    }
}
