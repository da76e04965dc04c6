package org.gpuoperator.migmanager.reconcile;

import java.util.List;
import java.util.Map;
import org.gpuoperator.node.inventory.MigPartitioner.Layout;

/** The one thing to do next on the node, as {@link MigDecision} chose it. */
public sealed interface MigStep {

    /** Whether the reconcile ends with this step (the others are followed by a fresh look). */
    default boolean last() {
        return false;
    }

    /**
     * Node labels and annotations to write (null removes); empty maps write nothing.
     *
     * @param labels label changes
     * @param annotations annotation changes
     */
    record NodeChanges(Map<String, String> labels, Map<String, String> annotations) {
        public NodeChanges {
            labels = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(labels));
            annotations =
                    java.util.Collections.unmodifiableMap(
                            new java.util.LinkedHashMap<>(annotations));
        }

        public boolean empty() {
            return labels.isEmpty() && annotations.isEmpty();
        }
    }

    /** Nothing to do: the layout is in force and the node says so. */
    record Converged() implements MigStep {
        @Override
        public boolean last() {
            return true;
        }
    }

    /** The layout is in force (or none is asked for): report it, and resume the paused clients. */
    record Finish(NodeChanges changes) implements MigStep {
        @Override
        public boolean last() {
            return true;
        }
    }

    /**
     * The change is refused or failed: state {@code failed} with the reason, and the clients
     * resumed, so the node keeps working in its present layout. Tried again when the label or the
     * GPUs change.
     */
    record Fail(String reason, NodeChanges changes) implements MigStep {
        @Override
        public boolean last() {
            return true;
        }
    }

    /**
     * A GPU needs a reset for the new MIG mode: state {@code rebooting} with the reason, the
     * clients stay paused, and a reboot is asked for. After it the layout is in force and the next
     * look finishes the change.
     */
    record Reboot(String reason, NodeChanges changes) implements MigStep {
        @Override
        public boolean last() {
            return true;
        }
    }

    /** State {@code pending}, and the running clients' deploy labels set to paused. */
    record Pause(NodeChanges changes) implements MigStep {}

    /** The paused clients' pods are still on the node: wait for them to go. */
    record WaitForClients(List<String> pods) implements MigStep {
        public WaitForClients {
            pods = List.copyOf(pods);
        }
    }

    /** Repartition these GPUs (index → layout). */
    record Apply(Map<Integer, Layout> layouts) implements MigStep {
        public Apply {
            layouts = Map.copyOf(layouts);
        }
    }
}
