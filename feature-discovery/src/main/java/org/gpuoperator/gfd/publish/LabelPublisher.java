package org.gpuoperator.gfd.publish;

import java.util.SortedMap;

/**
 * Where the labels go: the node itself, an NFD NodeFeature object, or an NFD {@code features.d}
 * file.
 */
public interface LabelPublisher {

    /**
     * Makes {@code labels} the complete set of feature discovery's labels at the target; writes
     * nothing when the target already holds exactly that.
     */
    Outcome publish(SortedMap<String, String> labels);

    /** A short description of the target for logs, e.g. {@code node/gpu-node-1}. */
    String target();

    /**
     * What a publish did.
     *
     * @param written whether anything was written
     * @param set labels added or changed
     * @param removed labels removed
     */
    record Outcome(boolean written, int set, int removed) {
        public static final Outcome UNCHANGED = new Outcome(false, 0, 0);
    }
}
