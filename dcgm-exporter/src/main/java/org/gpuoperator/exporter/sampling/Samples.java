package org.gpuoperator.exporter.sampling;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.gpuoperator.node.inventory.GpuSample;

/**
 * The latest reading of every GPU that could be read, as one immutable value that scrapes share.
 *
 * @param generation increases with every sampling round, so consumers can tell when to rebuild
 * @param byGpuIndex the samples; a GPU that could not be read (e.g. fell off the bus) is absent
 * @param processesByGpuIndex each GPU's processes; a GPU whose source cannot list them is absent
 */
public record Samples(
        long generation,
        Map<Integer, GpuSample> byGpuIndex,
        Map<Integer, List<ProcessUse>> processesByGpuIndex) {

    public static final Samples NONE = new Samples(0, Map.of());

    public Samples {
        byGpuIndex = Map.copyOf(byGpuIndex);
        processesByGpuIndex = Map.copyOf(processesByGpuIndex);
    }

    /** Without processes. */
    public Samples(long generation, Map<Integer, GpuSample> byGpuIndex) {
        this(generation, byGpuIndex, Map.of());
    }

    public Optional<GpuSample> of(int gpuIndex) {
        return Optional.ofNullable(byGpuIndex.get(gpuIndex));
    }
}
