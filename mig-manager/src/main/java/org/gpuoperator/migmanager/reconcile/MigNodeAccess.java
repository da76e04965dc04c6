package org.gpuoperator.migmanager.reconcile;

import java.util.List;
import java.util.Map;

/** The MIG manager's view of its own Node and the pods on it: the API edge, faked in tests. */
public interface MigNodeAccess {

    /** The node's labels now. */
    Map<String, String> labels();

    /** The node's annotations now. */
    Map<String, String> annotations();

    /** Writes only these labels and annotations (null removes one); nothing else is touched. */
    void patch(MigStep.NodeChanges changes);

    /**
     * Pods on the node that hold GPUs: not finished, with a container that requests an {@code
     * nvidia.com/} resource ({@code namespace/name}, sorted).
     */
    List<String> gpuPods();

    /** The GPU clients' pods on the node ({@link MigLabels#CLIENTS}), sorted. */
    List<String> clientPods();
}
