package org.gpuoperator.node.inventory.nvml;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_DOUBLE;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Map;
import org.gpuoperator.node.inventory.GpuMetric;
import org.gpuoperator.node.inventory.nvml.NvmlLibrary.Fn;

/**
 * The profiling metrics through NVML's GPM API (Hopper and later), without DCGM. Each supported GPU
 * owns two GPM samples for its whole life (allocated at open, freed at close: memory stays
 * bounded); each {@link #read} takes a new sample into one and computes the metrics between it and
 * the sample the previous read took (the first read: the one taken at open), so every value is the
 * average over exactly one sampling interval. Thread-safe: one lock per GPU.
 */
final class NvmlGpm implements AutoCloseable {

    private static final int SUCCESS = NvmlReturn.SUCCESS.code();
    private static final double MIB = 1024.0 * 1024.0;

    /**
     * A GPM metric id and the metric it gives; {@code percent}: NVML's percentage becomes DCGM's
     * 0..1 ratio, else NVML's MiB/s becomes bytes/s.
     */
    private record Wanted(int id, GpuMetric metric, boolean percent) {

        double convert(double nvmlValue) {
            return percent ? nvmlValue / 100.0 : nvmlValue * MIB;
        }
    }

    private static final Wanted[] WANTED = {
        new Wanted(NvmlLibrary.GPM_METRIC_GRAPHICS_UTIL, GpuMetric.PROF_GR_ENGINE_ACTIVE, true),
        new Wanted(NvmlLibrary.GPM_METRIC_SM_UTIL, GpuMetric.PROF_SM_ACTIVE, true),
        new Wanted(NvmlLibrary.GPM_METRIC_SM_OCCUPANCY, GpuMetric.PROF_SM_OCCUPANCY, true),
        new Wanted(NvmlLibrary.GPM_METRIC_ANY_TENSOR_UTIL, GpuMetric.PROF_PIPE_TENSOR_ACTIVE, true),
        new Wanted(NvmlLibrary.GPM_METRIC_FP64_UTIL, GpuMetric.PROF_PIPE_FP64_ACTIVE, true),
        new Wanted(NvmlLibrary.GPM_METRIC_FP32_UTIL, GpuMetric.PROF_PIPE_FP32_ACTIVE, true),
        new Wanted(NvmlLibrary.GPM_METRIC_FP16_UTIL, GpuMetric.PROF_PIPE_FP16_ACTIVE, true),
        new Wanted(NvmlLibrary.GPM_METRIC_DRAM_BW_UTIL, GpuMetric.PROF_DRAM_ACTIVE, true),
        new Wanted(NvmlLibrary.GPM_METRIC_PCIE_TX_PER_SEC, GpuMetric.PROF_PCIE_TX_BYTES, false),
        new Wanted(NvmlLibrary.GPM_METRIC_PCIE_RX_PER_SEC, GpuMetric.PROF_PCIE_RX_BYTES, false),
        new Wanted(
                NvmlLibrary.GPM_METRIC_NVLINK_TOTAL_TX_PER_SEC,
                GpuMetric.PROF_NVLINK_TX_BYTES,
                false),
        new Wanted(
                NvmlLibrary.GPM_METRIC_NVLINK_TOTAL_RX_PER_SEC,
                GpuMetric.PROF_NVLINK_RX_BYTES,
                false),
    };

    /** One GPU's two samples; {@code previous} holds the last one taken. */
    private static final class Pair {
        MemorySegment previous;
        MemorySegment next;
        boolean freed;
    }

    private final NvmlLibrary nvml;
    private final MemorySegment[] devices;

    /** Per GPU; null where the GPU has no GPM (or its samples could not be set up). */
    private final Pair[] pairs;

    /**
     * Asks every GPU whether it supports GPM and, for those that do, allocates its two samples and
     * takes the first one.
     */
    NvmlGpm(NvmlLibrary nvml, MemorySegment[] devices) {
        this.nvml = nvml;
        this.devices = devices.clone();
        this.pairs = new Pair[devices.length];
        if (!nvml.has(Fn.nvmlGpmQueryDeviceSupport) || !nvml.has(Fn.nvmlGpmMetricsGet)) {
            return;
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment support = arena.allocate(NvmlLibrary.GPM_SUPPORT);
            MemorySegment handle = arena.allocate(ADDRESS);
            for (int i = 0; i < devices.length; i++) {
                support.fill((byte) 0);
                support.set(JAVA_INT, 0, NvmlLibrary.GPM_SUPPORT_VERSION);
                int rc = nvml.call(Fn.nvmlGpmQueryDeviceSupport, devices[i], support);
                if (rc != SUCCESS
                        || support.get(JAVA_INT, NvmlLibrary.GPM_SUPPORT_SUPPORTED) == 0) {
                    continue;
                }
                Pair p = new Pair();
                if (nvml.call(Fn.nvmlGpmSampleAlloc, handle) != SUCCESS) {
                    continue;
                }
                p.previous = handle.get(ADDRESS, 0);
                if (nvml.call(Fn.nvmlGpmSampleAlloc, handle) != SUCCESS) {
                    nvml.call(Fn.nvmlGpmSampleFree, p.previous);
                    continue;
                }
                p.next = handle.get(ADDRESS, 0);
                if (nvml.call(Fn.nvmlGpmSampleGet, devices[i], p.previous) != SUCCESS) {
                    nvml.call(Fn.nvmlGpmSampleFree, p.previous);
                    nvml.call(Fn.nvmlGpmSampleFree, p.next);
                    continue;
                }
                pairs[i] = p;
            }
        }
    }

    boolean supported(int gpuIndex) {
        return gpuIndex >= 0 && gpuIndex < pairs.length && pairs[gpuIndex] != null;
    }

    /**
     * Takes a new GPM sample of GPU {@code gpuIndex} and puts the metrics since the previous one
     * into {@code out}; a metric NVML could not compute is left out. Nothing for a GPU without GPM.
     *
     * @throws NvmlException when taking the sample fails with an error other than "unavailable"
     *     (e.g. the GPU is lost)
     */
    void read(int gpuIndex, Map<GpuMetric, Double> out, String at) {
        Pair p = supported(gpuIndex) ? pairs[gpuIndex] : null;
        if (p == null) {
            return;
        }
        synchronized (p) {
            if (p.freed) {
                return;
            }
            int rc = nvml.call(Fn.nvmlGpmSampleGet, devices[gpuIndex], p.next);
            if (rc != SUCCESS) {
                if (NvmlReturn.meansUnavailable(rc)) {
                    return;
                }
                throw nvml.exception(Fn.nvmlGpmSampleGet, rc, at);
            }
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment get = arena.allocate(NvmlLibrary.GPM_METRICS_GET);
                get.set(JAVA_INT, 0, NvmlLibrary.GPM_METRICS_GET_VERSION);
                get.set(JAVA_INT, NvmlLibrary.GPM_GET_NUM_METRICS, WANTED.length);
                get.set(ADDRESS, NvmlLibrary.GPM_GET_SAMPLE1, p.previous);
                get.set(ADDRESS, NvmlLibrary.GPM_GET_SAMPLE2, p.next);
                long size = NvmlLibrary.GPM_METRIC.byteSize();
                for (int k = 0; k < WANTED.length; k++) {
                    get.set(
                            JAVA_INT,
                            NvmlLibrary.GPM_GET_METRICS + k * size + NvmlLibrary.GPM_METRIC_ID,
                            WANTED[k].id());
                }
                rc = nvml.call(Fn.nvmlGpmMetricsGet, get);
                // the sample just taken is the start of the next interval, whatever happened
                MemorySegment taken = p.next;
                p.next = p.previous;
                p.previous = taken;
                if (rc != SUCCESS) {
                    if (NvmlReturn.meansUnavailable(rc)) {
                        return;
                    }
                    throw nvml.exception(Fn.nvmlGpmMetricsGet, rc, at);
                }
                for (int k = 0; k < WANTED.length; k++) {
                    long base = NvmlLibrary.GPM_GET_METRICS + k * size;
                    if (get.get(JAVA_INT, base + NvmlLibrary.GPM_METRIC_RETURN) != SUCCESS) {
                        continue;
                    }
                    double v = get.get(JAVA_DOUBLE, base + NvmlLibrary.GPM_METRIC_VALUE);
                    if (Double.isFinite(v)) {
                        out.put(WANTED[k].metric(), WANTED[k].convert(v));
                    }
                }
            }
        }
    }

    /** Frees every sample; must run before nvmlShutdown. Idempotent. */
    @Override
    public void close() {
        for (Pair p : pairs) {
            if (p == null) {
                continue;
            }
            synchronized (p) {
                if (!p.freed) {
                    p.freed = true;
                    nvml.call(Fn.nvmlGpmSampleFree, p.previous);
                    nvml.call(Fn.nvmlGpmSampleFree, p.next);
                }
            }
        }
    }
}
