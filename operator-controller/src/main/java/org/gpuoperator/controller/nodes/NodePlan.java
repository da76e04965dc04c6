package org.gpuoperator.controller.nodes;

import java.util.Map;
import org.gpuoperator.controller.operand.Operand;

/**
 * The gate's verdict for one node.
 *
 * @param labelChanges label key → new value, or {@code null} to remove it; empty when nothing is to
 *     be written
 * @param stuckAt the first enabled operand not yet Ready on this GPU node (where the node waits),
 *     or null
 */
public record NodePlan(
        String node,
        boolean gpuNode,
        boolean optedOut,
        Map<String, String> labelChanges,
        Operand stuckAt) {

    public boolean hasChanges() {
        return !labelChanges.isEmpty();
    }
}
