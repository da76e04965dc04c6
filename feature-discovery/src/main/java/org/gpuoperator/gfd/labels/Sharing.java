package org.gpuoperator.gfd.labels;

import java.util.Map;
import java.util.Optional;

/**
 * GPU sharing as the device plugin's config file declares it (section {@code sharing}), reduced to
 * what the labels need: which strategy is active, the replicas per resource, and whether shared
 * resources are renamed.
 *
 * @param strategy the active strategy
 * @param renameByDefault shared resources are advertised as {@code <name>.shared}, so products get
 *     no {@code -SHARED} suffix
 * @param replicas replicas by fully qualified resource name ({@code nvidia.com/gpu}, {@code
 *     nvidia.com/mig-1g.5gb})
 */
public record Sharing(Strategy strategy, boolean renameByDefault, Map<String, Integer> replicas) {

    public static final Sharing NONE = new Sharing(Strategy.NONE, false, Map.of());

    public enum Strategy {
        NONE("none"),
        TIME_SLICING("time-slicing"),
        MPS("mps");

        private final String label;

        Strategy(String label) {
            this.label = label;
        }

        /** The value of the {@code *.sharing-strategy} labels. */
        public String label() {
            return label;
        }
    }

    public Sharing {
        replicas = Map.copyOf(replicas);
    }

    /** Replicas configured for {@code resource}, if it is listed. */
    public Optional<Integer> replicasOf(String resource) {
        return Optional.ofNullable(replicas.get(resource));
    }
}
