package org.gpuoperator.node.inventory;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

/**
 * The node's GPUs, from NVML or from a simulation. Every node agent reads GPUs through this
 * interface only, so a simulated node runs exactly the code path of a real one.
 *
 * <p>Implementations are thread-safe. {@link #close()} releases the source (NVML shutdown).
 */
public interface GpuInventory extends AutoCloseable {

    /** Driver and CUDA versions. */
    NodeInfo node();

    /** All GPUs, ordered by index. */
    List<Gpu> gpus();

    /** Connections between GPU pairs (one entry per pair, {@code a < b}); empty when unknown. */
    List<GpuLink> links();

    /** One full sample of one GPU, read in one call. */
    GpuSample sample(int gpuIndex);

    /**
     * Whether this GPU reports the profiling metrics ({@link GpuMetric#isProfiling()}): through
     * NVML's GPM API, Hopper and later. Sources without profiling answer false.
     */
    default boolean profilingSupported(int gpuIndex) {
        return false;
    }

    /**
     * The compute processes on a whole GPU now, with their memory and utilization since the
     * previous call (a time-sliced or MPS-shared GPU runs several pods' processes). Empty when the
     * source cannot tell (no per-process accounting, or the GPU does not support it), which is not
     * the same as an empty list: no process.
     */
    default Optional<List<GpuProcess>> processes(int gpuIndex) {
        return Optional.empty();
    }

    /** Opens a stream of health events (XID errors, lost GPUs, recoveries) from now on. */
    HealthWatch watchHealth();

    /**
     * A short description of the source, for logs: {@code nvml} or {@code simulated:h100-80gb-x8}.
     */
    String describe();

    @Override
    void close();

    /** A pull-based health stream; one consumer thread calls {@link #next}. */
    interface HealthWatch extends AutoCloseable {

        /** Waits up to {@code timeout} for the next event. */
        Optional<HealthEvent> next(Duration timeout) throws InterruptedException;

        @Override
        void close();
    }
}
