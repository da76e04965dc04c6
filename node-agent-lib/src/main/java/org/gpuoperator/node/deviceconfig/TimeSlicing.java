package org.gpuoperator.node.deviceconfig;

import java.util.List;
import java.util.Optional;

/**
 * {@code sharing.timeSlicing} of a v1 config file: each listed resource is advertised {@code
 * replicas} times per device, with IDs {@code <id>::<n>}.
 *
 * @param renameByDefault advertise shared resources as {@code <name>.shared}
 * @param failRequestsGreaterThanOne refuse Allocate requests for more than one replica
 * @param resources the shared resources (empty: no sharing)
 */
public record TimeSlicing(
        boolean renameByDefault,
        boolean failRequestsGreaterThanOne,
        List<SharedResource> resources) {

    public static final TimeSlicing NONE = new TimeSlicing(false, false, List.of());

    public TimeSlicing {
        resources = List.copyOf(resources);
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
