package org.gpuoperator.exporter.sampling;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.gpuoperator.node.agent.EventLog;
import org.gpuoperator.node.host.ContainerCgroup;
import org.gpuoperator.node.inventory.Gpu;
import org.gpuoperator.node.inventory.GpuInventory;
import org.gpuoperator.node.inventory.GpuProcess;
import org.gpuoperator.node.inventory.GpuSample;

/**
 * Reads every GPU once per collect interval through {@link GpuInventory#sample} and publishes the
 * result as one {@link Samples} value. Scrapes read {@link #latest()} only, so a scrape never
 * touches NVML and many scrapers cost the GPUs nothing.
 */
public final class GpuSampler implements AutoCloseable {

    private final GpuInventory inventory;
    private final EventLog log;
    private final Path hostProc;
    private final Set<Integer> failing = new HashSet<>();
    private final Set<Integer> withoutProcesses = new HashSet<>();
    private volatile Samples latest = Samples.NONE;
    private volatile Runnable afterEachRound = () -> {};
    private ScheduledExecutorService scheduler;
    private long generation;

    public GpuSampler(GpuInventory inventory, EventLog log) {
        this(inventory, log, null);
    }

    /**
     * @param hostProc the node's {@code /proc}, where each GPU process's cgroup says its pod (read
     *     once per process and round); null: processes are not located
     */
    public GpuSampler(GpuInventory inventory, EventLog log, Path hostProc) {
        this.inventory = inventory;
        this.log = log;
        this.hostProc = hostProc;
    }

    /** Takes the first sample now, then one every {@code interval} on a daemon thread. */
    public GpuSampler start(Duration interval) {
        sampleOnce();
        scheduler =
                Executors.newSingleThreadScheduledExecutor(
                        r -> {
                            Thread t = new Thread(r, "gpu-sampler");
                            t.setDaemon(true);
                            return t;
                        });
        long ms = interval.toMillis();
        scheduler.scheduleAtFixedRate(this::sampleSafely, ms, ms, TimeUnit.MILLISECONDS);
        return this;
    }

    /**
     * {@code task} runs on the sampling thread after each scheduled round (e.g. to prepare the next
     * scrape's answer), not after {@link #sampleOnce()} called directly.
     */
    public GpuSampler afterEachRound(Runnable task) {
        this.afterEachRound = task;
        return this;
    }

    public Samples latest() {
        return latest;
    }

    /** One sampling round; a GPU that fails is left out and logged once until it reads again. */
    public synchronized Samples sampleOnce() {
        Map<Integer, GpuSample> out = new HashMap<>();
        Map<Integer, List<ProcessUse>> processes = new HashMap<>();
        for (Gpu gpu : inventory.gpus()) {
            try {
                out.put(gpu.index(), inventory.sample(gpu.index()));
                readProcesses(gpu).ifPresent(ps -> processes.put(gpu.index(), ps));
                if (failing.remove(gpu.index())) {
                    log.info("gpu-readable-again", "gpu", gpu.index(), "uuid", gpu.uuid());
                }
            } catch (RuntimeException e) {
                if (failing.add(gpu.index())) {
                    log.warn(
                            "gpu-unreadable",
                            "gpu",
                            gpu.index(),
                            "uuid",
                            gpu.uuid(),
                            "error",
                            e.getMessage());
                }
            }
        }
        latest = new Samples(++generation, out, processes);
        return latest;
    }

    /**
     * The GPU's processes with their pods; empty (logged once until they read again) when the
     * source cannot list them: then the GPU has no per-pod usage.
     */
    private Optional<List<ProcessUse>> readProcesses(Gpu gpu) {
        Optional<List<GpuProcess>> ps;
        String reason = "the GPU source has no per-process accounting for this GPU";
        try {
            ps = inventory.processes(gpu.index());
        } catch (RuntimeException e) {
            ps = Optional.empty();
            reason = e.getMessage();
        }
        if (ps.isEmpty()) {
            if (withoutProcesses.add(gpu.index())) {
                log.info(
                        "gpu-processes-unavailable",
                        "gpu",
                        gpu.index(),
                        "uuid",
                        gpu.uuid(),
                        "reason",
                        reason,
                        "effect",
                        "pods sharing this GPU get its whole-GPU values");
            }
            return Optional.empty();
        }
        if (withoutProcesses.remove(gpu.index())) {
            log.info("gpu-processes-available", "gpu", gpu.index(), "uuid", gpu.uuid());
        }
        List<ProcessUse> out = new ArrayList<>(ps.get().size());
        for (GpuProcess p : ps.get()) {
            out.add(locate(p));
        }
        return Optional.of(List.copyOf(out));
    }

    private ProcessUse locate(GpuProcess p) {
        if (hostProc == null) {
            return new ProcessUse(p, Optional.empty(), false);
        }
        try {
            return new ProcessUse(
                    p, ContainerCgroup.read(hostProc, p.pid()).map(ContainerCgroup::podUid), true);
        } catch (IOException e) {
            return new ProcessUse(p, Optional.empty(), false);
        }
    }

    private void sampleSafely() {
        try {
            sampleOnce();
        } catch (RuntimeException e) {
            // A scheduled task that throws is never run again: keep sampling whatever happened.
            log.error("sampling-failed", "error", e.toString());
            return;
        }
        try {
            afterEachRound.run();
        } catch (RuntimeException e) {
            log.error("after-sampling-failed", "error", e.toString());
        }
    }

    @Override
    public void close() {
        if (scheduler != null) {
            scheduler.shutdownNow();
        }
    }
}
