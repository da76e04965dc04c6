package org.gpuoperator.node.deviceconfig;

import java.util.List;
import java.util.Optional;

/**
 * {@code sharing.timeSlicing} or {@code sharing.mps} of a v1 config file (the two are exclusive and
 * share one shape): each listed resource is advertised {@code replicas} times per device, with IDs
 * {@code <id>::<n>}.
 *
 * @param strategy how the replicas share a GPU ({@link Strategy#NONE} when nothing is shared)
 * @param renameByDefault advertise shared resources as {@code <name>.shared}
 * @param failRequestsGreaterThanOne refuse Allocate requests for more than one replica
 * @param resources the shared resources (empty: no sharing)
 */
public record SharingConfig(
        Strategy strategy,
        boolean renameByDefault,
        boolean failRequestsGreaterThanOne,
        List<SharedResource> resources) {

    public static final SharingConfig NONE =
            new SharingConfig(Strategy.NONE, false, false, List.of());

    /** Upstream's values of the {@code *.sharing-strategy} labels. */
    public enum Strategy {
        NONE("none"),
        TIME_SLICING("time-slicing"),
        MPS("mps");

        private final String value;

        Strategy(String value) {
            this.value = value;
        }

        public String value() {
            return value;
        }
    }

    public SharingConfig {
        resources = List.copyOf(resources);
        if (resources.isEmpty()) {
            strategy = Strategy.NONE;
        }
    }

    /**
     * One shared resource.
     *
     * @param name the resource as planned without sharing, e.g. {@code nvidia.com/gpu}
     * @param replicas how many times each device is advertised (at least 2)
     * @param rename the advertised name when set; otherwise {@code name}, or {@code name.shared}
     *     with renameByDefault
     */
    public record SharedResource(String name, int replicas, String rename) {}

    public boolean mps() {
        return strategy == Strategy.MPS;
    }

    public Optional<SharedResource> find(String resourceName) {
        return resources.stream().filter(r -> r.name().equals(resourceName)).findFirst();
    }

    /** The name under which {@code shared} is advertised. */
    public String advertisedName(SharedResource shared) {
        if (shared.rename() != null) {
            return shared.rename();
        }
        return renameByDefault ? shared.name() + ".shared" : shared.name();
    }
}
