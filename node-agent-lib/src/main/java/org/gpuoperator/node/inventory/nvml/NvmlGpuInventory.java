package org.gpuoperator.node.inventory.nvml;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_DOUBLE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SegmentAllocator;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLongArray;
import org.gpuoperator.node.inventory.Gpu;
import org.gpuoperator.node.inventory.GpuInventory;
import org.gpuoperator.node.inventory.GpuLink;
import org.gpuoperator.node.inventory.GpuMetric;
import org.gpuoperator.node.inventory.GpuProcess;
import org.gpuoperator.node.inventory.GpuSample;
import org.gpuoperator.node.inventory.GpuSourceException;
import org.gpuoperator.node.inventory.NodeInfo;
import org.gpuoperator.node.inventory.nvml.NvmlLibrary.Fn;

/**
 * GPUs read through NVML ({@code libnvidia-ml.so.1}) with Java's foreign function API; no JNI and
 * no {@code nvidia-smi}. The static facts (GPUs, MIG devices, links, driver versions) are read once
 * at open; samples and health events are read live. Thread-safe.
 */
public final class NvmlGpuInventory implements GpuInventory {

    public static final String NOT_FOUND =
            "NVML not found: is the NVIDIA driver installed and is the container run with the nvidia runtime?";

    /** Env var naming the exact library file to load (same as {@code --nvml-library}). */
    public static final String LIBRARY_ENV = "NVML_LIBRARY";

    private static final long MIB = 1024L * 1024L;
    private static final int SUCCESS = NvmlReturn.SUCCESS.code();

    /** Scratch space for one sample: every struct and out-parameter of one GPU's readings fits. */
    private static final long SAMPLE_SCRATCH_BYTES = 1024;

    private final NvmlLibrary nvml;
    private final Path hostRoot;
    private final MemorySegment[] handles;
    private final NodeInfo node;
    private final List<Gpu> gpus;
    private final List<GpuLink> links;
    private final AtomicLongArray lastXid;
    private final NvmlGpm gpm;
    private final NvmlProcesses processes;
    private final AtomicBoolean closed = new AtomicBoolean();
    private final Set<NvmlHealthWatch> watches = ConcurrentHashMap.newKeySet();
    private volatile boolean memoryV2 = true;
    private volatile boolean shutDown;

    /** Opens NVML found from {@code hostRoot} (or the file named by {@code NVML_LIBRARY}). */
    public static GpuInventory open(Path hostRoot) {
        String env = System.getenv(LIBRARY_ENV);
        return open(hostRoot, env == null || env.isBlank() ? null : Path.of(env));
    }

    /**
     * Opens NVML: {@code library} when not null (and only it), else the search described in {@link
     * NvmlLibraryLocator}. A missing library gives one {@link GpuSourceException} with the message
     * {@link #NOT_FOUND} (its cause lists what was tried); a library found whose initialisation
     * fails gives {@link #initFailed}'s message, which names the library, NVML's code and text and
     * what to look at.
     */
    public static NvmlGpuInventory open(Path hostRoot, Path library) {
        return open(
                NvmlLibraryLocator.load(hostRoot == null ? Path.of("/") : hostRoot, library),
                hostRoot);
    }

    /** Initialises NVML through a loaded library and reads the GPUs (see {@link #open}). */
    static NvmlGpuInventory open(NvmlLibrary lib, Path hostRoot) {
        int rc = lib.call(Fn.nvmlInit_v2);
        if (rc != SUCCESS) {
            NvmlException cause = lib.exception(Fn.nvmlInit_v2, rc, "(" + lib.location() + ")");
            throw new GpuSourceException(
                    initFailed(resolved(lib.location()), rc, lib.errorString(rc)), cause);
        }
        try {
            return new NvmlGpuInventory(lib, hostRoot == null ? Path.of("/") : hostRoot);
        } catch (RuntimeException e) {
            lib.call(Fn.nvmlShutdown);
            throw e;
        }
    }

    /**
     * The one line for an NVML library that was found and bound but whose {@code nvmlInit_v2}
     * failed (pure): the library, the call, NVML's code and text, and the hint that fits the code.
     */
    static String initFailed(String library, int rc, String text) {
        String hint =
                switch (NvmlReturn.of(rc)) {
                    case ERROR_DRIVER_NOT_LOADED ->
                            "the NVIDIA kernel module is not loaded on this node (lsmod | grep"
                                    + " nvidia): is the driver installed, or its driver pod ready?";
                    case ERROR_NO_PERMISSION ->
                            "this process may not open /dev/nvidia*: run the container with the"
                                    + " nvidia runtime (NVIDIA_VISIBLE_DEVICES) or the device nodes"
                                    + " mounted";
                    case ERROR_LIB_RM_VERSION_MISMATCH ->
                            "the library's version differs from the loaded kernel module's: a"
                                    + " driver upgrade is half done (reboot or reload the module)";
                    case ERROR_LIBRARY_NOT_FOUND -> "a library NVML needs is missing beside it";
                    default -> "see the driver's kernel log (dmesg | grep -i nvrm)";
                };
        NvmlReturn code = NvmlReturn.of(rc);
        return "NVML library "
                + library
                + " found, but nvmlInit_v2 returned "
                + (code == NvmlReturn.ERROR_UNKNOWN
                        ? "code " + rc
                        : code.headerName() + " (" + rc + ")")
                + ": "
                + text
                + "; "
                + hint;
    }

    /** The library's path with its links resolved (names the versioned file), else as given. */
    private static String resolved(String location) {
        try {
            Path real = Path.of(location).toRealPath();
            return real.toString().equals(location) ? location : location + " -> " + real;
        } catch (java.io.IOException | RuntimeException e) {
            return location;
        }
    }

    private NvmlGpuInventory(NvmlLibrary nvml, Path hostRoot) {
        this.nvml = nvml;
        this.hostRoot = hostRoot;
        try (Arena arena = Arena.ofConfined()) {
            this.node = readNode(arena);
            MemorySegment count = arena.allocate(JAVA_INT);
            nvml.check(Fn.nvmlDeviceGetCount_v2, nvml.call(Fn.nvmlDeviceGetCount_v2, count), "");
            int n = count.get(JAVA_INT, 0);
            this.handles = new MemorySegment[n];
            List<Gpu> out = new ArrayList<>(n);
            for (int i = 0; i < n; i++) {
                MemorySegment h = arena.allocate(ADDRESS);
                nvml.check(
                        Fn.nvmlDeviceGetHandleByIndex_v2,
                        nvml.call(Fn.nvmlDeviceGetHandleByIndex_v2, i, h),
                        "for GPU " + i);
                handles[i] =
                        h.get(ADDRESS, 0); // an opaque pointer NVML owns; valid until nvmlShutdown
                out.add(readGpu(arena, i, handles[i]));
            }
            this.gpus = List.copyOf(out);
            this.links = readLinks(arena);
        }
        this.lastXid = new AtomicLongArray(handles.length);
        this.gpm = new NvmlGpm(nvml, handles);
        this.processes = new NvmlProcesses(nvml, handles);
    }

    /** Where the library was loaded from. */
    public String libraryLocation() {
        return nvml.location();
    }

    // ---------------------------------------------------------------- for the MIG partitioner

    NvmlLibrary library() {
        return nvml;
    }

    /** GPU {@code gpuIndex}'s NVML handle; fails clearly for a bad index or a closed inventory. */
    MemorySegment handle(int gpuIndex) {
        ensureOpen();
        if (gpuIndex < 0 || gpuIndex >= handles.length) {
            throw new GpuSourceException(
                    "no GPU with index " + gpuIndex + " (NVML reports " + handles.length + ")");
        }
        return handles[gpuIndex];
    }

    /**
     * GPU {@code gpuIndex}'s MIG state read now from NVML (the {@link #gpus()} of this inventory
     * keep what was read at open).
     */
    Gpu.Mig readMigNow(int gpuIndex) {
        MemorySegment dev = handle(gpuIndex);
        try (Arena arena = Arena.ofConfined()) {
            return readMig(
                    arena, gpuIndex, dev, gpus.get(gpuIndex).memoryMiB(), "for GPU " + gpuIndex);
        }
    }

    // ---------------------------------------------------------------- static facts

    private NodeInfo readNode(Arena arena) {
        MemorySegment buf = arena.allocate(NvmlLibrary.SYSTEM_STRING_BUFFER);
        nvml.check(
                Fn.nvmlSystemGetDriverVersion,
                nvml.call(Fn.nvmlSystemGetDriverVersion, buf, NvmlLibrary.SYSTEM_STRING_BUFFER),
                "");
        String driver = buf.getString(0);
        String nvmlVersion = "";
        int rc = nvml.call(Fn.nvmlSystemGetNVMLVersion, buf, NvmlLibrary.SYSTEM_STRING_BUFFER);
        if (rc == SUCCESS) {
            nvmlVersion = buf.getString(0);
        } else if (!NvmlReturn.meansUnavailable(rc)) {
            throw nvml.exception(Fn.nvmlSystemGetNVMLVersion, rc, "");
        }
        MemorySegment cuda = arena.allocate(JAVA_INT);
        rc = nvml.call(Fn.nvmlSystemGetCudaDriverVersion_v2, cuda);
        int cudaVersion = 0;
        if (rc == SUCCESS) {
            cudaVersion = cuda.get(JAVA_INT, 0);
        } else if (!NvmlReturn.meansUnavailable(rc)) {
            throw nvml.exception(Fn.nvmlSystemGetCudaDriverVersion_v2, rc, "");
        }
        return new NodeInfo(driver, cudaVersion, nvmlVersion);
    }

    private Gpu readGpu(Arena arena, int index, MemorySegment dev) {
        String at = "for GPU " + index;
        String uuid = deviceString(arena, Fn.nvmlDeviceGetUUID, dev, at);
        String name = deviceString(arena, Fn.nvmlDeviceGetName, dev, at);
        MemorySegment mem = arena.allocate(NvmlLibrary.MEMORY);
        nvml.check(Fn.nvmlDeviceGetMemoryInfo, nvml.call(Fn.nvmlDeviceGetMemoryInfo, dev, mem), at);
        long memoryMiB = mem.get(JAVA_LONG, NvmlLibrary.MEMORY_TOTAL) / MIB;
        MemorySegment pci = arena.allocate(NvmlLibrary.PCI_INFO);
        nvml.check(Fn.nvmlDeviceGetPciInfo_v3, nvml.call(Fn.nvmlDeviceGetPciInfo_v3, dev, pci), at);
        String busId = busId(pci);
        MemorySegment u = arena.allocate(JAVA_INT);
        nvml.check(Fn.nvmlDeviceGetMinorNumber, nvml.call(Fn.nvmlDeviceGetMinorNumber, dev, u), at);
        int minor = u.get(JAVA_INT, 0);
        MemorySegment major = arena.allocate(JAVA_INT);
        MemorySegment minorCc = arena.allocate(JAVA_INT);
        Gpu.ComputeCapability cc = new Gpu.ComputeCapability(0, 0);
        if (optional(
                Fn.nvmlDeviceGetCudaComputeCapability,
                nvml.call(Fn.nvmlDeviceGetCudaComputeCapability, dev, major, minorCc),
                at)) {
            cc = new Gpu.ComputeCapability(major.get(JAVA_INT, 0), minorCc.get(JAVA_INT, 0));
        }
        return new Gpu(
                index,
                minor,
                uuid,
                name,
                memoryMiB,
                busId,
                numaNode(arena, dev, busId, at),
                cc,
                readMig(arena, index, dev, memoryMiB, at));
    }

    private int numaNode(Arena arena, MemorySegment dev, String busId, String at) {
        MemorySegment out = arena.allocate(JAVA_INT);
        if (optional(
                Fn.nvmlDeviceGetNumaNodeId, nvml.call(Fn.nvmlDeviceGetNumaNodeId, dev, out), at)) {
            int node = out.get(JAVA_INT, 0);
            return node < 0 ? -1 : node;
        }
        // Older drivers: the kernel knows the PCI device's NUMA node.
        Path f =
                hostRoot.resolve("sys/bus/pci/devices")
                        .resolve(sysfsBusId(busId))
                        .resolve("numa_node");
        try {
            int node = Integer.parseInt(Files.readString(f).trim());
            return node < 0 ? -1 : node;
        } catch (IOException | NumberFormatException e) {
            return -1;
        }
    }

    /** NVML's {@code 00000000:07:00.0} as sysfs names the device: {@code 0000:07:00.0}. */
    static String sysfsBusId(String nvmlBusId) {
        String id = nvmlBusId.toLowerCase(Locale.ROOT);
        int colon = id.indexOf(':');
        return colon > 4 ? id.substring(colon - 4) : id;
    }

    private Gpu.Mig readMig(
            Arena arena, int index, MemorySegment dev, long gpuMemoryMiB, String at) {
        MemorySegment current = arena.allocate(JAVA_INT);
        MemorySegment pending = arena.allocate(JAVA_INT);
        if (!optional(
                Fn.nvmlDeviceGetMigMode,
                nvml.call(Fn.nvmlDeviceGetMigMode, dev, current, pending),
                at)) {
            return Gpu.Mig.NOT_CAPABLE;
        }
        if (current.get(JAVA_INT, 0) != NvmlLibrary.DEVICE_MIG_ENABLE) {
            return new Gpu.Mig(true, false, List.of());
        }
        MemorySegment max = arena.allocate(JAVA_INT);
        nvml.check(
                Fn.nvmlDeviceGetMaxMigDeviceCount,
                nvml.call(Fn.nvmlDeviceGetMaxMigDeviceCount, dev, max),
                at);
        List<Gpu.MigDevice> devices = new ArrayList<>();
        MemorySegment handle = arena.allocate(ADDRESS);
        MemorySegment id = arena.allocate(JAVA_INT);
        MemorySegment attrs = arena.allocate(NvmlLibrary.DEVICE_ATTRIBUTES);
        for (int slot = 0; slot < max.get(JAVA_INT, 0); slot++) {
            int rc = nvml.call(Fn.nvmlDeviceGetMigDeviceHandleByIndex, dev, slot, handle);
            if (rc == NvmlReturn.ERROR_NOT_FOUND.code()) {
                continue; // an empty slot
            }
            String migAt = at + " MIG slot " + slot;
            nvml.check(Fn.nvmlDeviceGetMigDeviceHandleByIndex, rc, migAt);
            MemorySegment mig = handle.get(ADDRESS, 0);
            nvml.check(
                    Fn.nvmlDeviceGetGpuInstanceId,
                    nvml.call(Fn.nvmlDeviceGetGpuInstanceId, mig, id),
                    migAt);
            int gi = id.get(JAVA_INT, 0);
            nvml.check(
                    Fn.nvmlDeviceGetComputeInstanceId,
                    nvml.call(Fn.nvmlDeviceGetComputeInstanceId, mig, id),
                    migAt);
            int ci = id.get(JAVA_INT, 0);
            String uuid = deviceString(arena, Fn.nvmlDeviceGetUUID, mig, migAt);
            nvml.check(
                    Fn.nvmlDeviceGetAttributes_v2,
                    nvml.call(Fn.nvmlDeviceGetAttributes_v2, mig, attrs),
                    migAt);
            Gpu.MigAttributes attributes = migAttributes(attrs);
            String migName = deviceString(arena, Fn.nvmlDeviceGetName, mig, migAt);
            devices.add(
                    new Gpu.MigDevice(
                            index,
                            slot,
                            gi,
                            ci,
                            uuid,
                            migProfile(
                                    migName,
                                    attributes.gpuInstanceSlices(),
                                    attributes.computeInstanceSlices(),
                                    attributes.memoryMiB(),
                                    gpuMemoryMiB),
                            attributes));
        }
        return new Gpu.Mig(true, true, devices);
    }

    /** A MIG device's {@code nvmlDeviceAttributes_t}. */
    static Gpu.MigAttributes migAttributes(MemorySegment attrs) {
        return new Gpu.MigAttributes(
                attrs.get(JAVA_LONG, NvmlLibrary.ATTR_MEMORY_MB),
                attrs.get(JAVA_INT, NvmlLibrary.ATTR_MULTIPROCESSORS),
                attrs.get(JAVA_INT, NvmlLibrary.ATTR_GI_SLICES),
                attrs.get(JAVA_INT, NvmlLibrary.ATTR_CI_SLICES),
                new Gpu.Engines(
                        attrs.get(JAVA_INT, NvmlLibrary.ATTR_COPY_ENGINES),
                        attrs.get(JAVA_INT, NvmlLibrary.ATTR_DECODERS),
                        attrs.get(JAVA_INT, NvmlLibrary.ATTR_ENCODERS),
                        attrs.get(JAVA_INT, NvmlLibrary.ATTR_JPEGS),
                        attrs.get(JAVA_INT, NvmlLibrary.ATTR_OFAS)));
    }

    /**
     * The MIG profile name as resources and labels use it ({@code 3g.20gb}): NVML names a MIG
     * device {@code "<product> MIG <profile>"}; failing that it is derived from the slice counts
     * and memory ({@link NvmlMigNames#derived}).
     */
    static String migProfile(String migDeviceName, int giSlices, int ciSlices, long memoryMiB) {
        return migProfile(migDeviceName, giSlices, ciSlices, memoryMiB, 0);
    }

    /** As {@link #migProfile(String, int, int, long)}, knowing the parent GPU's memory. */
    static String migProfile(
            String migDeviceName, int giSlices, int ciSlices, long memoryMiB, long gpuMemoryMiB) {
        String p = NvmlMigNames.fromNvmlName(migDeviceName);
        return p != null
                ? p
                : NvmlMigNames.derived(giSlices, ciSlices, memoryMiB, gpuMemoryMiB, "");
    }

    private List<GpuLink> readLinks(Arena arena) {
        int n = handles.length;
        Map<String, Integer> byBusId = new HashMap<>();
        for (Gpu g : gpus) {
            byBusId.put(g.pciBusId().toUpperCase(Locale.ROOT), g.index());
        }
        int[] activeLinks = new int[n];
        int[][] direct = new int[n][n];
        MemorySegment state = arena.allocate(JAVA_INT);
        MemorySegment pci = arena.allocate(NvmlLibrary.PCI_INFO);
        for (int i = 0; i < n; i++) {
            for (int link = 0; link < NvmlLibrary.NVLINK_MAX_LINKS; link++) {
                if (nvml.call(Fn.nvmlDeviceGetNvLinkState, handles[i], link, state) != SUCCESS) {
                    break; // past the GPU's last link, or no NVLink at all
                }
                if (state.get(JAVA_INT, 0) == 0) {
                    continue;
                }
                activeLinks[i]++;
                if (nvml.call(Fn.nvmlDeviceGetNvLinkRemotePciInfo_v2, handles[i], link, pci)
                        == SUCCESS) {
                    Integer peer = byBusId.get(busId(pci).toUpperCase(Locale.ROOT));
                    if (peer != null && peer != i) {
                        direct[i][peer]++;
                    }
                }
            }
        }
        List<GpuLink> out = new ArrayList<>();
        MemorySegment status = arena.allocate(JAVA_INT);
        MemorySegment level = arena.allocate(JAVA_INT);
        for (int a = 0; a < n; a++) {
            for (int b = a + 1; b < n; b++) {
                int lanes = Math.max(direct[a][b], direct[b][a]);
                boolean p2pNvlink =
                        nvml.call(
                                                Fn.nvmlDeviceGetP2PStatus,
                                                handles[a],
                                                handles[b],
                                                NvmlLibrary.P2P_CAPS_INDEX_NVLINK,
                                                status)
                                        == SUCCESS
                                && status.get(JAVA_INT, 0) == NvmlLibrary.P2P_STATUS_OK;
                if (lanes == 0 && p2pNvlink) {
                    lanes =
                            Math.min(
                                    activeLinks[a],
                                    activeLinks[b]); // through NVSwitch: no direct lane to count
                }
                if (lanes > 0 || p2pNvlink) {
                    out.add(new GpuLink(a, b, GpuLink.Level.NVLINK, lanes));
                } else if (nvml.call(
                                Fn.nvmlDeviceGetTopologyCommonAncestor,
                                handles[a],
                                handles[b],
                                level)
                        == SUCCESS) {
                    GpuLink.Level l = topologyLevel(level.get(JAVA_INT, 0));
                    if (l != null) {
                        out.add(new GpuLink(a, b, l, 0));
                    }
                }
                // Topology is best effort: a pair NVML cannot place is left out ("unknown"), not an
                // error.
            }
        }
        return List.copyOf(out);
    }

    /**
     * {@code nvmlGpuTopologyLevel_t} to the model's level; null for a value this binding does not
     * know.
     */
    static GpuLink.Level topologyLevel(int nvmlLevel) {
        return switch (nvmlLevel) {
            case 0, 10 -> GpuLink.Level.PCIE_SINGLE_SWITCH; // INTERNAL (same board), SINGLE
            case 20 -> GpuLink.Level.PCIE_MULTIPLE_SWITCHES;
            case 30 -> GpuLink.Level.PCIE_HOST_BRIDGE;
            case 40 -> GpuLink.Level.NUMA_NODE;
            case 50 -> GpuLink.Level.SYSTEM;
            default -> null;
        };
    }

    private String deviceString(Arena arena, Fn fn, MemorySegment dev, String at) {
        MemorySegment buf = arena.allocate(NvmlLibrary.DEVICE_STRING_BUFFER);
        nvml.check(fn, nvml.call(fn, dev, buf, NvmlLibrary.DEVICE_STRING_BUFFER), at);
        return buf.getString(0);
    }

    private static String busId(MemorySegment pci) {
        long off = NvmlLibrary.PCI_BUS_ID;
        MemorySegment field = pci.asSlice(off, 32);
        // NUL-terminated inside its 32 bytes
        int len = 0;
        while (len < 32 && field.get(JAVA_BYTE, len) != 0) {
            len++;
        }
        return new String(field.asSlice(0, len).toArray(JAVA_BYTE), StandardCharsets.US_ASCII);
    }

    /**
     * True on success, false when the value is unavailable on this GPU; any other code is an error.
     */
    private boolean optional(Fn fn, int rc, String at) {
        if (rc == SUCCESS) {
            return true;
        }
        if (NvmlReturn.meansUnavailable(rc)) {
            return false;
        }
        throw nvml.exception(fn, rc, at);
    }

    // ---------------------------------------------------------------- interface

    @Override
    public NodeInfo node() {
        return node;
    }

    @Override
    public List<Gpu> gpus() {
        return gpus;
    }

    @Override
    public List<GpuLink> links() {
        return links;
    }

    @Override
    public GpuSample sample(int gpuIndex) {
        checkIndex(gpuIndex);
        MemorySegment dev = handles[gpuIndex];
        String at = "for GPU " + gpuIndex;
        Map<GpuMetric, Double> v = new EnumMap<>(GpuMetric.class);
        long now = System.currentTimeMillis();
        try {
            readSample(dev, at, v);
            gpm.read(gpuIndex, v, at);
        } catch (NvmlException e) {
            throw closedMeanwhile(gpuIndex, e);
        }
        v.put(GpuMetric.XID_LAST, (double) lastXid.get(gpuIndex));
        return new GpuSample(gpuIndex, now, v);
    }

    @Override
    public Optional<List<GpuProcess>> processes(int gpuIndex) {
        checkIndex(gpuIndex);
        try {
            return processes.read(gpuIndex, "for GPU " + gpuIndex);
        } catch (NvmlException e) {
            throw closedMeanwhile(gpuIndex, e);
        }
    }

    private void checkIndex(int gpuIndex) {
        ensureOpen();
        if (gpuIndex < 0 || gpuIndex >= handles.length) {
            throw new GpuSourceException(
                    "no GPU with index " + gpuIndex + " (NVML reports " + handles.length + ")");
        }
    }

    /** An error caused by a concurrent close says so; any other is rethrown as it is. */
    private RuntimeException closedMeanwhile(int gpuIndex, NvmlException e) {
        if (closed.get()) {
            return new GpuSourceException(
                    "the NVML inventory was closed while GPU " + gpuIndex + " was sampled", e);
        }
        return e;
    }

    private void readSample(MemorySegment dev, String at, Map<GpuMetric, Double> v) {
        try (Arena arena = Arena.ofConfined()) {
            SegmentAllocator alloc =
                    SegmentAllocator.slicingAllocator(arena.allocate(SAMPLE_SCRATCH_BYTES, 8));

            MemorySegment util = alloc.allocate(NvmlLibrary.UTILIZATION);
            if (optional(
                    Fn.nvmlDeviceGetUtilizationRates,
                    nvml.call(Fn.nvmlDeviceGetUtilizationRates, dev, util),
                    at)) {
                v.put(GpuMetric.GPU_UTIL, (double) util.get(JAVA_INT, NvmlLibrary.UTILIZATION_GPU));
                v.put(
                        GpuMetric.MEM_COPY_UTIL,
                        (double) util.get(JAVA_INT, NvmlLibrary.UTILIZATION_MEMORY));
            }
            readMemory(alloc, dev, at, v);

            MemorySegment u = alloc.allocate(JAVA_INT);
            if (optional(
                    Fn.nvmlDeviceGetTemperature,
                    nvml.call(Fn.nvmlDeviceGetTemperature, dev, NvmlLibrary.TEMPERATURE_GPU, u),
                    at)) {
                v.put(GpuMetric.GPU_TEMP_C, (double) Integer.toUnsignedLong(u.get(JAVA_INT, 0)));
            }
            if (optional(
                    Fn.nvmlDeviceGetPowerUsage,
                    nvml.call(Fn.nvmlDeviceGetPowerUsage, dev, u),
                    at)) {
                v.put(
                        GpuMetric.POWER_USAGE_W,
                        Integer.toUnsignedLong(u.get(JAVA_INT, 0)) / 1000.0); // mW
            }
            MemorySegment ull = alloc.allocate(JAVA_LONG);
            if (optional(
                    Fn.nvmlDeviceGetTotalEnergyConsumption,
                    nvml.call(Fn.nvmlDeviceGetTotalEnergyConsumption, dev, ull),
                    at)) {
                v.put(GpuMetric.TOTAL_ENERGY_MJ, unsignedLong(ull.get(JAVA_LONG, 0)));
            }
            if (optional(
                    Fn.nvmlDeviceGetClockInfo,
                    nvml.call(Fn.nvmlDeviceGetClockInfo, dev, NvmlLibrary.CLOCK_SM, u),
                    at)) {
                v.put(GpuMetric.SM_CLOCK_MHZ, (double) Integer.toUnsignedLong(u.get(JAVA_INT, 0)));
            }
            if (optional(
                    Fn.nvmlDeviceGetClockInfo,
                    nvml.call(Fn.nvmlDeviceGetClockInfo, dev, NvmlLibrary.CLOCK_MEM, u),
                    at)) {
                v.put(GpuMetric.MEM_CLOCK_MHZ, (double) Integer.toUnsignedLong(u.get(JAVA_INT, 0)));
            }
            ecc(
                    dev,
                    ull,
                    NvmlLibrary.MEMORY_ERROR_CORRECTED,
                    NvmlLibrary.ECC_COUNTER_VOLATILE,
                    GpuMetric.ECC_SBE_VOLATILE_TOTAL,
                    at,
                    v);
            ecc(
                    dev,
                    ull,
                    NvmlLibrary.MEMORY_ERROR_UNCORRECTED,
                    NvmlLibrary.ECC_COUNTER_VOLATILE,
                    GpuMetric.ECC_DBE_VOLATILE_TOTAL,
                    at,
                    v);
            ecc(
                    dev,
                    ull,
                    NvmlLibrary.MEMORY_ERROR_CORRECTED,
                    NvmlLibrary.ECC_COUNTER_AGGREGATE,
                    GpuMetric.ECC_SBE_AGGREGATE_TOTAL,
                    at,
                    v);
            ecc(
                    dev,
                    ull,
                    NvmlLibrary.MEMORY_ERROR_UNCORRECTED,
                    NvmlLibrary.ECC_COUNTER_AGGREGATE,
                    GpuMetric.ECC_DBE_AGGREGATE_TOTAL,
                    at,
                    v);
            if (optional(
                    Fn.nvmlDeviceGetPcieReplayCounter,
                    nvml.call(Fn.nvmlDeviceGetPcieReplayCounter, dev, u),
                    at)) {
                v.put(
                        GpuMetric.PCIE_REPLAY_COUNTER,
                        (double) Integer.toUnsignedLong(u.get(JAVA_INT, 0)));
            }
            if (optional(
                    Fn.nvmlDeviceGetPcieThroughput,
                    nvml.call(
                            Fn.nvmlDeviceGetPcieThroughput, dev, NvmlLibrary.PCIE_UTIL_TX_BYTES, u),
                    at)) {
                v.put(GpuMetric.PCIE_TX_KBPS, (double) Integer.toUnsignedLong(u.get(JAVA_INT, 0)));
            }
            if (optional(
                    Fn.nvmlDeviceGetPcieThroughput,
                    nvml.call(
                            Fn.nvmlDeviceGetPcieThroughput, dev, NvmlLibrary.PCIE_UTIL_RX_BYTES, u),
                    at)) {
                v.put(GpuMetric.PCIE_RX_KBPS, (double) Integer.toUnsignedLong(u.get(JAVA_INT, 0)));
            }
            readFields(alloc, dev, at, v);
            readErrorsAndEvents(alloc, dev, at, v);
        }
    }

    /**
     * Encoder and decoder use, remapped rows, retired pages, clock event reasons and the violation
     * (throttle) times.
     */
    private void readErrorsAndEvents(
            SegmentAllocator alloc, MemorySegment dev, String at, Map<GpuMetric, Double> v) {
        MemorySegment a = alloc.allocate(JAVA_INT);
        MemorySegment b = alloc.allocate(JAVA_INT);
        MemorySegment c = alloc.allocate(JAVA_INT);
        MemorySegment d = alloc.allocate(JAVA_INT);
        if (optional(
                Fn.nvmlDeviceGetEncoderUtilization,
                nvml.call(Fn.nvmlDeviceGetEncoderUtilization, dev, a, b),
                at)) {
            v.put(GpuMetric.ENC_UTIL, (double) Integer.toUnsignedLong(a.get(JAVA_INT, 0)));
        }
        if (optional(
                Fn.nvmlDeviceGetDecoderUtilization,
                nvml.call(Fn.nvmlDeviceGetDecoderUtilization, dev, a, b),
                at)) {
            v.put(GpuMetric.DEC_UTIL, (double) Integer.toUnsignedLong(a.get(JAVA_INT, 0)));
        }
        if (optional(
                Fn.nvmlDeviceGetRemappedRows,
                nvml.call(Fn.nvmlDeviceGetRemappedRows, dev, a, b, c, d),
                at)) {
            v.put(
                    GpuMetric.CORRECTABLE_REMAPPED_ROWS,
                    (double) Integer.toUnsignedLong(a.get(JAVA_INT, 0)));
            v.put(
                    GpuMetric.UNCORRECTABLE_REMAPPED_ROWS,
                    (double) Integer.toUnsignedLong(b.get(JAVA_INT, 0)));
            v.put(GpuMetric.ROW_REMAP_PENDING, c.get(JAVA_INT, 0) != 0 ? 1.0 : 0.0);
            v.put(GpuMetric.ROW_REMAP_FAILURE, d.get(JAVA_INT, 0) != 0 ? 1.0 : 0.0);
        }
        retiredPages(
                dev,
                a,
                NvmlLibrary.PAGE_RETIREMENT_CAUSE_MULTIPLE_SINGLE_BIT_ECC_ERRORS,
                GpuMetric.RETIRED_SBE,
                at,
                v);
        retiredPages(
                dev,
                a,
                NvmlLibrary.PAGE_RETIREMENT_CAUSE_DOUBLE_BIT_ECC_ERROR,
                GpuMetric.RETIRED_DBE,
                at,
                v);
        if (optional(
                Fn.nvmlDeviceGetRetiredPagesPendingStatus,
                nvml.call(Fn.nvmlDeviceGetRetiredPagesPendingStatus, dev, a),
                at)) {
            v.put(GpuMetric.RETIRED_PENDING, a.get(JAVA_INT, 0) != 0 ? 1.0 : 0.0);
        }
        MemorySegment ull = alloc.allocate(JAVA_LONG);
        Fn reasons = Fn.nvmlDeviceGetCurrentClocksEventReasons;
        int rc = nvml.call(reasons, dev, ull);
        if (rc == NvmlReturn.ERROR_FUNCTION_NOT_FOUND.code()) {
            reasons = Fn.nvmlDeviceGetCurrentClocksThrottleReasons; // a driver before 535
            rc = nvml.call(reasons, dev, ull);
        }
        if (optional(reasons, rc, at)) {
            v.put(GpuMetric.CLOCKS_EVENT_REASONS, unsignedLong(ull.get(JAVA_LONG, 0)));
        }
        MemorySegment viol = alloc.allocate(NvmlLibrary.VIOLATION_TIME);
        violation(dev, viol, NvmlLibrary.PERF_POLICY_POWER, GpuMetric.POWER_VIOLATION_NS, at, v);
        violation(
                dev, viol, NvmlLibrary.PERF_POLICY_THERMAL, GpuMetric.THERMAL_VIOLATION_NS, at, v);
        violation(
                dev,
                viol,
                NvmlLibrary.PERF_POLICY_SYNC_BOOST,
                GpuMetric.SYNC_BOOST_VIOLATION_NS,
                at,
                v);
        violation(
                dev,
                viol,
                NvmlLibrary.PERF_POLICY_BOARD_LIMIT,
                GpuMetric.BOARD_LIMIT_VIOLATION_NS,
                at,
                v);
        violation(
                dev,
                viol,
                NvmlLibrary.PERF_POLICY_LOW_UTILIZATION,
                GpuMetric.LOW_UTIL_VIOLATION_NS,
                at,
                v);
        violation(
                dev,
                viol,
                NvmlLibrary.PERF_POLICY_RELIABILITY,
                GpuMetric.RELIABILITY_VIOLATION_NS,
                at,
                v);
    }

    /**
     * The number of pages retired for {@code cause}: asked with a zero-sized address buffer, NVML
     * answers the count (with {@code NVML_ERROR_INSUFFICIENT_SIZE} when there are some).
     */
    private void retiredPages(
            MemorySegment dev,
            MemorySegment count,
            int cause,
            GpuMetric metric,
            String at,
            Map<GpuMetric, Double> v) {
        count.set(JAVA_INT, 0, 0);
        int rc = nvml.call(Fn.nvmlDeviceGetRetiredPages, dev, cause, count, MemorySegment.NULL);
        if (rc == NvmlReturn.ERROR_INSUFFICIENT_SIZE.code()
                || optional(Fn.nvmlDeviceGetRetiredPages, rc, at)) {
            v.put(metric, (double) Integer.toUnsignedLong(count.get(JAVA_INT, 0)));
        }
    }

    private void violation(
            MemorySegment dev,
            MemorySegment out,
            int policy,
            GpuMetric metric,
            String at,
            Map<GpuMetric, Double> v) {
        if (optional(
                Fn.nvmlDeviceGetViolationStatus,
                nvml.call(Fn.nvmlDeviceGetViolationStatus, dev, policy, out),
                at)) {
            v.put(metric, unsignedLong(out.get(JAVA_LONG, NvmlLibrary.VIOLATION_TIME_VALUE)));
        }
    }

    private void readMemory(
            SegmentAllocator alloc, MemorySegment dev, String at, Map<GpuMetric, Double> v) {
        if (memoryV2) {
            MemorySegment m = alloc.allocate(NvmlLibrary.MEMORY_V2);
            m.set(JAVA_INT, 0, NvmlLibrary.MEMORY_V2_VERSION);
            int rc = nvml.call(Fn.nvmlDeviceGetMemoryInfo_v2, dev, m);
            if (rc == SUCCESS) {
                long total = m.get(JAVA_LONG, NvmlLibrary.MEMORY_V2_TOTAL);
                long reserved = m.get(JAVA_LONG, NvmlLibrary.MEMORY_V2_RESERVED);
                long free = m.get(JAVA_LONG, NvmlLibrary.MEMORY_V2_FREE);
                // v2's "used" includes the reserved part; report the three as disjoint parts of the
                // total.
                v.put(GpuMetric.FB_FREE_MIB, (double) (free / MIB));
                v.put(GpuMetric.FB_RESERVED_MIB, (double) (reserved / MIB));
                v.put(GpuMetric.FB_USED_MIB, (double) ((total - free - reserved) / MIB));
                return;
            }
            if (rc == NvmlReturn.ERROR_ARGUMENT_VERSION_MISMATCH.code()
                    || NvmlReturn.meansUnavailable(rc)) {
                memoryV2 = false; // an older driver: use v1 from now on
            } else {
                throw nvml.exception(Fn.nvmlDeviceGetMemoryInfo_v2, rc, at);
            }
        }
        MemorySegment m = alloc.allocate(NvmlLibrary.MEMORY);
        if (optional(
                Fn.nvmlDeviceGetMemoryInfo, nvml.call(Fn.nvmlDeviceGetMemoryInfo, dev, m), at)) {
            v.put(
                    GpuMetric.FB_FREE_MIB,
                    (double) (m.get(JAVA_LONG, NvmlLibrary.MEMORY_FREE) / MIB));
            v.put(
                    GpuMetric.FB_USED_MIB,
                    (double) (m.get(JAVA_LONG, NvmlLibrary.MEMORY_USED) / MIB));
        }
    }

    private void ecc(
            MemorySegment dev,
            MemorySegment out,
            int errorType,
            int counterType,
            GpuMetric metric,
            String at,
            Map<GpuMetric, Double> v) {
        if (optional(
                Fn.nvmlDeviceGetTotalEccErrors,
                nvml.call(Fn.nvmlDeviceGetTotalEccErrors, dev, errorType, counterType, out),
                at)) {
            v.put(metric, unsignedLong(out.get(JAVA_LONG, 0)));
        }
    }

    /** Memory temperature and the NVLink bandwidth counter come only as NVML field values. */
    private void readFields(
            SegmentAllocator alloc, MemorySegment dev, String at, Map<GpuMetric, Double> v) {
        long size = NvmlLibrary.FIELD_VALUE.byteSize();
        MemorySegment fields = alloc.allocate(NvmlLibrary.FIELD_VALUE, 2);
        fields.fill((byte) 0);
        fields.set(JAVA_INT, 0, NvmlLibrary.FI_DEV_MEMORY_TEMP);
        fields.set(JAVA_INT, size, NvmlLibrary.FI_DEV_NVLINK_BANDWIDTH_C0_TOTAL);
        if (!optional(
                Fn.nvmlDeviceGetFieldValues,
                nvml.call(Fn.nvmlDeviceGetFieldValues, dev, 2, fields),
                at)) {
            return;
        }
        fieldValue(fields.asSlice(0, size)).ifPresent(x -> v.put(GpuMetric.MEMORY_TEMP_C, x));
        fieldValue(fields.asSlice(size, size))
                .ifPresent(x -> v.put(GpuMetric.NVLINK_BANDWIDTH_TOTAL, x));
    }

    /** The value of one {@code nvmlFieldValue_t}, empty when NVML could not read that field. */
    static OptionalDouble fieldValue(MemorySegment f) {
        if (f.get(JAVA_INT, NvmlLibrary.FIELD_RETURN) != SUCCESS) {
            return OptionalDouble.empty();
        }
        long off = NvmlLibrary.FIELD_VALUE_UNION;
        return switch (f.get(JAVA_INT, NvmlLibrary.FIELD_VALUE_TYPE)) {
            case NvmlLibrary.VALUE_TYPE_DOUBLE -> OptionalDouble.of(f.get(JAVA_DOUBLE, off));
            case NvmlLibrary.VALUE_TYPE_UNSIGNED_INT ->
                    OptionalDouble.of(Integer.toUnsignedLong(f.get(JAVA_INT, off)));
            case NvmlLibrary.VALUE_TYPE_SIGNED_INT -> OptionalDouble.of(f.get(JAVA_INT, off));
            case NvmlLibrary.VALUE_TYPE_UNSIGNED_LONG, NvmlLibrary.VALUE_TYPE_UNSIGNED_LONG_LONG ->
                    OptionalDouble.of(unsignedLong(f.get(JAVA_LONG, off)));
            case NvmlLibrary.VALUE_TYPE_SIGNED_LONG_LONG ->
                    OptionalDouble.of(f.get(JAVA_LONG, off));
            case NvmlLibrary.VALUE_TYPE_UNSIGNED_SHORT ->
                    OptionalDouble.of(Short.toUnsignedInt(f.get(JAVA_SHORT, off)));
            default -> OptionalDouble.empty();
        };
    }

    private static double unsignedLong(long v) {
        return v >= 0 ? v : (double) (v >>> 1) * 2.0;
    }

    @Override
    public boolean profilingSupported(int gpuIndex) {
        return gpm.supported(gpuIndex);
    }

    @Override
    public HealthWatch watchHealth() {
        ensureOpen();
        NvmlHealthWatch watch = new NvmlHealthWatch(this, nvml, handles);
        watches.add(watch);
        return watch;
    }

    void forget(NvmlHealthWatch watch) {
        watches.remove(watch);
    }

    /** Called by the health watch: the last XID each GPU reported, for samples. */
    void recordXid(int gpuIndex, long xid) {
        lastXid.set(gpuIndex, xid);
    }

    @Override
    public String describe() {
        return "nvml";
    }

    /** Shuts NVML down; later calls fail with a clear error. Idempotent. */
    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            // No thread may be inside an NVML event wait when the library goes away.
            watches.forEach(NvmlHealthWatch::closeAndAwait);
            watches.clear();
            gpm.close();
            shutDown = true;
            nvml.call(Fn.nvmlShutdown);
        }
    }

    /**
     * Whether nvmlShutdown has been called: NVML handles (event sets) must not be used any more.
     */
    boolean isShutDown() {
        return shutDown;
    }

    private void ensureOpen() {
        if (closed.get()) {
            throw new GpuSourceException("the NVML inventory is closed");
        }
    }
}
