package org.gpuoperator.node.inventory.nvml;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import org.gpuoperator.node.inventory.Gpu;
import org.gpuoperator.node.inventory.GpuInventory;
import org.gpuoperator.node.inventory.GpuLink;
import org.gpuoperator.node.inventory.GpuMetric;
import org.gpuoperator.node.inventory.GpuSample;
import org.gpuoperator.node.inventory.GpuSourceException;
import org.gpuoperator.node.inventory.GpuSourceOptions;
import org.gpuoperator.node.inventory.HealthEvent;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The FFM binding against the compiled mock libnvidia-ml: real dlopen, symbol lookup, downcalls and
 * struct layouts. Skipped (not passed) when no C compiler is available.
 */
class NvmlGpuInventoryTest {

    @TempDir Path hostRoot;

    private Path library;
    private MockNvml mock;

    @BeforeEach
    void compileMock() {
        Optional<Path> lib = MockNvml.library();
        Assumptions.assumeTrue(
                lib.isPresent(),
                "SKIPPED: no gcc/cc on PATH, so the mock libnvidia-ml.so cannot be built and the FFM binding is not tested");
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

    private NvmlGpuInventory open() {
        return NvmlGpuInventory.open(hostRoot, library);
    }

    @Test
    void readsNodeGpusMigDevicesAndLinks() {
        try (NvmlGpuInventory inv = open()) {
            assertThat(inv.node().driverVersion()).isEqualTo("550.54.15");
            assertThat(inv.node().cudaDriverVersion()).isEqualTo(12040);
            assertThat(inv.node().nvmlVersion()).isEqualTo("12.550.54.15");
            assertThat(inv.describe()).isEqualTo("nvml");
            assertThat(inv.libraryLocation()).isEqualTo(library.toString());

            assertThat(inv.gpus()).hasSize(8);
            Gpu g3 = inv.gpus().get(3);
            assertThat(g3)
                    .isEqualTo(
                            new Gpu(
                                    3,
                                    3,
                                    "GPU-a1000000-0000-4000-8000-000000000003",
                                    "NVIDIA A100-SXM4-40GB",
                                    40960,
                                    "00000000:4E:00.0",
                                    0,
                                    new Gpu.ComputeCapability(8, 0),
                                    new Gpu.Mig(true, false, java.util.List.of())));
            assertThat(inv.gpus().get(5).numaNode()).isEqualTo(1);
            assertThat(inv.gpus().get(7).pciBusId()).isEqualTo("00000000:BD:00.0");

            Gpu.Mig mig = inv.gpus().get(0).mig();
            assertThat(mig.enabled()).isTrue();
            assertThat(mig.devices())
                    .containsExactly(
                            new Gpu.MigDevice(
                                    0,
                                    0,
                                    1,
                                    0,
                                    "MIG-a1000000-0000-4000-8000-000000000001",
                                    "3g.20gb",
                                    new Gpu.MigAttributes(
                                            20096, 42, 3, 3, new Gpu.Engines(3, 2, 0, 0, 0))),
                            // NVML's slot 1 is empty: the slot is NVML's, not the position
                            new Gpu.MigDevice(
                                    0,
                                    2,
                                    5,
                                    0,
                                    "MIG-a1000000-0000-4000-8000-000000000005",
                                    "1g.5gb",
                                    new Gpu.MigAttributes(
                                            4864, 14, 1, 1, new Gpu.Engines(1, 0, 0, 0, 0))));
            assertThat(mig.devices())
                    .extracting(Gpu.MigDevice::index)
                    .containsExactly("0:0", "0:2");

            assertThat(inv.links()).hasSize(28);
            assertThat(inv.links())
                    .contains(
                            new GpuLink(0, 1, GpuLink.Level.NVLINK, 4),
                            new GpuLink(6, 7, GpuLink.Level.NVLINK, 4),
                            new GpuLink(0, 2, GpuLink.Level.NUMA_NODE, 0),
                            new GpuLink(1, 6, GpuLink.Level.SYSTEM, 0));
        }
    }

    @Test
    void olderDriversAndBoardsWithoutAFeatureFallBackOrLeaveItOut() throws Exception {
        // no nvmlDeviceGetNumaNodeId (older driver), GPU 1 without MIG, no NVLink anywhere
        mock.failures(
                "nvmlDeviceGetNumaNodeId:13,nvmlDeviceGetMigMode@1:3,"
                        + "nvmlDeviceGetNvLinkState:3,nvmlDeviceGetP2PStatus:3");
        Path sysfs = Files.createDirectories(hostRoot.resolve("sys/bus/pci/devices/0000:4e:00.0"));
        Files.writeString(sysfs.resolve("numa_node"), "1\n");
        try (NvmlGpuInventory inv = open()) {
            assertThat(inv.gpus().get(3).numaNode()).as("from sysfs").isEqualTo(1);
            assertThat(inv.gpus().get(4).numaNode()).as("unknown").isEqualTo(-1);
            assertThat(inv.gpus().get(1).mig()).isEqualTo(Gpu.Mig.NOT_CAPABLE);
            assertThat(inv.gpus().get(0).mig().devices()).hasSize(2);
            assertThat(inv.links())
                    .hasSize(28)
                    .noneMatch(l -> l.level() == GpuLink.Level.NVLINK)
                    .contains(new GpuLink(0, 1, GpuLink.Level.PCIE_SINGLE_SWITCH, 0));
        }
    }

    @Test
    void oneSampleReadsEveryMetricWithItsUnit() {
        try (NvmlGpuInventory inv = open()) {
            GpuSample s = inv.sample(2);
            assertThat(s.gpuIndex()).isEqualTo(2);
            assertThat(s.values())
                    .containsEntry(GpuMetric.GPU_UTIL, 25.0)
                    .containsEntry(GpuMetric.MEM_COPY_UTIL, 13.0)
                    .containsEntry(GpuMetric.FB_USED_MIB, 3072.0)
                    .containsEntry(GpuMetric.FB_RESERVED_MIB, 512.0)
                    .containsEntry(GpuMetric.FB_FREE_MIB, 40960.0 - 3072 - 512)
                    .containsEntry(GpuMetric.GPU_TEMP_C, 42.0)
                    .containsEntry(GpuMetric.MEMORY_TEMP_C, 47.0)
                    .containsEntry(GpuMetric.POWER_USAGE_W, 103.0)
                    .containsEntry(GpuMetric.SM_CLOCK_MHZ, 1410.0)
                    .containsEntry(GpuMetric.MEM_CLOCK_MHZ, 1215.0)
                    .containsEntry(GpuMetric.ECC_SBE_VOLATILE_TOTAL, 2.0)
                    .containsEntry(GpuMetric.ECC_DBE_VOLATILE_TOTAL, 0.0)
                    .containsEntry(GpuMetric.ECC_SBE_AGGREGATE_TOTAL, 12.0)
                    .containsEntry(GpuMetric.ECC_DBE_AGGREGATE_TOTAL, 1.0)
                    .containsEntry(GpuMetric.PCIE_REPLAY_COUNTER, 4.0)
                    .containsEntry(GpuMetric.PCIE_TX_KBPS, 3000.0)
                    .containsEntry(GpuMetric.PCIE_RX_KBPS, 6000.0)
                    .containsEntry(GpuMetric.NVLINK_BANDWIDTH_TOTAL, 3 * 123456.0)
                    .containsEntry(GpuMetric.XID_LAST, 0.0)
                    .containsEntry(GpuMetric.ENC_UTIL, 4.0)
                    .containsEntry(GpuMetric.DEC_UTIL, 7.0)
                    .containsEntry(GpuMetric.CORRECTABLE_REMAPPED_ROWS, 2.0)
                    .containsEntry(GpuMetric.UNCORRECTABLE_REMAPPED_ROWS, 2.0)
                    .containsEntry(GpuMetric.ROW_REMAP_PENDING, 0.0)
                    .containsEntry(GpuMetric.ROW_REMAP_FAILURE, 0.0)
                    .containsEntry(GpuMetric.RETIRED_SBE, 2.0)
                    .containsEntry(GpuMetric.RETIRED_DBE, 0.0)
                    .containsEntry(GpuMetric.RETIRED_PENDING, 0.0)
                    .containsEntry(GpuMetric.CLOCKS_EVENT_REASONS, 4.0)
                    // policy p of GPU i: (p + 1) * (i + 1) ms, in ns
                    .containsEntry(GpuMetric.POWER_VIOLATION_NS, 3e6)
                    .containsEntry(GpuMetric.THERMAL_VIOLATION_NS, 6e6)
                    .containsEntry(GpuMetric.SYNC_BOOST_VIOLATION_NS, 9e6)
                    .containsEntry(GpuMetric.BOARD_LIMIT_VIOLATION_NS, 12e6)
                    .containsEntry(GpuMetric.LOW_UTIL_VIOLATION_NS, 15e6)
                    .containsEntry(GpuMetric.RELIABILITY_VIOLATION_NS, 18e6)
                    // GPM: percentages as 0..1 ratios, MiB/s as bytes/s
                    .containsEntry(GpuMetric.PROF_GR_ENGINE_ACTIVE, 0.25)
                    .containsEntry(GpuMetric.PROF_SM_ACTIVE, 0.22)
                    .containsEntry(GpuMetric.PROF_SM_OCCUPANCY, 0.10)
                    .containsEntry(GpuMetric.PROF_PIPE_TENSOR_ACTIVE, 0.07)
                    .containsEntry(GpuMetric.PROF_DRAM_ACTIVE, 0.13)
                    .containsEntry(GpuMetric.PROF_PIPE_FP32_ACTIVE, 0.05)
                    .containsEntry(GpuMetric.PROF_PIPE_FP16_ACTIVE, 0.04)
                    .containsEntry(GpuMetric.PROF_PCIE_TX_BYTES, 300.0 * MIB)
                    .containsEntry(GpuMetric.PROF_PCIE_RX_BYTES, 600.0 * MIB)
                    .containsEntry(GpuMetric.PROF_NVLINK_RX_BYTES, 900.0 * MIB)
                    .containsEntry(GpuMetric.PROF_NVLINK_TX_BYTES, 1200.0 * MIB);
            // the mock's GPU 2 has no FP64 pipe metric: that one metric is absent, not zero
            assertThat(s.values())
                    .containsKey(GpuMetric.TOTAL_ENERGY_MJ)
                    .doesNotContainKey(GpuMetric.PROF_PIPE_FP64_ACTIVE)
                    .hasSize(GpuMetric.values().length - 1);
            assertThat(s.timestampMillis()).isCloseTo(System.currentTimeMillis(), within(60_000L));
            double e0 = s.get(GpuMetric.TOTAL_ENERGY_MJ).orElseThrow();
            assertThat(inv.sample(2).get(GpuMetric.TOTAL_ENERGY_MJ).orElseThrow())
                    .isGreaterThan(e0);
        }
    }

    private static final double MIB = 1024.0 * 1024.0;

    @Test
    void rowRemapFailureRetiredPagesAndClockReasonsFollowTheGpu() {
        try (NvmlGpuInventory inv = open()) {
            GpuSample s3 = inv.sample(3);
            assertThat(s3.get(GpuMetric.ROW_REMAP_FAILURE)).hasValue(1.0);
            assertThat(s3.get(GpuMetric.RETIRED_SBE)).as("3 % 3").hasValue(0.0);
            GpuSample s5 = inv.sample(5);
            // asked with no buffer, NVML answers the count with INSUFFICIENT_SIZE: still a count
            assertThat(s5.get(GpuMetric.RETIRED_SBE)).hasValue(2.0);
            assertThat(s5.get(GpuMetric.RETIRED_DBE)).hasValue(1.0);
            assertThat(s5.get(GpuMetric.RETIRED_PENDING)).hasValue(1.0);
            assertThat(inv.sample(0).get(GpuMetric.CLOCKS_EVENT_REASONS)).hasValue(1.0);
        }
    }

    @Test
    void aDriverBefore535GivesClockReasonsUnderTheOldName() {
        mock.failures("nvmlDeviceGetCurrentClocksEventReasons:13");
        try (NvmlGpuInventory inv = open()) {
            assertThat(inv.sample(0).get(GpuMetric.CLOCKS_EVENT_REASONS)).hasValue(1.0);
        }
        mock.failures(
                "nvmlDeviceGetCurrentClocksEventReasons:13,nvmlDeviceGetCurrentClocksThrottleReasons:13,"
                        + "nvmlDeviceGetRemappedRows:3,nvmlDeviceGetViolationStatus:3");
        try (NvmlGpuInventory inv = open()) {
            GpuSample s = inv.sample(1);
            assertThat(s.get(GpuMetric.CLOCKS_EVENT_REASONS)).isEmpty();
            assertThat(s.get(GpuMetric.ROW_REMAP_FAILURE)).isEmpty();
            assertThat(s.get(GpuMetric.POWER_VIOLATION_NS)).isEmpty();
            assertThat(s.get(GpuMetric.ENC_UTIL)).hasValue(2.0);
        }
    }

    @Test
    void profilingComesFromTwoGpmSamplesPerRoundOnGpusThatHaveGpm() {
        int before = mock.gpmSamplesLive();
        try (NvmlGpuInventory inv = open()) {
            // two samples per supported GPU (7 of 8), allocated once at open
            assertThat(mock.gpmSamplesLive() - before).isEqualTo(14);
            assertThat(inv.profilingSupported(4)).isTrue();
            assertThat(inv.profilingSupported(7)).isFalse();
            assertThat(inv.sample(7).values().keySet()).noneMatch(GpuMetric::isProfiling);
            for (int round = 0; round < 3; round++) {
                // every round computes between the sample it takes and the previous round's
                assertThat(inv.sample(4).get(GpuMetric.PROF_GR_ENGINE_ACTIVE)).hasValue(0.45);
                assertThat(inv.sample(4).get(GpuMetric.PROF_PCIE_TX_BYTES)).hasValue(500 * MIB);
            }
            assertThat(mock.gpmSamplesLive() - before).as("no sample per round").isEqualTo(14);
        }
        assertThat(mock.gpmSamplesLive()).as("freed at close").isEqualTo(before);
    }

    @Test
    void withoutGpmOrWhenItFailsTheProfilingMetricsAreAbsent() {
        mock.failures("nvmlGpmQueryDeviceSupport:13");
        try (NvmlGpuInventory inv = open()) {
            assertThat(inv.profilingSupported(0)).isFalse();
            assertThat(inv.sample(1).values().keySet()).noneMatch(GpuMetric::isProfiling);
            assertThat(inv.sample(1).get(GpuMetric.GPU_UTIL)).hasValue(15.0);
        }
        mock.failures("nvmlGpmMetricsGet@1:3");
        try (NvmlGpuInventory inv = open()) {
            assertThat(inv.sample(1).values().keySet()).noneMatch(GpuMetric::isProfiling);
            assertThat(inv.sample(3).get(GpuMetric.PROF_SM_OCCUPANCY)).hasValue(0.14);
        }
        mock.failures("nvmlGpmSampleGet@2:15");
        try (NvmlGpuInventory inv = open()) {
            assertThat(inv.profilingSupported(2)).as("its first sample failed").isFalse();
            mock.failures("nvmlGpmSampleGet@3:15");
            assertThatThrownBy(() -> inv.sample(3))
                    .isInstanceOf(NvmlException.class)
                    .hasMessageContaining("nvmlGpmSampleGet failed for GPU 3");
        }
    }

    @Test
    void notSupportedLeavesTheMetricOutInsteadOfFailing() {
        mock.failures(
                "nvmlDeviceGetPowerUsage@3:3,nvmlDeviceGetFieldValues:3,nvmlDeviceGetMemoryInfo_v2:13");
        try (NvmlGpuInventory inv = open()) {
            GpuSample s3 = inv.sample(3);
            assertThat(s3.get(GpuMetric.POWER_USAGE_W)).isEmpty();
            assertThat(s3.get(GpuMetric.MEMORY_TEMP_C)).isEmpty();
            assertThat(s3.get(GpuMetric.NVLINK_BANDWIDTH_TOTAL)).isEmpty();
            // without nvmlDeviceGetMemoryInfo_v2 the v1 call answers, which knows no reserved
            // memory
            assertThat(s3.get(GpuMetric.FB_USED_MIB)).hasValue(4096.0);
            assertThat(s3.get(GpuMetric.FB_RESERVED_MIB)).isEmpty();
            assertThat(s3.get(GpuMetric.GPU_TEMP_C)).hasValue(43.0);
            assertThat(inv.sample(4).get(GpuMetric.POWER_USAGE_W)).hasValue(106.0);
        }
    }

    @Test
    void anErrorCodeBecomesATypedExceptionWithNvmlsOwnText() {
        mock.failures("nvmlDeviceGetCount_v2:999");
        assertThatThrownBy(this::open)
                .isInstanceOfSatisfying(
                        NvmlException.class,
                        e -> {
                            assertThat(e.function()).isEqualTo("nvmlDeviceGetCount_v2");
                            assertThat(e.code()).isEqualTo(NvmlReturn.ERROR_UNKNOWN);
                            assertThat(e.rawCode()).isEqualTo(999);
                            assertThat(e.errorString()).isEqualTo("Unknown Error");
                        })
                .isInstanceOf(GpuSourceException.class)
                .hasMessage(
                        "nvmlDeviceGetCount_v2 failed: Unknown Error (NVML_ERROR_UNKNOWN, code 999)");
        // the failed open shut NVML down again (checked after each test)
    }

    @Test
    void aLostGpuDuringASampleIsATypedErrorNamingTheGpu() {
        mock.failures("nvmlDeviceGetTemperature@2:15");
        try (NvmlGpuInventory inv = open()) {
            assertThatThrownBy(() -> inv.sample(2))
                    .isInstanceOfSatisfying(
                            NvmlException.class,
                            e -> assertThat(e.code()).isEqualTo(NvmlReturn.ERROR_GPU_IS_LOST))
                    .hasMessageContaining("nvmlDeviceGetTemperature failed for GPU 2: GPU is lost");
            assertThat(inv.sample(1).get(GpuMetric.GPU_TEMP_C)).hasValue(41.0);
            assertThatThrownBy(() -> inv.sample(8))
                    .isInstanceOf(GpuSourceException.class)
                    .hasMessageContaining("index 8");
        }
    }

    @Test
    void aDriverThatDoesNotInitialiseIsNamedApartFromAMissingLibrary() {
        mock.failures("nvmlInit_v2:9");
        assertThatThrownBy(this::open)
                .isExactlyInstanceOf(GpuSourceException.class)
                .hasMessageStartingWith("NVML library ")
                .hasMessageContaining(
                        " found, but nvmlInit_v2 returned NVML_ERROR_DRIVER_NOT_LOADED (9): Driver"
                                + " Not Loaded; the NVIDIA kernel module is not loaded")
                .cause()
                .isInstanceOfSatisfying(
                        NvmlException.class,
                        e -> assertThat(e.code()).isEqualTo(NvmlReturn.ERROR_DRIVER_NOT_LOADED))
                .hasMessageContaining("Driver Not Loaded");
    }

    @Test
    void anInitFailureNamesTheLibraryTheCodeAndTheHintThatFits() {
        assertThat(
                        NvmlGpuInventory.initFailed(
                                "/usr/lib/libnvidia-ml.so.1", 4, "Insufficient Permissions"))
                .isEqualTo(
                        "NVML library /usr/lib/libnvidia-ml.so.1 found, but nvmlInit_v2 returned"
                                + " NVML_ERROR_NO_PERMISSION (4): Insufficient Permissions; this"
                                + " process may not open /dev/nvidia*: run the container with the"
                                + " nvidia runtime (NVIDIA_VISIBLE_DEVICES) or the device nodes"
                                + " mounted");
        assertThat(
                        NvmlGpuInventory.initFailed(
                                "lib", 18, "RM has detected an NVML/RM version mismatch."))
                .contains("NVML_ERROR_LIB_RM_VERSION_MISMATCH (18)")
                .endsWith("a driver upgrade is half done (reboot or reload the module)");
        assertThat(NvmlGpuInventory.initFailed("lib", 77, "Unknown Error"))
                .contains("returned code 77: Unknown Error; see the driver's kernel log");
    }

    @Test
    void aMissingOrForeignLibraryGivesTheOneClearMessage() throws Exception {
        assertThatThrownBy(
                        () ->
                                NvmlGpuInventory.open(
                                        hostRoot, hostRoot.resolve("usr/lib64/libnvidia-ml.so.1")))
                .isExactlyInstanceOf(GpuSourceException.class)
                .hasMessage(NvmlGpuInventory.NOT_FOUND);
        // a real shared library that is not NVML (the JDK's own libjava.so)
        Path notNvml = Path.of(System.getProperty("java.home"), "lib", "libjava.so");
        assertThatThrownBy(() -> NvmlGpuInventory.open(hostRoot, notNvml))
                .isExactlyInstanceOf(GpuSourceException.class)
                .hasMessage(NvmlGpuInventory.NOT_FOUND);
        // through the shared option, as agents open it
        assertThatThrownBy(
                        () ->
                                GpuSourceOptions.of(
                                                "nvml",
                                                hostRoot,
                                                "n",
                                                null,
                                                hostRoot.resolve("missing.so"))
                                        .open())
                .hasMessage(NvmlGpuInventory.NOT_FOUND);
    }

    @Test
    void theLibraryIsFoundUnderTheHostRoot() throws Exception {
        Path lib64 = Files.createDirectories(hostRoot.resolve("run/nvidia/driver/usr/lib64"));
        Files.copy(library, lib64.resolve("libnvidia-ml.so.1"));
        try (GpuInventory inv = GpuSourceOptions.of("nvml", hostRoot, "n").open()) {
            assertThat(((NvmlGpuInventory) inv).libraryLocation())
                    .isEqualTo(lib64.resolve("libnvidia-ml.so.1").toString());
            assertThat(inv.gpus()).hasSize(8);
        }
    }

    @Test
    void theHealthStreamReportsXidsLostAndRecoveredGpus() throws Exception {
        try (NvmlGpuInventory inv = open();
                GpuInventory.HealthWatch watch = inv.watchHealth()) {
            assertThat(watch.next(Duration.ofMillis(50))).isEmpty();

            mock.injectXid(3, 79);
            HealthEvent xid = watch.next(Duration.ofSeconds(5)).orElseThrow();
            assertThat(xid)
                    .extracting(
                            HealthEvent::kind,
                            HealthEvent::gpuIndex,
                            HealthEvent::xid,
                            HealthEvent::uuid)
                    .containsExactly(
                            HealthEvent.Kind.XID,
                            3,
                            79L,
                            "GPU-a1000000-0000-4000-8000-000000000003");
            assertThat(inv.sample(3).get(GpuMetric.XID_LAST)).hasValue(79.0);

            mock.injectXid(0, 94); // the mock scopes GPU 0's errors to its GPU instance 5
            assertThat(watch.next(Duration.ofSeconds(5)))
                    .get()
                    .extracting(HealthEvent::uuid)
                    .isEqualTo("MIG-a1000000-0000-4000-8000-000000000005");

            mock.loseGpu(6);
            assertThat(watch.next(Duration.ofSeconds(5)))
                    .get()
                    .extracting(HealthEvent::kind, HealthEvent::gpuIndex)
                    .containsExactly(HealthEvent.Kind.GPU_LOST, 6);
            assertThatThrownBy(() -> inv.sample(6))
                    .isInstanceOfSatisfying(
                            NvmlException.class,
                            e -> assertThat(e.code()).isEqualTo(NvmlReturn.ERROR_GPU_IS_LOST));

            mock.recoverGpu(6);
            assertThat(watch.next(Duration.ofSeconds(5)))
                    .get()
                    .extracting(HealthEvent::kind, HealthEvent::gpuIndex)
                    .containsExactly(HealthEvent.Kind.RECOVERED, 6);
        }
    }

    @Test
    void closingTheInventoryEndsAWaitingWatchAndLaterCallsFailClearly() throws Exception {
        NvmlGpuInventory inv = open();
        GpuInventory.HealthWatch watch = inv.watchHealth();
        AtomicReference<Object> result = new AtomicReference<>();
        Thread waiter =
                new Thread(
                        () -> {
                            try {
                                result.set(watch.next(Duration.ofSeconds(30)));
                            } catch (Throwable t) {
                                result.set(t);
                            }
                        });
        waiter.start();
        Thread.sleep(100); // let it enter the native wait
        inv.close();
        waiter.join(10_000);
        assertThat(waiter.isAlive()).isFalse();
        assertThat(result.get()).isEqualTo(Optional.empty());
        inv.close(); // idempotent
        assertThatThrownBy(() -> inv.sample(0))
                .isInstanceOf(GpuSourceException.class)
                .hasMessageContaining("closed");
        watch.close();
    }
}
