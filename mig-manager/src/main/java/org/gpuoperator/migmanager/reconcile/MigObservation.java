package org.gpuoperator.migmanager.reconcile;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.gpuoperator.node.inventory.MigPartitioner.Layout;

/**
 * One look at the node, everything {@link MigDecision} needs: what is asked, what the GPUs have,
 * and what runs.
 *
 * @param configName the named layout asked for (the label, else the default), or null for none
 * @param desired each GPU's wanted layout, when the config could be planned for this node
 * @param planError why it could not (naming the config, field or GPU), else null
 * @param current each GPU's layout now, read from the GPUs
 * @param labels the node's labels
 * @param annotations the node's annotations
 * @param gpuPods pods on the node that hold GPUs ({@code namespace/name})
 * @param clientPods the GPU clients' pods still on the node ({@code namespace/name})
 * @param allowGpuPods whether a layout may change under running GPU pods
 */
public record MigObservation(
        String configName,
        Map<Integer, Layout> desired,
        String planError,
        Map<Integer, Layout> current,
        Map<String, String> labels,
        Map<String, String> annotations,
        List<String> gpuPods,
        List<String> clientPods,
        boolean allowGpuPods) {

    public MigObservation {
        desired = desired == null ? null : new TreeMap<>(desired);
        current = new TreeMap<>(current);
        labels = Map.copyOf(labels);
        annotations = Map.copyOf(annotations);
        gpuPods = List.copyOf(gpuPods);
        clientPods = List.copyOf(clientPods);
    }
}
