package org.gpuoperator.validator.plugin;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/** The GPU resources a node advertises as allocatable. Pure. */
public final class GpuResources {

    private GpuResources() {}

    /**
     * The GPU resources with a count above 0: {@code nvidia.com/gpu} and {@code nvidia.com/mig-*},
     * sorted by name, from the node read as a generic resource ({@link NodeGpus}).
     */
    public static Map<String, Long> allocatable(GenericKubernetesResource node) {
        Map<String, Long> found = new TreeMap<>();
        if (!(node.get("status", "allocatable") instanceof Map<?, ?> allocatable)) {
            return found;
        }
        for (Map.Entry<?, ?> e : allocatable.entrySet()) {
            String name = String.valueOf(e.getKey());
            if (!name.equals("nvidia.com/gpu") && !name.startsWith("nvidia.com/mig-")) {
                continue;
            }
            long count =
                    Quantity.getAmountInBytes(new Quantity(String.valueOf(e.getValue())))
                            .longValue();
            if (count > 0) {
                found.put(name, count);
            }
        }
        return found;
    }

    /** The resource a workload pod requests: nvidia.com/gpu when there, else the first MIG one. */
    public static Optional<String> toRequest(Map<String, Long> allocatable) {
        if (allocatable.containsKey("nvidia.com/gpu")) {
            return Optional.of("nvidia.com/gpu");
        }
        return allocatable.keySet().stream().findFirst();
    }
}
