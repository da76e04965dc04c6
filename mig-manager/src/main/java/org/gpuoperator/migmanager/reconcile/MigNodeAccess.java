package org.gpuoperator.migmanager.reconcile;

import java.util.List;
import java.util.Map;

/** The MIG manager's view of its own Node and the pods on it: the API edge, faked in tests. */
public interface MigNodeAccess {

    /** The node's labels and annotations now, from one read. */
    Meta meta();

    /**
     * @param labels the node's labels
     * @param annotations the node's annotations
     */
    record Meta(Map<String, String> labels, Map<String, String> annotations) {
        public Meta {
            labels = labels == null ? Map.of() : Map.copyOf(labels);
            annotations = annotations == null ? Map.of() : Map.copyOf(annotations);
        }
    }

    /** Writes only these labels and annotations (null removes one); nothing else is touched. */
    void patch(MigStep.NodeChanges changes);

    /**
     * The node's pods, from one read, as far as asked for: those that hold GPUs ({@code
     * gpuHolders}) and the GPU clients' ({@code clients}); a list not asked for is empty.
     */
    Pods pods(boolean gpuHolders, boolean clients);

    /**
     * @param gpuHolders pods that hold GPUs: not finished, with a container that requests an {@code
     *     nvidia.com/} resource ({@code namespace/name}, sorted)
     * @param clients the GPU clients' pods ({@link MigLabels#CLIENTS}), sorted
     */
    record Pods(List<String> gpuHolders, List<String> clients) {
        public static final Pods NONE = new Pods(List.of(), List.of());

        public Pods {
            gpuHolders = List.copyOf(gpuHolders);
            clients = List.copyOf(clients);
        }
    }
}
