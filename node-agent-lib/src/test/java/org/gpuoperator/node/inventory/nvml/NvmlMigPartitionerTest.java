package org.gpuoperator.node.inventory.nvml;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.lang.foreign.Arena;
import java.lang.foreign.SymbolLookup;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.gpuoperator.node.inventory.Gpu;
import org.gpuoperator.node.inventory.GpuResetRequiredException;
import org.gpuoperator.node.inventory.GpuSource;
import org.gpuoperator.node.inventory.GpuSourceException;
import org.gpuoperator.node.inventory.GpuSourceOptions;
import org.gpuoperator.node.inventory.MigPartitioner;
import org.gpuoperator.node.inventory.MigPartitioner.Layout;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * MIG partitioning through the real FFM binding against the compiled mock libnvidia-ml, whose GPUs
 * are A100 40GB: MIG mode, GPU and compute instances with the A100's slice and placement rules.
 * Skipped (not passed) when no C compiler is available. Not run against a real GPU.
 */
class NvmlMigPartitionerTest {

    private static final Gpu.MigAttributes ONE_G =
            new Gpu.MigAttributes(4864, 14, 1, 1, new Gpu.Engines(1, 0, 0, 0, 0));
    private static final Layout ALL_1G = new Layout(true, List.of(times(7, "1g.5gb")));
    private static final Layout BALANCED =
            new Layout(true, List.of("3g.20gb", "2g.10gb", "1g.5gb", "1g.5gb"));

    @TempDir Path hostRoot;

    private Path library;
    private MockNvml mock;

    @BeforeEach
    void compileMock() {
        Optional<Path> lib = MockNvml.library();
        Assumptions.assumeTrue(
                lib.isPresent(),
                "SKIPPED: no gcc/cc on PATH, so the mock libnvidia-ml.so cannot be built and MIG"
                        + " partitioning through NVML is not tested");
        library = lib.get();
        mock = MockNvml.control();
        mock.reset();
    }

    @AfterEach
    void noNvmlLeftInitialised() {
        if (mock != null) {
            assertThat(mock.initCount())
                    .as("every nvmlInit_v2 is matched by nvmlShutdown")
                    .isZero();
            mock.reset();
        }
    }

    private NvmlMigPartitioner open() {
        return NvmlMigPartitioner.open(hostRoot, library);
    }

    private NvmlGpuInventory inventory() {
        return NvmlGpuInventory.open(hostRoot, library);
    }

    private static String[] times(int n, String profile) {
        return Collections.nCopies(n, profile).toArray(String[]::new);
    }

    @Test
    void profilesAreTheA100sNamedAsTheInventoryNamesMigDevices() {
        try (NvmlMigPartitioner mig = open()) {
            Map<String, Gpu.MigAttributes> p = mig.profiles(0);
            assertThat(p.keySet())
                    .as("smallest first, then by name")
                    .containsExactly(
                            "1g.10gb",
                            "1g.5gb",
                            "1g.5gb+me",
                            "2g.10gb",
                            "3g.20gb",
                            "4g.20gb",
                            "7g.40gb");
            assertThat(p.get("1g.5gb")).isEqualTo(ONE_G);
            assertThat(p.get("1g.5gb+me"))
                    .isEqualTo(
                            new Gpu.MigAttributes(4864, 14, 1, 1, new Gpu.Engines(1, 1, 0, 1, 1)));
            assertThat(p.get("1g.10gb"))
                    .isEqualTo(
                            new Gpu.MigAttributes(9856, 14, 1, 1, new Gpu.Engines(1, 1, 0, 0, 0)));
            assertThat(p.get("7g.40gb"))
                    .isEqualTo(
                            new Gpu.MigAttributes(40192, 98, 7, 7, new Gpu.Engines(7, 5, 0, 1, 1)));
            // the profiles of a MIG device in use are what the inventory reads of it
            try (NvmlGpuInventory inv = inventory()) {
                for (Gpu.MigDevice d : inv.gpus().get(0).mig().devices()) {
                    assertThat(p).containsEntry(d.profile(), d.attributes());
                }
            }
            // GPU 1 has MIG off: the versioned call answers NOT_SUPPORTED, the unversioned one
            // (no name) gives the same profiles, named from slices, memory and constant
            assertThat(mig.profiles(1)).isEqualTo(p);
        }
    }

    @Test
    void aDriverWithoutTheVersionedCallOrWithoutMigGivesWhatItCan() {
        mock.failures("nvmlDeviceGetGpuInstanceProfileInfoV:13,nvmlDeviceGetMigMode@2:3");
        try (NvmlMigPartitioner mig = open()) {
            assertThat(mig.profiles(0).keySet())
                    .containsExactly(
                            "1g.10gb",
                            "1g.5gb",
                            "1g.5gb+me",
                            "2g.10gb",
                            "3g.20gb",
                            "4g.20gb",
                            "7g.40gb");
            assertThat(mig.profiles(2)).as("not MIG capable").isEmpty();
            assertThat(mig.layout(2)).isEqualTo(Layout.DISABLED);
            mig.apply(2, Layout.DISABLED); // all it can be: nothing to do
            assertThatThrownBy(() -> mig.apply(2, ALL_1G))
                    .isExactlyInstanceOf(GpuSourceException.class)
                    .hasMessage(
                            "GPU 2: not MIG capable (NVIDIA A100-SXM4-40GB): MIG mode cannot be"
                                    + " enabled");
            assertThat(mock.migChanges()).isZero();
        }
    }

    @Test
    void fromMigOffToSevenOneSliceDevicesAndBack() {
        try (NvmlMigPartitioner mig = open()) {
            assertThat(mig.layout(1)).isEqualTo(Layout.DISABLED);

            mig.apply(1, ALL_1G);

            assertThat(mig.layout(1)).isEqualTo(ALL_1G);
            try (NvmlGpuInventory inv = inventory()) {
                Gpu gpu = inv.gpus().get(1);
                assertThat(Layout.of(gpu)).isEqualTo(ALL_1G);
                assertThat(gpu.mig().devices())
                        .hasSize(7)
                        .allSatisfy(
                                d -> {
                                    assertThat(d.profile()).isEqualTo("1g.5gb");
                                    assertThat(d.attributes()).isEqualTo(ONE_G);
                                    assertThat(d.uuid()).startsWith("MIG-");
                                });
                assertThat(gpu.mig().devices())
                        .extracting(Gpu.MigDevice::index)
                        .containsExactly("1:0", "1:1", "1:2", "1:3", "1:4", "1:5", "1:6");
                assertThat(gpu.mig().devices().stream().map(Gpu.MigDevice::uuid).distinct())
                        .hasSize(7);
                assertThat(
                                Set.copyOf(
                                        gpu.mig().devices().stream()
                                                .map(Gpu.MigDevice::gpuInstanceId)
                                                .toList()))
                        .hasSize(7);
                assertThat(inv.gpus().get(2).mig().enabled()).as("other GPUs untouched").isFalse();
            }

            mig.apply(1, Layout.DISABLED);

            assertThat(mig.layout(1)).isEqualTo(Layout.DISABLED);
            try (NvmlGpuInventory inv = inventory()) {
                assertThat(inv.gpus().get(1).mig()).isEqualTo(new Gpu.Mig(true, false, List.of()));
            }
        }
    }

    @Test
    void aMixedLayoutReplacesTheDevicesTheGpuHad() {
        try (NvmlMigPartitioner mig = open()) {
            assertThat(mig.layout(0)).isEqualTo(new Layout(true, List.of("3g.20gb", "1g.5gb")));

            mig.apply(0, BALANCED);

            assertThat(mig.layout(0)).isEqualTo(BALANCED);
            try (NvmlGpuInventory inv = inventory()) {
                List<Gpu.MigDevice> devices = inv.gpus().get(0).mig().devices();
                assertThat(devices)
                        .extracting(Gpu.MigDevice::profile)
                        .containsExactly("3g.20gb", "2g.10gb", "1g.5gb", "1g.5gb");
                assertThat(devices.get(1).attributes())
                        .isEqualTo(
                                new Gpu.MigAttributes(
                                        9856, 28, 2, 2, new Gpu.Engines(2, 1, 0, 0, 0)));
                assertThat(devices).extracting(Gpu.MigDevice::computeInstanceId).containsOnly(0);
            }
            // and a layout of every other kind the A100 holds
            for (Layout l :
                    List.of(
                            new Layout(true, List.of("7g.40gb")),
                            new Layout(true, List.of("4g.20gb", "3g.20gb")),
                            new Layout(true, List.of(times(4, "1g.10gb"))),
                            new Layout(
                                    true, List.of("2g.10gb", "2g.10gb", "2g.10gb", "1g.5gb+me")))) {
                mig.apply(0, l);
                assertThat(mig.layout(0)).isEqualTo(l);
            }
        }
    }

    @Test
    void moreThanTheGpuHoldsFailsWithNvmlsErrorAndSaysWhatWasCreated() {
        try (NvmlMigPartitioner mig = open()) {
            Layout eight = new Layout(true, List.of(times(8, "1g.5gb")));
            assertThatThrownBy(() -> mig.apply(2, eight))
                    .isExactlyInstanceOf(GpuSourceException.class)
                    .hasMessage(
                            "GPU 2: creating MIG device 8 of 8 (1g.5gb) failed:"
                                    + " nvmlDeviceCreateGpuInstance failed for profile 1g.5gb (id 19):"
                                    + " Insufficient Resources (NVML_ERROR_INSUFFICIENT_RESOURCES,"
                                    + " code 23) (the GPU has no room left for it: its slices or"
                                    + " placements are taken); the GPU is left with the 7 MIG devices"
                                    + " created before it: "
                                    + String.join(",", times(7, "1g.5gb")))
                    .cause()
                    .isInstanceOfSatisfying(
                            NvmlException.class,
                            e ->
                                    assertThat(e.code())
                                            .isEqualTo(NvmlReturn.ERROR_INSUFFICIENT_RESOURCES));
            assertThat(mig.layout(2)).as("what the message says").isEqualTo(ALL_1G);

            // placements, not only slices: a 4g and a 3g take all 8 memory slices
            assertThatThrownBy(
                            () ->
                                    mig.apply(
                                            3,
                                            new Layout(
                                                    true, List.of("4g.20gb", "3g.20gb", "1g.5gb"))))
                    .hasMessageStartingWith("GPU 3: creating MIG device 3 of 3 (1g.5gb) failed:")
                    .hasMessageContaining("NVML_ERROR_INSUFFICIENT_RESOURCES")
                    .hasMessageEndingWith("created before it: 4g.20gb,3g.20gb");
            // one media-extension instance per GPU
            assertThatThrownBy(
                            () -> mig.apply(4, new Layout(true, List.of("1g.5gb+me", "1g.5gb+me"))))
                    .hasMessageContaining("creating MIG device 2 of 2 (1g.5gb+me) failed");
        }
    }

    @Test
    void anUnknownProfileIsRefusedBeforeAnythingChanges() {
        try (NvmlMigPartitioner mig = open()) {
            assertThatThrownBy(() -> mig.apply(1, new Layout(true, List.of("1g.5gb", "9g.99gb"))))
                    .isExactlyInstanceOf(GpuSourceException.class)
                    .hasMessage(
                            "GPU 1: unknown MIG profile '9g.99gb' for NVIDIA A100-SXM4-40GB; known:"
                                    + " 1g.10gb, 1g.5gb, 1g.5gb+me, 2g.10gb, 3g.20gb, 4g.20gb,"
                                    + " 7g.40gb");
            assertThat(mock.migChanges()).isZero();
            assertThat(mig.layout(1)).isEqualTo(Layout.DISABLED);
        }
    }

    @Test
    void aModeChangeThatNeedsAResetIsRefusedSayingSo() {
        mock.migActivation(3, NvmlReturn.ERROR_RESET_REQUIRED.code());
        try (NvmlMigPartitioner mig = open()) {
            assertThatThrownBy(() -> mig.apply(3, ALL_1G))
                    .isExactlyInstanceOf(GpuResetRequiredException.class)
                    .hasMessage(
                            "GPU 3: MIG mode enable is pending: NVML could not activate it now"
                                    + " (activation: GPU requires reset, NVML_ERROR_RESET_REQUIRED);"
                                    + " a GPU reset (nvidia-smi --gpu-reset -i 3, with no process on"
                                    + " the GPU) or a node reboot is needed before it takes effect");
            assertThat(mig.layout(3))
                    .as("the current mode is what counts")
                    .isEqualTo(Layout.DISABLED);
            // asked again before the reset: the same answer, nothing else done
            assertThatThrownBy(() -> mig.apply(3, ALL_1G)).hasMessageContaining("is pending");

            mock.resetGpu(3);
            assertThat(mig.layout(3)).isEqualTo(new Layout(true, List.of()));
            mig.apply(3, ALL_1G);
            assertThat(mig.layout(3)).isEqualTo(ALL_1G);

            // turning MIG off needs the reset too
            assertThatThrownBy(() -> mig.apply(3, Layout.DISABLED))
                    .hasMessageStartingWith("GPU 3: MIG mode disable is pending");
            assertThat(mig.layout(3))
                    .as("the instances went first")
                    .isEqualTo(new Layout(true, List.of()));
            mock.resetGpu(3);
            assertThat(mig.layout(3)).isEqualTo(Layout.DISABLED);
        }
    }

    @Test
    void theLayoutAGpuAlreadyHasChangesNothing() {
        try (NvmlMigPartitioner mig = open()) {
            mig.apply(0, mig.layout(0));
            mig.apply(0, new Layout(true, List.of("1g.5gb", "3g.20gb"))); // another order
            mig.apply(1, Layout.DISABLED);
            assertThat(mock.migChanges()).as("no NVML call that changes MIG state").isZero();

            mig.apply(1, BALANCED);
            int afterOne = mock.migChanges();
            assertThat(afterOne)
                    .as("set mode, then a GPU and a compute instance per device")
                    .isEqualTo(1 + 2 * 4);
            mig.apply(1, BALANCED);
            assertThat(mock.migChanges()).isEqualTo(afterOne);
        }
    }

    @Test
    void processesOnTheGpuStopTheChangeWithTheirReason() {
        mock.failures("nvmlComputeInstanceDestroy@0:19");
        try (NvmlMigPartitioner mig = open()) {
            assertThatThrownBy(() -> mig.apply(0, ALL_1G))
                    .isExactlyInstanceOf(GpuSourceException.class)
                    .hasMessageStartingWith(
                            "GPU 0: destroying its MIG devices failed: nvmlComputeInstanceDestroy"
                                    + " failed for a compute instance of GPU instance 5 (1g.5gb): In"
                                    + " use by another client (NVML_ERROR_IN_USE, code 19) (processes"
                                    + " still use the GPU: stop them and retry)")
                    .hasMessageEndingWith("the GPU has MIG devices 3g.20gb,1g.5gb now");
            assertThat(mig.layout(0)).isEqualTo(new Layout(true, List.of("3g.20gb", "1g.5gb")));
            assertThatThrownBy(() -> mig.apply(0, Layout.DISABLED)).hasMessageContaining("In use");
            assertThat(mig.layout(0).enabled()).isTrue();

            mock.failures(null);
            mig.apply(0, ALL_1G);
            assertThat(mig.layout(0)).isEqualTo(ALL_1G);
        }
    }

    @Test
    void aComputeInstanceThatCannotBeCreatedLeavesNoGpuInstanceBehind() {
        mock.failures("nvmlGpuInstanceCreateComputeInstance@4:23");
        try (NvmlMigPartitioner mig = open()) {
            assertThatThrownBy(() -> mig.apply(4, new Layout(true, List.of("7g.40gb"))))
                    .hasMessage(
                            "GPU 4: creating MIG device 1 of 1 (7g.40gb) failed:"
                                    + " nvmlGpuInstanceCreateComputeInstance failed for profile"
                                    + " 7g.40gb compute instance profile id 4: Insufficient Resources"
                                    + " (NVML_ERROR_INSUFFICIENT_RESOURCES, code 23) (the GPU has no"
                                    + " room left for it: its slices or placements are taken); no MIG"
                                    + " device was created before it, the GPU has none now");
            mock.failures(null);
            // no orphan GPU instance holds the slices: the whole GPU fits again
            mig.apply(4, new Layout(true, List.of("7g.40gb")));
            assertThat(mig.layout(4)).isEqualTo(new Layout(true, List.of("7g.40gb")));
        }
    }

    @Test
    void aDriverWithoutThePartitioningCallsStillReadsAndRefusesChangesNamingThem() {
        SymbolLookup real = SymbolLookup.libraryLookup(library, Arena.ofAuto());
        Set<String> gone = Set.of("nvmlDeviceCreateGpuInstance", "nvmlDeviceSetMigMode");
        NvmlLibrary lib =
                new NvmlLibrary(
                        library.toString(),
                        name -> gone.contains(name) ? Optional.empty() : real.find(name));
        try (NvmlMigPartitioner mig =
                new NvmlMigPartitioner(NvmlGpuInventory.open(lib, hostRoot))) {
            assertThat(mig.layout(0).devices()).containsExactly("3g.20gb", "1g.5gb");
            assertThat(mig.profiles(0)).containsKey("1g.5gb");
            assertThatThrownBy(() -> mig.apply(1, ALL_1G))
                    .isExactlyInstanceOf(GpuSourceException.class)
                    .hasMessage(
                            "GPU 1: cannot partition it: the NVML library "
                                    + library
                                    + " lacks nvmlDeviceSetMigMode, nvmlDeviceCreateGpuInstance, which"
                                    + " MIG partitioning needs (a driver without MIG support?)");
            assertThatThrownBy(() -> mig.apply(0, Layout.DISABLED))
                    .hasMessageStartingWith("GPU 0: cannot turn MIG off: the NVML library ");
            mig.apply(1, Layout.DISABLED); // already so: nothing to call
        }
    }

    @Test
    void theNvmlSourceOpensThisPartitioner() {
        MigPartitioner viaSource =
                GpuSource.parse("nvml").openPartitioner(hostRoot, "n", null, library);
        try (NvmlMigPartitioner mig = (NvmlMigPartitioner) viaSource) {
            assertThat(mig.libraryLocation()).isEqualTo(library.toString());
            assertThat(mig.layout(5)).isEqualTo(Layout.DISABLED);
        }
        MigPartitioner viaOptions =
                GpuSourceOptions.of("nvml", hostRoot, "n", null, library).openPartitioner();
        try (NvmlMigPartitioner mig = (NvmlMigPartitioner) viaOptions) {
            assertThatThrownBy(() -> mig.layout(8))
                    .isInstanceOf(GpuSourceException.class)
                    .hasMessageContaining("index 8");
        }
        NvmlMigPartitioner closed = open();
        closed.close();
        closed.close(); // idempotent
        assertThatThrownBy(() -> closed.apply(0, ALL_1G)).hasMessageContaining("closed");
    }

    @Test
    void derivedNamesFollowTheGpusMemoryShare() {
        assertThat(NvmlMigNames.derived(1, 1, 4864, 40960, "")).isEqualTo("1g.5gb");
        assertThat(NvmlMigNames.derived(1, 1, 4864, 40960, "+me")).isEqualTo("1g.5gb+me");
        assertThat(NvmlMigNames.derived(3, 3, 20096, 40960, "")).isEqualTo("3g.20gb");
        assertThat(NvmlMigNames.derived(7, 7, 40192, 40960, "")).isEqualTo("7g.40gb");
        assertThat(NvmlMigNames.derived(1, 1, 19968, 81920, "")).isEqualTo("1g.20gb");
        assertThat(NvmlMigNames.derived(3, 3, 40448, 81559, "")).isEqualTo("3g.40gb");
        assertThat(NvmlMigNames.derived(1, 1, 11008, 95830, "")).isEqualTo("1g.12gb");
        assertThat(NvmlMigNames.derived(3, 1, 20096, 40960, "")).isEqualTo("1c.3g.20gb");
        assertThat(NvmlMigNames.derived(2, 1, 9984, 0, "")).isEqualTo("1c.2g.10gb");
        assertThat(NvmlMigNames.suffix(NvmlLibrary.GPU_INSTANCE_PROFILE_1_SLICE_REV1))
                .isEqualTo("+me");
        assertThat(NvmlMigNames.suffix(0xA)).isEqualTo("+gfx");
        assertThat(NvmlMigNames.suffix(0xD)).isEqualTo("-me");
        assertThat(NvmlMigNames.suffix(0xF)).isEqualTo("+me.all");
        assertThat(NvmlMigNames.suffix(0x9)).isEmpty();
        assertThat(NvmlMigNames.fromNvmlName("MIG 1g.5gb+me")).isEqualTo("1g.5gb+me");
        assertThat(NvmlMigNames.fromNvmlName("NVIDIA H100 80GB HBM3 MIG 1c.3g.40gb"))
                .isEqualTo("1c.3g.40gb");
        assertThat(NvmlMigNames.fromNvmlName("NVIDIA A100-SXM4-40GB")).isNull();
        assertThat(NvmlMigNames.fromNvmlName("")).isNull();
    }

    @Test
    void theMigStructsHaveNvmlHeaderSizes() {
        assertThat(NvmlLibrary.GPU_INSTANCE_PROFILE_INFO.byteSize()).isEqualTo(48);
        assertThat(NvmlLibrary.GPU_INSTANCE_PROFILE_INFO_V2.byteSize()).isEqualTo(152);
        assertThat(NvmlLibrary.offset(NvmlLibrary.GPU_INSTANCE_PROFILE_INFO_V2, "memorySizeMB"))
                .isEqualTo(48);
        assertThat(NvmlLibrary.GPU_INSTANCE_PROFILE_INFO_V2_VERSION).isEqualTo(0x02000098);
        assertThat(NvmlLibrary.COMPUTE_INSTANCE_PROFILE_INFO.byteSize()).isEqualTo(36);
        assertThat(NvmlLibrary.COMPUTE_INSTANCE_PROFILE_INFO_V2.byteSize()).isEqualTo(136);
        assertThat(NvmlLibrary.COMPUTE_INSTANCE_PROFILE_INFO_V2_VERSION).isEqualTo(0x02000088);
        assertThat(NvmlLibrary.GPU_INSTANCE_INFO.byteSize()).isEqualTo(24);
        List<String> names = new ArrayList<>();
        for (NvmlLibrary.Fn f : NvmlMigPartitioner.PARTITIONING) {
            assertThat(f.required).as(f + " is optional").isFalse();
            names.add(f.name());
        }
        assertThat(names).contains("nvmlDeviceSetMigMode", "nvmlComputeInstanceDestroy");
    }
}
