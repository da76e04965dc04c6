package org.gpuoperator.exporter.metrics;

import java.util.EnumMap;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalDouble;
import java.util.Set;
import org.gpuoperator.exporter.entity.GpuEntity;
import org.gpuoperator.exporter.podresources.Attribution;
import org.gpuoperator.exporter.podresources.ContainerRef;
import org.gpuoperator.exporter.sampling.ProcessUse;
import org.gpuoperator.node.inventory.GpuMetric;
import org.gpuoperator.node.inventory.GpuProcess;

/**
 * Pure: what each container holding a shared GPU uses of it, from the GPU's processes. A process
 * counts for the holder that its pod UID ({@link ProcessUse#podUid()}) and {@link
 * Attribution#holderInPod} name; other processes (not in a pod, in a pod that holds no replica of
 * this GPU, or in a pod with several holders of it) count for the whole GPU only.
 */
final class PerPodUsage {

    /** The metrics a holder has its own value of: the ones NVML accounts per process. */
    static final Set<GpuMetric> METRICS =
            EnumSet.of(
                    GpuMetric.GPU_UTIL,
                    GpuMetric.MEM_COPY_UTIL,
                    GpuMetric.ENC_UTIL,
                    GpuMetric.DEC_UTIL,
                    GpuMetric.FB_USED_MIB);

    private static final double MIB = 1024.0 * 1024.0;

    private PerPodUsage() {}

    /**
     * Whether each holder's own value can be told: every process was located (its cgroup read) and
     * every holder's pod UID is known (from the kubelet's checkpoint). Otherwise a holder's 0 could
     * hide what it really uses, so the GPU's value stays on every holder.
     */
    static boolean applies(GpuEntity entity, Attribution attribution, List<ProcessUse> processes) {
        if (!processes.stream().allMatch(ProcessUse::located)) {
            return false;
        }
        Set<ContainerRef> known = new HashSet<>();
        attribution.pods().values().forEach(known::addAll);
        return known.containsAll(attribution.holdersOf(entity));
    }

    /**
     * For every holder of {@code entity}, in holder order: each {@link #METRICS} value summed over
     * its processes (utilization capped at 100 %, memory in MiB). A holder without a process uses
     * nothing (0); a metric that one of its processes cannot tell is absent for that holder.
     */
    static Map<ContainerRef, Map<GpuMetric, Double>> of(
            GpuEntity entity, Attribution attribution, List<ProcessUse> processes) {
        Map<ContainerRef, Map<GpuMetric, Double>> out = new LinkedHashMap<>();
        for (ContainerRef h : attribution.holdersOf(entity)) {
            Map<GpuMetric, Double> zero = new EnumMap<>(GpuMetric.class);
            METRICS.forEach(m -> zero.put(m, 0.0));
            out.put(h, zero);
        }
        for (ProcessUse use : processes) {
            if (use.podUid().isEmpty()) {
                continue;
            }
            attribution
                    .holderInPod(entity, use.podUid().get())
                    .ifPresent(h -> add(out.get(h), use.process()));
        }
        for (Map<GpuMetric, Double> values : out.values()) {
            values.replaceAll(
                    (m, v) ->
                            m == GpuMetric.FB_USED_MIB
                                    ? (double) Math.round(v / MIB)
                                    : Math.min(v, 100.0));
        }
        return out;
    }

    private static void add(Map<GpuMetric, Double> sums, GpuProcess p) {
        for (GpuMetric m : METRICS) {
            Double sum = sums.get(m);
            OptionalDouble v = value(p, m);
            if (sum == null || v.isEmpty()) {
                sums.remove(m); // unknown for one process: unknown for the holder
            } else {
                sums.put(m, sum + v.getAsDouble());
            }
        }
    }

    /** The process's value of a metric; memory in bytes until the sum is converted. */
    private static OptionalDouble value(GpuProcess p, GpuMetric m) {
        var v =
                switch (m) {
                    case GPU_UTIL -> p.smUtil();
                    case MEM_COPY_UTIL -> p.memUtil();
                    case ENC_UTIL -> p.encUtil();
                    case DEC_UTIL -> p.decUtil();
                    default -> null;
                };
        if (v != null) {
            return v.isPresent() ? OptionalDouble.of(v.getAsInt()) : OptionalDouble.empty();
        }
        return p.usedMemoryBytes().isPresent()
                ? OptionalDouble.of(p.usedMemoryBytes().getAsLong())
                : OptionalDouble.empty();
    }
}
