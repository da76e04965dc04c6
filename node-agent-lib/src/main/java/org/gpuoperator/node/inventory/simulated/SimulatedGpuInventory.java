package org.gpuoperator.node.inventory.simulated;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.gpuoperator.node.inventory.Gpu;
import org.gpuoperator.node.inventory.GpuInventory;
import org.gpuoperator.node.inventory.GpuLink;
import org.gpuoperator.node.inventory.GpuMetric;
import org.gpuoperator.node.inventory.GpuProcess;
import org.gpuoperator.node.inventory.GpuSample;
import org.gpuoperator.node.inventory.GpuSourceException;
import org.gpuoperator.node.inventory.HealthEvent;
import org.gpuoperator.node.inventory.MigPartitioner;
import org.gpuoperator.node.inventory.NodeInfo;

/**
 * GPUs that exist only as a function of (node name, profile): the same node always gets the same
 * UUIDs, so every agent on a node agrees without coordination and IDs survive restarts. Metrics
 * move smoothly and deterministically over time; faults come from {@link SimulatedFaults}.
 *
 * <p>A GPU's MIG mode and devices come from its layout file ({@link SimulatedMigLayouts}, written
 * by {@link SimulatedMigPartitioner}) when there is one, else from the profile. {@link #gpus()}
 * re-reads the layout files when any of them changed since the last call (a directory listing and
 * one stat per file), so a running agent sees a new layout too.
 */
public final class SimulatedGpuInventory implements GpuInventory {

    private static final Duration FAULT_POLL = Duration.ofMillis(100);

    private final SimulatedProfile profile;
    private final String nodeName;
    private final SimulatedFaults faults;
    private final Clock clock;
    private final SimulatedMigLayouts migLayouts;
    private volatile Snapshot snapshot;
    private final List<GpuLink> links;
    private final NodeInfo node;
    private final Path hostRoot;
    private final Path processRoot;
    private final SimulatedGpuProcesses processes;

    /** When this inventory opened: the simulated driver's load time, for the violation times. */
    private final long loadedAtMillis;

    public SimulatedGpuInventory(
            SimulatedProfile profile, String nodeName, Path hostRoot, Clock clock) {
        this(profile, nodeName, hostRoot, Path.of("/"), clock);
    }

    /**
     * @param processRoot this process's own root, where a container runtime injects the driver's
     *     libraries ({@code /}; tests: a directory)
     */
    SimulatedGpuInventory(
            SimulatedProfile profile,
            String nodeName,
            Path hostRoot,
            Path processRoot,
            Clock clock) {
        this.processRoot = processRoot;
        this.profile = profile;
        this.nodeName = nodeName;
        this.faults = new SimulatedFaults(hostRoot);
        this.hostRoot = hostRoot;
        this.processes =
                hostRoot == null
                        ? null
                        : new SimulatedGpuProcesses(hostRoot, hostRoot.resolve("proc"));
        this.clock = clock;
        this.loadedAtMillis = clock.millis();
        this.node =
                new NodeInfo(
                        profile.driverVersion(),
                        profile.cudaDriverVersion(),
                        (profile.cudaDriverVersion() / 1000) + "." + profile.driverVersion());
        this.migLayouts = new SimulatedMigLayouts(hostRoot);
        this.snapshot = readGpus();
        this.links = buildLinks(profile, snapshot.gpus());
    }

    /** The GPUs as built from the layout files that had {@code stamp}. */
    private record Snapshot(SimulatedMigLayouts.Stamp stamp, List<Gpu> gpus) {}

    private Snapshot readGpus() {
        // stamp first: a file written while reading makes the next stamp differ, not get lost
        SimulatedMigLayouts.Stamp stamp = migLayouts.stamp();
        return new Snapshot(stamp, buildGpus(profile, nodeName, migLayouts.currentAll(profile)));
    }

    /** {@code GPU-<uuid>} derived from node name and index only. */
    public static String gpuUuid(String nodeName, int index) {
        return "GPU-" + nameUuid("gpu-operator-sim/" + nodeName + "/" + index);
    }

    /** {@code MIG-<uuid>} derived from node name, parent index and GPU instance id. */
    public static String migUuid(String nodeName, int parentIndex, int gpuInstanceId) {
        return "MIG-"
                + nameUuid(
                        "gpu-operator-sim/"
                                + nodeName
                                + "/"
                                + parentIndex
                                + "/mig/"
                                + gpuInstanceId);
    }

    private static String nameUuid(String name) {
        return UUID.nameUUIDFromBytes(name.getBytes(StandardCharsets.UTF_8)).toString();
    }

    /**
     * The profile's GPUs with these MIG layouts (GPU index to layout, each checked against the
     * profile).
     */
    static List<Gpu> buildGpus(
            SimulatedProfile p, String nodeName, Map<Integer, MigPartitioner.Layout> layouts) {
        List<Gpu> out = new ArrayList<>();
        int perNuma = Math.max(1, (p.count() + p.numaNodes() - 1) / p.numaNodes());
        for (int i = 0; i < p.count(); i++) {
            MigPartitioner.Layout layout = layouts.get(i);
            List<Gpu.MigDevice> migDevices = new ArrayList<>();
            if (layout.enabled()) {
                int gi = 1;
                for (String prof : layout.devices()) {
                    // NVML's slots of a freshly partitioned GPU: 0, 1, ... in creation order
                    migDevices.add(
                            new Gpu.MigDevice(
                                    i,
                                    gi - 1,
                                    gi,
                                    0,
                                    migUuid(nodeName, i, gi),
                                    prof,
                                    p.migProfiles().get(prof)));
                    gi++;
                }
            }
            // Bus ids spread like real 8-GPU boards: one per PCIe switch.
            String bus = String.format("00000000:%02X:00.0", 0x18 + i * 0x10);
            out.add(
                    new Gpu(
                            i,
                            i,
                            gpuUuid(nodeName, i),
                            p.product(),
                            p.memoryMiB(),
                            bus,
                            i / perNuma,
                            new Gpu.ComputeCapability(p.computeMajor(), p.computeMinor()),
                            new Gpu.Mig(p.migCapable(), layout.enabled(), migDevices)));
        }
        return List.copyOf(out);
    }

    private static List<GpuLink> buildLinks(SimulatedProfile p, List<Gpu> gpus) {
        List<GpuLink> out = new ArrayList<>();
        for (int a = 0; a < gpus.size(); a++) {
            for (int b = a + 1; b < gpus.size(); b++) {
                if (p.topology() == SimulatedProfile.Topology.NVSWITCH) {
                    out.add(new GpuLink(a, b, GpuLink.Level.NVLINK, p.nvlinks()));
                } else if (gpus.get(a).numaNode() == gpus.get(b).numaNode()) {
                    out.add(new GpuLink(a, b, GpuLink.Level.PCIE_HOST_BRIDGE, 0));
                } else {
                    out.add(new GpuLink(a, b, GpuLink.Level.SYSTEM, 0));
                }
            }
        }
        return List.copyOf(out);
    }

    public SimulatedProfile profile() {
        return profile;
    }

    public SimulatedFaults faults() {
        return faults;
    }

    @Override
    public NodeInfo node() {
        Optional<String> loaded = loadedDriverVersion();
        if (loaded.isEmpty() || loaded.get().equals(node.driverVersion())) {
            return node;
        }
        return new NodeInfo(
                loaded.get(), node.cudaDriverVersion(), node.cudaMajor() + "." + loaded.get());
    }

    /**
     * The module the simulated driver agent loaded on this node reports its version here; with the
     * NVML library of that version in the driver root, that is the version NVML reports, so a
     * rollout of a new driver version shows in what the agents read (feature discovery's labels).
     * Without that library (a module loaded behind the driver's back) the profile's version stays,
     * and the driver agent sees the mismatch.
     */
    public static final String LOADED_VERSION_FILE = "/proc/driver/nvidia/version";

    /** Where the driver agent exposes the driver root on the host. */
    public static final String DRIVER_ROOT = "/run/nvidia/driver";

    private static final Pattern KERNEL_MODULE_VERSION =
            Pattern.compile("Kernel Module(?: for \\S+)?\\s+(\\d+(?:\\.\\d+)+)");

    /**
     * The version of the module loaded under the host root, if its NVML library is there; without
     * the host's /proc (a container that mounts no host root), the version of the NVML library the
     * runtime injected into this process's root (the CDI spec's mounts), as NVML would report it.
     */
    private Optional<String> loadedDriverVersion() {
        Path versionFile =
                hostRoot == null ? null : hostRoot.resolve(LOADED_VERSION_FILE.substring(1));
        if (versionFile == null || !Files.isRegularFile(versionFile)) {
            return injectedNvmlVersion(processRoot);
        }
        try {
            Matcher m = KERNEL_MODULE_VERSION.matcher(Files.readString(versionFile));
            if (!m.find()) {
                return Optional.empty();
            }
            String version = m.group(1);
            Path nvml =
                    hostRoot.resolve(DRIVER_ROOT.substring(1))
                            .resolve(SimulatedDriverFiles.LIBRARY_DIR)
                            .resolve("libnvidia-ml.so." + version);
            return Files.exists(nvml) ? Optional.of(version) : Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    private static final Pattern NVML_LIBRARY =
            Pattern.compile("libnvidia-ml\\.so\\.(\\d+(?:\\.\\d+)+)");

    /** The version of the one {@code libnvidia-ml.so.<version>} in the root's library dir. */
    static Optional<String> injectedNvmlVersion(Path root) {
        Path dir = root.resolve(SimulatedDriverFiles.LIBRARY_DIR);
        if (!Files.isDirectory(dir)) {
            return Optional.empty();
        }
        try (java.util.stream.Stream<Path> files = Files.list(dir)) {
            List<String> versions =
                    files.map(f -> NVML_LIBRARY.matcher(f.getFileName().toString()))
                            .filter(Matcher::matches)
                            .map(m -> m.group(1))
                            .distinct()
                            .toList();
            return versions.size() == 1 ? Optional.of(versions.getFirst()) : Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /**
     * {@inheritDoc}
     *
     * @throws GpuSourceException when a layout file changed and no longer parses; the next call
     *     reads it again
     */
    @Override
    public List<Gpu> gpus() {
        Snapshot s = snapshot;
        if (!s.stamp().equals(migLayouts.stamp())) {
            s = readGpus();
            snapshot = s;
        }
        return s.gpus();
    }

    /** The GPUs without looking for a new MIG layout: for what a layout cannot change (UUIDs). */
    private List<Gpu> knownGpus() {
        return snapshot.gpus();
    }

    @Override
    public List<GpuLink> links() {
        return links;
    }

    @Override
    public GpuSample sample(int gpuIndex) {
        if (gpuIndex < 0 || gpuIndex >= knownGpus().size()) {
            throw new GpuSourceException("no GPU with index " + gpuIndex + " on node " + nodeName);
        }
        SimulatedFaults.Fault fault = faults.active().get(gpuIndex);
        if (fault != null && fault.lost()) {
            throw new GpuSourceException(
                    "GPU " + gpuIndex + " (" + knownGpus().get(gpuIndex).uuid() + ") is lost");
        }
        long now = clock.millis();
        // Each GPU follows its own slow wave (phase from its UUID): plausible, smooth and
        // reproducible.
        double phase =
                (knownGpus().get(gpuIndex).uuid().hashCode() & 0xffff) / 65536.0 * 2 * Math.PI;
        double t = now / 60_000.0 * 2 * Math.PI; // one cycle a minute
        double load = 0.5 + 0.4 * Math.sin(t + phase); // 0.1 .. 0.9
        double util = Math.round(load * 100);
        long total = profile.memoryMiB();
        long reserved = Math.min(total / 100, 1024);
        long used = Math.round((total - reserved) * (0.05 + 0.8 * load));
        Map<GpuMetric, Double> v = new EnumMap<>(GpuMetric.class);
        v.put(GpuMetric.GPU_UTIL, util);
        v.put(GpuMetric.MEM_COPY_UTIL, (double) Math.round(util * 0.6));
        v.put(GpuMetric.FB_USED_MIB, (double) used);
        v.put(GpuMetric.FB_FREE_MIB, (double) (total - reserved - used));
        v.put(GpuMetric.FB_RESERVED_MIB, (double) reserved);
        v.put(GpuMetric.GPU_TEMP_C, (double) Math.round(32 + 45 * load));
        v.put(GpuMetric.MEMORY_TEMP_C, (double) Math.round(36 + 40 * load));
        double power = profile.powerIdleW() + (profile.powerMaxW() - profile.powerIdleW()) * load;
        v.put(GpuMetric.POWER_USAGE_W, Math.round(power * 1000) / 1000.0);
        // W x ms = mJ: as if the mean power had run since the epoch, so the counter only grows.
        v.put(
                GpuMetric.TOTAL_ENERGY_MJ,
                Math.floor((profile.powerIdleW() + profile.powerMaxW()) / 2 * now));
        v.put(
                GpuMetric.SM_CLOCK_MHZ,
                (double) Math.round(profile.smClockMaxMHz() * (0.5 + 0.5 * load)));
        v.put(GpuMetric.MEM_CLOCK_MHZ, (double) profile.memClockMHz());
        v.put(GpuMetric.ECC_SBE_VOLATILE_TOTAL, 0.0);
        v.put(GpuMetric.ECC_DBE_VOLATILE_TOTAL, 0.0);
        v.put(GpuMetric.ECC_SBE_AGGREGATE_TOTAL, 0.0);
        v.put(GpuMetric.ECC_DBE_AGGREGATE_TOTAL, 0.0);
        v.put(GpuMetric.PCIE_REPLAY_COUNTER, 0.0);
        v.put(GpuMetric.PCIE_TX_KBPS, (double) Math.round(2_000_000 * load));
        v.put(GpuMetric.PCIE_RX_KBPS, (double) Math.round(3_000_000 * load));
        if (profile.topology() == SimulatedProfile.Topology.NVSWITCH) {
            v.put(
                    GpuMetric.NVLINK_BANDWIDTH_TOTAL,
                    (double) Math.round(now / 1000.0 * 1_000_000 * load));
        }
        long xid = fault == null ? 0 : fault.xid();
        v.put(GpuMetric.XID_LAST, (double) xid);
        putErrorsAndEvents(v, load, xid, Math.max(0, now - loadedAtMillis));
        if (profilingSupported(gpuIndex)) {
            putProfiling(v, load);
        }
        return new GpuSample(gpuIndex, now, v);
    }

    /**
     * The processes of the workload containers the simulated runtime gave this GPU ({@link
     * SimulatedGpuProcesses}), sharing the GPU's current utilization and memory. A GPU in MIG mode
     * has no per-process utilization, as NVML says of MIG.
     */
    @Override
    public Optional<List<GpuProcess>> processes(int gpuIndex) {
        GpuSample whole = sample(gpuIndex); // also: a lost GPU fails here as in sample()
        Gpu gpu = knownGpus().get(gpuIndex);
        if (processes == null || gpu.mig().enabled()) {
            return Optional.empty();
        }
        return Optional.of(
                SimulatedGpuProcesses.split(
                        processes.pidsUsing(gpu.uuid()),
                        (int) whole.get(GpuMetric.GPU_UTIL).orElse(0),
                        (int) whole.get(GpuMetric.MEM_COPY_UTIL).orElse(0),
                        (int) whole.get(GpuMetric.DEC_UTIL).orElse(0),
                        (long) whole.get(GpuMetric.FB_USED_MIB).orElse(0)));
    }

    /** XID 63: a row remapping waits for a reset; XID 64: a row remapping failed. */
    static final long XID_ROW_REMAP_PENDING = 63;

    static final long XID_ROW_REMAP_FAILURE = 64;

    /**
     * Encoder/decoder use, memory repair state, clock event reasons and violation times. Ampere and
     * later repair memory by remapping rows and retire no pages (NVML: page retirement not
     * supported); older GPUs the other way round. A row-remap XID fault shows as NVML reports it.
     */
    private void putErrorsAndEvents(
            Map<GpuMetric, Double> v, double load, long xid, long sinceLoadMillis) {
        v.put(GpuMetric.ENC_UTIL, 0.0);
        v.put(GpuMetric.DEC_UTIL, (double) Math.round(8 * load));
        if (profile.computeMajor() >= 8) {
            boolean pending = xid == XID_ROW_REMAP_PENDING;
            boolean failed = xid == XID_ROW_REMAP_FAILURE;
            v.put(GpuMetric.CORRECTABLE_REMAPPED_ROWS, 0.0);
            v.put(GpuMetric.UNCORRECTABLE_REMAPPED_ROWS, pending || failed ? 1.0 : 0.0);
            v.put(GpuMetric.ROW_REMAP_PENDING, pending ? 1.0 : 0.0);
            v.put(GpuMetric.ROW_REMAP_FAILURE, failed ? 1.0 : 0.0);
        } else {
            v.put(GpuMetric.RETIRED_SBE, 0.0);
            v.put(GpuMetric.RETIRED_DBE, 0.0);
            v.put(GpuMetric.RETIRED_PENDING, 0.0);
        }
        // NVML's bits: 0x1 GPU idle, 0x4 software power cap
        v.put(GpuMetric.CLOCKS_EVENT_REASONS, load < 0.2 ? 1.0 : load > 0.85 ? 4.0 : 0.0);
        // as if clocks had been held back 2 % of the time for power and 10 % for low use
        double ns = sinceLoadMillis * 1e6;
        v.put(GpuMetric.POWER_VIOLATION_NS, Math.floor(ns * 0.02));
        v.put(GpuMetric.THERMAL_VIOLATION_NS, 0.0);
        v.put(GpuMetric.SYNC_BOOST_VIOLATION_NS, 0.0);
        v.put(GpuMetric.BOARD_LIMIT_VIOLATION_NS, 0.0);
        v.put(GpuMetric.LOW_UTIL_VIOLATION_NS, Math.floor(ns * 0.1));
        v.put(GpuMetric.RELIABILITY_VIOLATION_NS, 0.0);
    }

    /**
     * The profiling metrics, consistent with the other readings of the same sample: the graphics
     * engine is active as often as {@code GPU_UTIL} says, DRAM as often as {@code MEM_COPY_UTIL},
     * the SM and pipe ratios are fixed shares of that activity (a mixed training workload), PCIe
     * bytes are the PCIe throughput in bytes, and NVLink carries traffic only on NVSwitch boards.
     */
    private void putProfiling(Map<GpuMetric, Double> v, double load) {
        double gr = v.get(GpuMetric.GPU_UTIL) / 100.0;
        v.put(GpuMetric.PROF_GR_ENGINE_ACTIVE, gr);
        v.put(GpuMetric.PROF_SM_ACTIVE, ratio(0.9 * gr));
        v.put(GpuMetric.PROF_SM_OCCUPANCY, ratio(0.45 * gr));
        v.put(GpuMetric.PROF_PIPE_TENSOR_ACTIVE, ratio(0.6 * gr));
        v.put(GpuMetric.PROF_PIPE_FP64_ACTIVE, ratio(0.02 * gr));
        v.put(GpuMetric.PROF_PIPE_FP32_ACTIVE, ratio(0.3 * gr));
        v.put(GpuMetric.PROF_PIPE_FP16_ACTIVE, ratio(0.2 * gr));
        v.put(GpuMetric.PROF_DRAM_ACTIVE, v.get(GpuMetric.MEM_COPY_UTIL) / 100.0);
        v.put(GpuMetric.PROF_PCIE_TX_BYTES, v.get(GpuMetric.PCIE_TX_KBPS) * 1024);
        v.put(GpuMetric.PROF_PCIE_RX_BYTES, v.get(GpuMetric.PCIE_RX_KBPS) * 1024);
        boolean nvlink = profile.topology() == SimulatedProfile.Topology.NVSWITCH;
        v.put(GpuMetric.PROF_NVLINK_TX_BYTES, nvlink ? (double) Math.round(40e9 * load) : 0.0);
        v.put(GpuMetric.PROF_NVLINK_RX_BYTES, nvlink ? (double) Math.round(38e9 * load) : 0.0);
    }

    /** A ratio to 4 decimals, as DCGM prints them. */
    private static double ratio(double x) {
        return Math.round(x * 10_000) / 10_000.0;
    }

    /** GPM, which the profiling metrics come from, exists on Hopper (compute 9.0) and later. */
    @Override
    public boolean profilingSupported(int gpuIndex) {
        return profile.computeMajor() >= 9 && gpuIndex >= 0 && gpuIndex < knownGpus().size();
    }

    @Override
    public HealthWatch watchHealth() {
        return new FaultWatch();
    }

    @Override
    public String describe() {
        return "simulated:" + profile.name();
    }

    @Override
    public void close() {
        // nothing to release
    }

    /** Turns changes of the fault directory into health events. */
    private final class FaultWatch implements HealthWatch {
        private Map<Integer, SimulatedFaults.Fault> seen = new HashMap<>(faults.active());
        private final Deque<HealthEvent> pending = new ArrayDeque<>();
        private volatile boolean closed;

        FaultWatch() {
            // Faults present when the watch opens are reported first: a consumer that starts late
            // still learns them.
            seen.forEach((idx, f) -> pending.add(toEvent(idx, f)));
        }

        @Override
        public Optional<HealthEvent> next(Duration timeout) throws InterruptedException {
            long deadline = System.nanoTime() + timeout.toNanos();
            while (!closed) {
                if (!pending.isEmpty()) {
                    return Optional.of(pending.poll());
                }
                poll();
                if (!pending.isEmpty()) {
                    continue;
                }
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return Optional.empty();
                }
                Thread.sleep(Math.max(1, Math.min(FAULT_POLL.toMillis(), left / 1_000_000)));
            }
            return Optional.empty();
        }

        private void poll() {
            Map<Integer, SimulatedFaults.Fault> now = faults.active();
            for (var e : now.entrySet()) {
                if (!e.getValue().equals(seen.get(e.getKey())) && e.getKey() < knownGpus().size()) {
                    pending.add(toEvent(e.getKey(), e.getValue()));
                }
            }
            for (Integer idx : seen.keySet()) {
                if (!now.containsKey(idx) && idx < knownGpus().size()) {
                    pending.add(
                            new HealthEvent(
                                    idx,
                                    knownGpus().get(idx).uuid(),
                                    HealthEvent.Kind.RECOVERED,
                                    0,
                                    clock.millis()));
                }
            }
            seen = new HashMap<>(now);
        }

        private HealthEvent toEvent(int idx, SimulatedFaults.Fault f) {
            String uuid = idx < knownGpus().size() ? knownGpus().get(idx).uuid() : "unknown";
            return f.lost()
                    ? new HealthEvent(idx, uuid, HealthEvent.Kind.GPU_LOST, 0, clock.millis())
                    : new HealthEvent(idx, uuid, HealthEvent.Kind.XID, f.xid(), clock.millis());
        }

        @Override
        public void close() {
            closed = true;
        }
    }
}
