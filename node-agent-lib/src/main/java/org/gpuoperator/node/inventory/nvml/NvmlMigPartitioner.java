package org.gpuoperator.node.inventory.nvml;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Collectors;
import org.gpuoperator.node.inventory.Gpu;
import org.gpuoperator.node.inventory.GpuResetRequiredException;
import org.gpuoperator.node.inventory.GpuSourceException;
import org.gpuoperator.node.inventory.MigPartitioner;
import org.gpuoperator.node.inventory.nvml.NvmlLibrary.Fn;

/**
 * MIG partitioning of real GPUs through NVML, the calls {@code nvidia-smi mig} and upstream's
 * mig-parted make:
 *
 * <ul>
 *   <li>{@link #profiles}: every {@code NVML_GPU_INSTANCE_PROFILE_*} constant the GPU answers
 *       ({@code nvmlDeviceGetGpuInstanceProfileInfoV}, else the unversioned call), named as the
 *       inventory names MIG devices ({@link NvmlMigNames});
 *   <li>{@link #layout}: the MIG mode and MIG devices NVML reports now (as {@link NvmlGpuInventory}
 *       reads them, in NVML's MIG device order);
 *   <li>{@link #apply}: {@code nvmlDeviceSetMigMode} when the mode differs (a mode NVML leaves
 *       pending, because the GPU must be reset first, is an error saying so); with MIG on, every
 *       compute instance then every GPU instance destroyed, and per wanted device one GPU instance
 *       ({@code nvmlDeviceCreateGpuInstance}) with one compute instance spanning it (the compute
 *       instance profile with the GPU instance's slice count, shared engines).
 * </ul>
 *
 * <p>Every failure is a {@link GpuSourceException} naming the GPU, the step and NVML's error (its
 * {@link NvmlException} as the cause); one that leaves the GPU changed says what it now has. A
 * driver whose NVML lacks the MIG functions still reads; partitioning then refuses, naming them.
 *
 * <p>Holds NVML open (one {@code nvmlInit_v2}) until {@link #close}. Calls are serialised: one
 * change at a time, and no read sees a change half made by this process.
 */
public final class NvmlMigPartitioner implements MigPartitioner, AutoCloseable {

    /**
     * GPU instance profile constants tried: those of current headers ({@code
     * NVML_GPU_INSTANCE_PROFILE_COUNT} is 0x12) and room for newer ones; a constant a driver does
     * not know answers {@code NVML_ERROR_INVALID_ARGUMENT} and is skipped, as NVML's documentation
     * suggests for forward-compatible enumeration.
     */
    static final int GI_PROFILE_CONSTANTS = 32;

    /** Compute instance profile constants tried ({@code NVML_COMPUTE_INSTANCE_PROFILE_COUNT} 9). */
    static final int CI_PROFILE_CONSTANTS = 16;

    private static final int SUCCESS = NvmlReturn.SUCCESS.code();

    /** What {@link #apply} calls besides the profile reads (of which either version will do). */
    static final List<Fn> PARTITIONING =
            List.of(
                    Fn.nvmlDeviceSetMigMode,
                    Fn.nvmlDeviceGetGpuInstances,
                    Fn.nvmlDeviceCreateGpuInstance,
                    Fn.nvmlGpuInstanceDestroy,
                    Fn.nvmlGpuInstanceGetComputeInstances,
                    Fn.nvmlGpuInstanceCreateComputeInstance,
                    Fn.nvmlComputeInstanceDestroy);

    /** Smallest first, then by name: how profiles are listed, as the simulated partitioner does. */
    private static final Comparator<GiProfile> SMALLEST_FIRST =
            Comparator.comparingInt((GiProfile p) -> p.attributes().gpuInstanceSlices())
                    .thenComparing(GiProfile::name);

    private final NvmlGpuInventory inventory;
    private final NvmlLibrary nvml;

    /** Opens NVML found from {@code hostRoot} (or the file named by {@code NVML_LIBRARY}). */
    public static NvmlMigPartitioner open(Path hostRoot) {
        String env = System.getenv(NvmlGpuInventory.LIBRARY_ENV);
        return open(hostRoot, env == null || env.isBlank() ? null : Path.of(env));
    }

    /**
     * Opens NVML as {@link NvmlGpuInventory#open(Path, Path)} does: {@code library} when not null,
     * else the usual search.
     */
    public static NvmlMigPartitioner open(Path hostRoot, Path library) {
        return new NvmlMigPartitioner(NvmlGpuInventory.open(hostRoot, library));
    }

    /** Partitions the GPUs of {@code inventory}, which it then owns (and closes). */
    NvmlMigPartitioner(NvmlGpuInventory inventory) {
        this.inventory = inventory;
        this.nvml = inventory.library();
    }

    /** Where the NVML library was loaded from. */
    public String libraryLocation() {
        return nvml.location();
    }

    // ---------------------------------------------------------------- reading

    @Override
    public synchronized Map<String, Gpu.MigAttributes> profiles(int gpuIndex) {
        MemorySegment dev = inventory.handle(gpuIndex);
        try (Arena arena = Arena.ofConfined()) {
            if (migMode(arena, gpuIndex, dev) == null) {
                return Map.of();
            }
            List<GiProfile> offered = new ArrayList<>(byName(readProfiles(arena, gpuIndex, dev)));
            offered.sort(SMALLEST_FIRST);
            Map<String, Gpu.MigAttributes> out = new LinkedHashMap<>();
            for (GiProfile p : offered) {
                out.put(p.name(), p.attributes());
            }
            return Collections.unmodifiableMap(out);
        }
    }

    @Override
    public synchronized Layout layout(int gpuIndex) {
        Gpu.Mig mig = inventory.readMigNow(gpuIndex);
        return new Layout(
                mig.enabled(), mig.devices().stream().map(Gpu.MigDevice::profile).toList());
    }

    /** A GPU's MIG mode: what is in force and what is to be after the next reset. */
    record MigMode(boolean current, boolean pending) {}

    /** The GPU's MIG mode, or null when it is not MIG capable (or NVML cannot tell). */
    private MigMode migMode(Arena arena, int gpuIndex, MemorySegment dev) {
        MemorySegment current = arena.allocate(JAVA_INT);
        MemorySegment pending = arena.allocate(JAVA_INT);
        int rc = nvml.call(Fn.nvmlDeviceGetMigMode, dev, current, pending);
        if (rc == NvmlReturn.ERROR_NOT_SUPPORTED.code()
                || rc == NvmlReturn.ERROR_FUNCTION_NOT_FOUND.code()) {
            return null;
        }
        nvml.check(Fn.nvmlDeviceGetMigMode, rc, "for GPU " + gpuIndex);
        return new MigMode(
                current.get(JAVA_INT, 0) == NvmlLibrary.DEVICE_MIG_ENABLE,
                pending.get(JAVA_INT, 0) == NvmlLibrary.DEVICE_MIG_ENABLE);
    }

    /**
     * A GPU instance profile as NVML describes it.
     *
     * @param constant its {@code NVML_GPU_INSTANCE_PROFILE_*} constant
     * @param id the profile id NVML's create and list calls take
     * @param instanceCount how many GPU instances of it the GPU can hold
     */
    record GiProfile(
            int constant, int id, String name, int instanceCount, Gpu.MigAttributes attributes) {}

    /** Every profile the GPU answers for, by constant. */
    private List<GiProfile> readProfiles(Arena arena, int gpuIndex, MemorySegment dev) {
        if (!nvml.has(Fn.nvmlDeviceGetGpuInstanceProfileInfoV)
                && !nvml.has(Fn.nvmlDeviceGetGpuInstanceProfileInfo)) {
            throw new GpuSourceException(
                    "GPU "
                            + gpuIndex
                            + ": cannot read its MIG profiles: "
                            + lacks(
                                    List.of(
                                            Fn.nvmlDeviceGetGpuInstanceProfileInfoV,
                                            Fn.nvmlDeviceGetGpuInstanceProfileInfo)));
        }
        long gpuMemoryMiB = inventory.gpus().get(gpuIndex).memoryMiB();
        MemorySegment v2 = arena.allocate(NvmlLibrary.GPU_INSTANCE_PROFILE_INFO_V2);
        MemorySegment v1 = arena.allocate(NvmlLibrary.GPU_INSTANCE_PROFILE_INFO);
        List<GiProfile> out = new ArrayList<>();
        for (int constant = 0; constant < GI_PROFILE_CONSTANTS; constant++) {
            String at = "for GPU " + gpuIndex + " profile constant " + constant;
            v2.fill((byte) 0);
            v2.set(JAVA_INT, 0, NvmlLibrary.GPU_INSTANCE_PROFILE_INFO_V2_VERSION);
            int rc = nvml.call(Fn.nvmlDeviceGetGpuInstanceProfileInfoV, dev, constant, v2);
            if (rc == SUCCESS) {
                out.add(
                        giProfile(
                                constant,
                                v2,
                                NvmlLibrary.GPU_INSTANCE_PROFILE_INFO_V2,
                                gpuMemoryMiB));
                continue;
            }
            // An older driver (no V call, or not this struct version), or one whose V call answers
            // only with MIG on: the unversioned call, which has no name.
            if (!fallsBack(rc)) {
                throw nvml.exception(Fn.nvmlDeviceGetGpuInstanceProfileInfoV, rc, at);
            }
            v1.fill((byte) 0);
            rc = nvml.call(Fn.nvmlDeviceGetGpuInstanceProfileInfo, dev, constant, v1);
            if (rc == SUCCESS) {
                out.add(
                        giProfile(
                                constant, v1, NvmlLibrary.GPU_INSTANCE_PROFILE_INFO, gpuMemoryMiB));
            } else if (!absent(rc)) {
                throw nvml.exception(Fn.nvmlDeviceGetGpuInstanceProfileInfo, rc, at);
            }
        }
        return out;
    }

    /** A code after which the versioned call is retried unversioned. */
    private static boolean fallsBack(int rc) {
        return absent(rc) || rc == NvmlReturn.ERROR_ARGUMENT_VERSION_MISMATCH.code();
    }

    /** A code that says "no such profile here": not supported, unknown constant, no function. */
    private static boolean absent(int rc) {
        return rc == NvmlReturn.ERROR_NOT_SUPPORTED.code()
                || rc == NvmlReturn.ERROR_INVALID_ARGUMENT.code()
                || rc == NvmlReturn.ERROR_FUNCTION_NOT_FOUND.code();
    }

    /** A profile read into {@code info} of {@code layout} (v1 or v2). */
    static GiProfile giProfile(
            int constant, MemorySegment info, StructLayout layout, long gpuMemoryMiB) {
        int slices = info.get(JAVA_INT, NvmlLibrary.offset(layout, "sliceCount"));
        long memoryMiB = info.get(JAVA_LONG, NvmlLibrary.offset(layout, "memorySizeMB"));
        Gpu.MigAttributes attributes =
                new Gpu.MigAttributes(
                        memoryMiB,
                        info.get(JAVA_INT, NvmlLibrary.offset(layout, "multiprocessorCount")),
                        slices,
                        slices,
                        new Gpu.Engines(
                                info.get(JAVA_INT, NvmlLibrary.offset(layout, "copyEngineCount")),
                                info.get(JAVA_INT, NvmlLibrary.offset(layout, "decoderCount")),
                                info.get(JAVA_INT, NvmlLibrary.offset(layout, "encoderCount")),
                                info.get(JAVA_INT, NvmlLibrary.offset(layout, "jpegCount")),
                                info.get(JAVA_INT, NvmlLibrary.offset(layout, "ofaCount"))));
        String name = null;
        if (layout == NvmlLibrary.GPU_INSTANCE_PROFILE_INFO_V2) {
            name =
                    NvmlMigNames.fromNvmlName(
                            info.asSlice(
                                            NvmlLibrary.offset(layout, "name"),
                                            NvmlLibrary.DEVICE_STRING_BUFFER)
                                    .getString(0));
        }
        if (name == null) {
            name =
                    NvmlMigNames.derived(
                            slices, slices, memoryMiB, gpuMemoryMiB, NvmlMigNames.suffix(constant));
        }
        return new GiProfile(
                constant,
                info.get(JAVA_INT, NvmlLibrary.offset(layout, "id")),
                name,
                info.get(JAVA_INT, NvmlLibrary.offset(layout, "instanceCount")),
                attributes);
    }

    /** One profile per name, the first constant's (NVML names each profile once). */
    private static List<GiProfile> byName(List<GiProfile> profiles) {
        Map<String, GiProfile> out = new LinkedHashMap<>();
        for (GiProfile p : profiles) {
            out.putIfAbsent(p.name(), p);
        }
        return List.copyOf(out.values());
    }

    /**
     * A compute instance profile of a GPU instance.
     *
     * @param id the id NVML's create and list calls take
     */
    record CiProfile(int constant, int id, int slices, int instanceCount) {}

    /** The compute instance profiles GPU instance {@code gi} offers (shared engines). */
    private List<CiProfile> ciProfiles(Arena arena, MemorySegment gi, String at) {
        MemorySegment v2 = arena.allocate(NvmlLibrary.COMPUTE_INSTANCE_PROFILE_INFO_V2);
        MemorySegment v1 = arena.allocate(NvmlLibrary.COMPUTE_INSTANCE_PROFILE_INFO);
        int shared = NvmlLibrary.COMPUTE_INSTANCE_ENGINE_PROFILE_SHARED;
        List<CiProfile> out = new ArrayList<>();
        for (int constant = 0; constant < CI_PROFILE_CONSTANTS; constant++) {
            v2.fill((byte) 0);
            v2.set(JAVA_INT, 0, NvmlLibrary.COMPUTE_INSTANCE_PROFILE_INFO_V2_VERSION);
            StructLayout layout = NvmlLibrary.COMPUTE_INSTANCE_PROFILE_INFO_V2;
            MemorySegment info = v2;
            int rc =
                    nvml.call(
                            Fn.nvmlGpuInstanceGetComputeInstanceProfileInfoV,
                            gi,
                            constant,
                            shared,
                            v2);
            if (rc != SUCCESS) {
                if (!fallsBack(rc)) {
                    throw nvml.exception(
                            Fn.nvmlGpuInstanceGetComputeInstanceProfileInfoV,
                            rc,
                            at + " compute instance profile constant " + constant);
                }
                v1.fill((byte) 0);
                layout = NvmlLibrary.COMPUTE_INSTANCE_PROFILE_INFO;
                info = v1;
                rc =
                        nvml.call(
                                Fn.nvmlGpuInstanceGetComputeInstanceProfileInfo,
                                gi,
                                constant,
                                shared,
                                v1);
                if (absent(rc)) {
                    continue;
                }
                nvml.check(
                        Fn.nvmlGpuInstanceGetComputeInstanceProfileInfo,
                        rc,
                        at + " compute instance profile constant " + constant);
            }
            out.add(
                    new CiProfile(
                            constant,
                            info.get(JAVA_INT, NvmlLibrary.offset(layout, "id")),
                            info.get(JAVA_INT, NvmlLibrary.offset(layout, "sliceCount")),
                            info.get(JAVA_INT, NvmlLibrary.offset(layout, "instanceCount"))));
        }
        return out;
    }

    /** A GPU instance that exists now, with its compute instances. */
    private record Instance(
            MemorySegment handle, GiProfile profile, int id, List<MemorySegment> cis) {
        String describe() {
            return "GPU instance "
                    + (id < 0 ? "?" : String.valueOf(id))
                    + " ("
                    + profile.name()
                    + ")";
        }
    }

    /** Every GPU instance of the GPU (of every profile it offers) and its compute instances. */
    private List<Instance> instances(
            Arena arena, int gpuIndex, MemorySegment dev, List<GiProfile> profiles) {
        List<Instance> out = new ArrayList<>();
        MemorySegment count = arena.allocate(JAVA_INT);
        MemorySegment info = arena.allocate(NvmlLibrary.GPU_INSTANCE_INFO);
        for (GiProfile p : profiles) {
            String at = "for GPU " + gpuIndex + " profile " + p.name() + " (id " + p.id() + ")";
            MemorySegment gis = arena.allocate(ADDRESS, Math.max(1, p.instanceCount()));
            count.set(JAVA_INT, 0, 0);
            int rc = nvml.call(Fn.nvmlDeviceGetGpuInstances, dev, p.id(), gis, count);
            if (rc == NvmlReturn.ERROR_NOT_SUPPORTED.code()) {
                continue;
            }
            nvml.check(Fn.nvmlDeviceGetGpuInstances, rc, at);
            int n = Math.min(count.get(JAVA_INT, 0), Math.max(1, p.instanceCount()));
            for (int k = 0; k < n; k++) {
                MemorySegment gi = gis.getAtIndex(ADDRESS, k);
                int id = -1;
                if (nvml.call(Fn.nvmlGpuInstanceGetInfo, gi, info) == SUCCESS) {
                    id = info.get(JAVA_INT, NvmlLibrary.GPU_INSTANCE_INFO_ID);
                }
                String giAt = at + " GPU instance " + (id < 0 ? "#" + k : String.valueOf(id));
                List<MemorySegment> cis = new ArrayList<>();
                for (CiProfile c : ciProfiles(arena, gi, giAt)) {
                    MemorySegment arr = arena.allocate(ADDRESS, Math.max(1, c.instanceCount()));
                    count.set(JAVA_INT, 0, 0);
                    int crc =
                            nvml.call(
                                    Fn.nvmlGpuInstanceGetComputeInstances, gi, c.id(), arr, count);
                    if (crc == NvmlReturn.ERROR_NOT_SUPPORTED.code()) {
                        continue;
                    }
                    nvml.check(Fn.nvmlGpuInstanceGetComputeInstances, crc, giAt);
                    int m = Math.min(count.get(JAVA_INT, 0), Math.max(1, c.instanceCount()));
                    for (int j = 0; j < m; j++) {
                        cis.add(arr.getAtIndex(ADDRESS, j));
                    }
                }
                out.add(new Instance(gi, p, id, cis));
            }
        }
        return out;
    }

    // ---------------------------------------------------------------- changing

    @Override
    public synchronized void apply(int gpuIndex, Layout layout) {
        Objects.requireNonNull(layout, "layout");
        MemorySegment dev = inventory.handle(gpuIndex);
        String gpu = "GPU " + gpuIndex;
        try (Arena arena = Arena.ofConfined()) {
            MigMode mode = migMode(arena, gpuIndex, dev);
            if (mode == null) {
                if (!layout.enabled()) {
                    return; // MIG off is all a GPU without MIG can be
                }
                throw new GpuSourceException(
                        gpu
                                + ": not MIG capable ("
                                + inventory.gpus().get(gpuIndex).productName()
                                + "): MIG mode cannot be enabled");
            }
            if (!layout.enabled()) {
                if (!mode.current() && !mode.pending()) {
                    return;
                }
                requireFunctions(gpuIndex, "turn MIG off", PARTITIONING);
                if (mode.current()) {
                    // instances first: MIG mode goes off on an empty GPU
                    List<GiProfile> offered = readProfiles(arena, gpuIndex, dev);
                    destroyAll(arena, gpuIndex, instances(arena, gpuIndex, dev, offered));
                }
                setMigMode(arena, gpuIndex, dev, false);
                return;
            }
            requireFunctions(gpuIndex, "partition it", PARTITIONING);
            List<GiProfile> all = readProfiles(arena, gpuIndex, dev);
            Map<String, GiProfile> offered = profileMap(all);
            if (mode.current() || !offered.isEmpty()) {
                checkKnown(gpuIndex, layout, offered); // before anything changes
            }
            if (!mode.current() || !mode.pending()) {
                setMigMode(arena, gpuIndex, dev, true);
                // profiles are fixed for the lifetime of a MIG mode: read them in the new one
                all = readProfiles(arena, gpuIndex, dev);
                offered = profileMap(all);
                try {
                    checkKnown(gpuIndex, layout, offered);
                } catch (GpuSourceException e) {
                    throw new GpuSourceException(
                            e.getMessage() + " (MIG mode is on now, with no MIG device)");
                }
            }
            List<Instance> now = instances(arena, gpuIndex, dev, all);
            if (has(gpuIndex, now, layout)) {
                return;
            }
            destroyAll(arena, gpuIndex, now);
            create(arena, gpuIndex, dev, layout.devices(), offered);
        }
    }

    /**
     * Whether the GPU already has exactly the layout's devices (in any order: NVML does not keep
     * creation order) and no GPU instance beyond them.
     */
    private boolean has(int gpuIndex, List<Instance> now, Layout layout) {
        if (now.size() != layout.devices().size()
                || now.stream().anyMatch(i -> i.cis().size() != 1)) {
            return false;
        }
        List<String> devices = new ArrayList<>(layout(gpuIndex).devices());
        List<String> want = new ArrayList<>(layout.devices());
        Collections.sort(devices);
        Collections.sort(want);
        return devices.equals(want);
    }

    private static Map<String, GiProfile> profileMap(List<GiProfile> profiles) {
        Map<String, GiProfile> out = new LinkedHashMap<>();
        for (GiProfile p : byName(profiles)) {
            out.put(p.name(), p);
        }
        return out;
    }

    private void checkKnown(int gpuIndex, Layout layout, Map<String, GiProfile> offered) {
        for (String d : layout.devices()) {
            if (!offered.containsKey(d)) {
                throw new GpuSourceException(
                        "GPU "
                                + gpuIndex
                                + ": unknown MIG profile '"
                                + d
                                + "' for "
                                + inventory.gpus().get(gpuIndex).productName()
                                + (offered.isEmpty()
                                        ? ", which offers none"
                                        : "; known: "
                                                + offered.values().stream()
                                                        .sorted(SMALLEST_FIRST)
                                                        .map(GiProfile::name)
                                                        .collect(Collectors.joining(", "))));
            }
        }
    }

    /** The message of a MIG mode change NVML could not activate without a GPU reset. */
    static String resetNeeded(int gpuIndex, boolean enable, String activation) {
        return "GPU "
                + gpuIndex
                + ": MIG mode "
                + (enable ? "enable" : "disable")
                + " is pending: NVML could not activate it now"
                + (activation == null ? "" : " (" + activation + ")")
                + "; a GPU reset (nvidia-smi --gpu-reset -i "
                + gpuIndex
                + ", with no process on the GPU) or a node reboot is needed before it takes"
                + " effect";
    }

    private void setMigMode(Arena arena, int gpuIndex, MemorySegment dev, boolean enable) {
        MemorySegment activation = arena.allocate(JAVA_INT);
        activation.set(JAVA_INT, 0, SUCCESS);
        int rc =
                nvml.call(
                        Fn.nvmlDeviceSetMigMode,
                        dev,
                        enable ? NvmlLibrary.DEVICE_MIG_ENABLE : NvmlLibrary.DEVICE_MIG_DISABLE,
                        activation);
        if (rc != SUCCESS) {
            NvmlException e = nvml.exception(Fn.nvmlDeviceSetMigMode, rc, "for GPU " + gpuIndex);
            throw new GpuSourceException(
                    "GPU "
                            + gpuIndex
                            + ": turning MIG "
                            + (enable ? "on" : "off")
                            + " failed: "
                            + e.getMessage()
                            + hint(rc),
                    e);
        }
        MigMode now = migMode(arena, gpuIndex, dev);
        if (now != null && now.current() == enable) {
            return;
        }
        int status = activation.get(JAVA_INT, 0);
        String activationText =
                status == SUCCESS
                        ? null
                        : "activation: "
                                + nvml.errorString(status)
                                + ", "
                                + NvmlReturn.of(status).headerName();
        if (now != null && now.pending() == enable) {
            throw new GpuResetRequiredException(resetNeeded(gpuIndex, enable, activationText));
        }
        throw new GpuSourceException(
                "GPU "
                        + gpuIndex
                        + ": nvmlDeviceSetMigMode answered success, but MIG mode is "
                        + (now == null ? "unknown" : now.current() ? "on" : "off")
                        + " (pending "
                        + (now == null ? "unknown" : now.pending() ? "on" : "off")
                        + ")"
                        + (activationText == null ? "" : "; " + activationText));
    }

    /** Destroys every compute instance, then every GPU instance. */
    private void destroyAll(Arena arena, int gpuIndex, List<Instance> instances) {
        for (Instance i : instances) {
            for (MemorySegment ci : i.cis()) {
                int rc = nvml.call(Fn.nvmlComputeInstanceDestroy, ci);
                if (rc != SUCCESS) {
                    throw destroyFailed(
                            gpuIndex,
                            nvml.exception(
                                    Fn.nvmlComputeInstanceDestroy,
                                    rc,
                                    "for a compute instance of " + i.describe()));
                }
            }
        }
        for (Instance i : instances) {
            int rc = nvml.call(Fn.nvmlGpuInstanceDestroy, i.handle());
            if (rc != SUCCESS) {
                throw destroyFailed(
                        gpuIndex,
                        nvml.exception(Fn.nvmlGpuInstanceDestroy, rc, "for " + i.describe()));
            }
        }
    }

    private GpuSourceException destroyFailed(int gpuIndex, NvmlException e) {
        return new GpuSourceException(
                "GPU "
                        + gpuIndex
                        + ": destroying its MIG devices failed: "
                        + e.getMessage()
                        + hint(e.rawCode())
                        + "; "
                        + leftWith(gpuIndex),
                e);
    }

    /** Creates one GPU instance and one compute instance spanning it per device, in order. */
    private void create(
            Arena arena,
            int gpuIndex,
            MemorySegment dev,
            List<String> devices,
            Map<String, GiProfile> offered) {
        List<String> created = new ArrayList<>();
        MemorySegment out = arena.allocate(ADDRESS);
        for (int n = 0; n < devices.size(); n++) {
            GiProfile p = offered.get(devices.get(n));
            String step =
                    "creating MIG device "
                            + (n + 1)
                            + " of "
                            + devices.size()
                            + " ("
                            + p.name()
                            + ")";
            int rc = nvml.call(Fn.nvmlDeviceCreateGpuInstance, dev, p.id(), out);
            if (rc != SUCCESS) {
                throw createFailed(
                        gpuIndex,
                        step,
                        created,
                        nvml.exception(
                                Fn.nvmlDeviceCreateGpuInstance,
                                rc,
                                "for profile " + p.name() + " (id " + p.id() + ")"));
            }
            MemorySegment gi = out.get(ADDRESS, 0);
            try {
                String at = "for GPU " + gpuIndex + " profile " + p.name();
                CiProfile spanning =
                        ciProfiles(arena, gi, at).stream()
                                .filter(c -> c.slices() == p.attributes().gpuInstanceSlices())
                                .findFirst()
                                .orElse(null);
                if (spanning == null) {
                    throw new GpuSourceException(
                            "GPU "
                                    + gpuIndex
                                    + ": "
                                    + step
                                    + " failed: NVML offers no compute instance profile of "
                                    + p.attributes().gpuInstanceSlices()
                                    + " slices for its GPU instance; "
                                    + createdBefore(created));
                }
                rc = nvml.call(Fn.nvmlGpuInstanceCreateComputeInstance, gi, spanning.id(), out);
                if (rc != SUCCESS) {
                    throw createFailed(
                            gpuIndex,
                            step,
                            created,
                            nvml.exception(
                                    Fn.nvmlGpuInstanceCreateComputeInstance,
                                    rc,
                                    "for profile "
                                            + p.name()
                                            + " compute instance profile id "
                                            + spanning.id()));
                }
            } catch (RuntimeException e) {
                // no GPU instance without its compute instance is left behind
                int drc = nvml.call(Fn.nvmlGpuInstanceDestroy, gi);
                if (drc != SUCCESS) {
                    e.addSuppressed(
                            nvml.exception(
                                    Fn.nvmlGpuInstanceDestroy,
                                    drc,
                                    "for the GPU instance just created (" + p.name() + ")"));
                }
                throw e;
            }
            created.add(p.name());
        }
    }

    private GpuSourceException createFailed(
            int gpuIndex, String step, List<String> created, NvmlException e) {
        return new GpuSourceException(
                "GPU "
                        + gpuIndex
                        + ": "
                        + step
                        + " failed: "
                        + e.getMessage()
                        + hint(e.rawCode())
                        + "; "
                        + createdBefore(created),
                e);
    }

    private static String createdBefore(List<String> created) {
        return created.isEmpty()
                ? "no MIG device was created before it, the GPU has none now"
                : "the GPU is left with the "
                        + created.size()
                        + " MIG device"
                        + (created.size() == 1 ? "" : "s")
                        + " created before it: "
                        + String.join(",", created);
    }

    /** What the GPU has now, for a message about a change that stopped half way. */
    private String leftWith(int gpuIndex) {
        try {
            Layout now = layout(gpuIndex);
            return now.devices().isEmpty()
                    ? "the GPU has no MIG device now"
                    : "the GPU has MIG devices " + String.join(",", now.devices()) + " now";
        } catch (RuntimeException e) {
            return "what the GPU has now could not be read (" + e.getMessage() + ")";
        }
    }

    /** A word on what a code means for a MIG change. */
    private static String hint(int rc) {
        return switch (NvmlReturn.of(rc)) {
            case ERROR_IN_USE -> " (processes still use the GPU: stop them and retry)";
            case ERROR_INSUFFICIENT_RESOURCES ->
                    " (the GPU has no room left for it: its slices or placements are taken)";
            case ERROR_NO_PERMISSION -> " (changing MIG needs root on the node)";
            default -> "";
        };
    }

    private void requireFunctions(int gpuIndex, String step, List<Fn> fns) {
        List<Fn> missing = new ArrayList<>(fns.stream().filter(f -> !nvml.has(f)).toList());
        if (!nvml.has(Fn.nvmlDeviceGetGpuInstanceProfileInfoV)
                && !nvml.has(Fn.nvmlDeviceGetGpuInstanceProfileInfo)) {
            missing.add(Fn.nvmlDeviceGetGpuInstanceProfileInfo);
        }
        if (!nvml.has(Fn.nvmlGpuInstanceGetComputeInstanceProfileInfoV)
                && !nvml.has(Fn.nvmlGpuInstanceGetComputeInstanceProfileInfo)) {
            missing.add(Fn.nvmlGpuInstanceGetComputeInstanceProfileInfo);
        }
        if (!missing.isEmpty()) {
            throw new GpuSourceException(
                    "GPU " + gpuIndex + ": cannot " + step + ": " + lacks(missing));
        }
    }

    private String lacks(List<Fn> missing) {
        return "the NVML library "
                + nvml.location()
                + " lacks "
                + missing.stream().map(Fn::name).collect(Collectors.joining(", "))
                + ", which MIG partitioning needs (a driver without MIG support?)";
    }

    /** Shuts NVML down. Idempotent. */
    @Override
    public void close() {
        inventory.close();
    }
}
