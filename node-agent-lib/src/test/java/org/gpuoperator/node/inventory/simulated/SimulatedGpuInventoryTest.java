package org.gpuoperator.node.inventory.simulated;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Optional;
import org.gpuoperator.node.inventory.Gpu;
import org.gpuoperator.node.inventory.GpuInventory;
import org.gpuoperator.node.inventory.GpuLink;
import org.gpuoperator.node.inventory.GpuMetric;
import org.gpuoperator.node.inventory.GpuSample;
import org.gpuoperator.node.inventory.GpuSource;
import org.gpuoperator.node.inventory.GpuSourceException;
import org.gpuoperator.node.inventory.HealthEvent;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SimulatedGpuInventoryTest {

    @TempDir Path hostRoot;

    private SimulatedGpuInventory open(String profile, String node) {
        return new SimulatedGpuInventory(
                SimulatedProfiles.builtIn().get(profile), node, hostRoot, Clock.systemUTC());
    }

    @Test
    void inAContainerWithoutTheHostsProcTheNodeReportsTheVersionOfTheInjectedNvmlLibrary(
            @TempDir Path container) throws Exception {
        SimulatedGpuInventory inv =
                new SimulatedGpuInventory(
                        SimulatedProfiles.builtIn().get("t4-x1"),
                        "n",
                        container.resolve("host"),
                        container,
                        Clock.systemUTC());
        String profileVersion = SimulatedProfiles.builtIn().get("t4-x1").driverVersion();
        assertThat(inv.node().driverVersion()).isEqualTo(profileVersion);
        Path libs = container.resolve("usr/lib/x86_64-linux-gnu");
        java.nio.file.Files.createDirectories(libs);
        java.nio.file.Files.writeString(libs.resolve("libnvidia-ml.so.580.65.06"), "");
        java.nio.file.Files.writeString(libs.resolve("libcuda.so.580.65.06"), "");
        assertThat(inv.node().driverVersion())
                .as("the runtime injected the new driver's NVML")
                .isEqualTo("580.65.06");
        java.nio.file.Files.writeString(libs.resolve("libnvidia-ml.so.570.172.08"), "");
        assertThat(inv.node().driverVersion())
                .as("two versions: not one driver, the profile's stays")
                .isEqualTo(profileVersion);
    }

    @Test
    void theNodeReportsTheDriverVersionTheSimulatedAgentLoadedWithItsLibrary() throws Exception {
        SimulatedGpuInventory inv = open("t4-x1", "n");
        String profileVersion = SimulatedProfiles.builtIn().get("t4-x1").driverVersion();
        assertThat(inv.node().driverVersion()).isEqualTo(profileVersion);
        Path version = hostRoot.resolve("proc/driver/nvidia/version");
        java.nio.file.Files.createDirectories(version.getParent());
        java.nio.file.Files.writeString(
                version,
                "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  570.172.08  (simulated)\n");
        assertThat(inv.node().driverVersion())
                .as("no NVML library of that version in the driver root: a mismatch")
                .isEqualTo(profileVersion);
        Path nvml =
                hostRoot.resolve(
                        "run/nvidia/driver/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.570.172.08");
        java.nio.file.Files.createDirectories(nvml.getParent());
        java.nio.file.Files.writeString(nvml, "");
        assertThat(inv.node().driverVersion()).isEqualTo("570.172.08");
        assertThat(inv.node().nvmlVersion()).endsWith(".570.172.08");
        java.nio.file.Files.delete(version);
        assertThat(inv.node().driverVersion()).isEqualTo(profileVersion);
    }

    @Test
    void builtInProfilesMatchTheirNames() {
        SimulatedProfiles p = SimulatedProfiles.builtIn();
        assertThat(p.names()).contains("h100-80gb-x8", "a100-40gb-x8", "t4-x1", "l4-x2");
        assertThat(open("h100-80gb-x8", "n").gpus())
                .hasSize(8)
                .allSatisfy(g -> assertThat(g.productName()).isEqualTo("NVIDIA H100 80GB HBM3"));
        assertThat(open("a100-40gb-x8", "n").gpus())
                .allSatisfy(
                        g -> {
                            assertThat(g.mig().capable()).isTrue();
                            assertThat(g.compute()).isEqualTo(new Gpu.ComputeCapability(8, 0));
                        });
        assertThat(open("t4-x1", "n").gpus())
                .singleElement()
                .satisfies(g -> assertThat(g.mig().capable()).isFalse());
        assertThat(open("l4-x2", "n").gpus()).hasSize(2);
    }

    @Test
    void uuidsAreDeterministicPerNodeAndIndexAndDifferAcrossNodes() {
        var a1 = open("h100-80gb-x8", "node-a").gpus();
        var a2 = open("h100-80gb-x8", "node-a").gpus();
        var b = open("h100-80gb-x8", "node-b").gpus();
        assertThat(a1).isEqualTo(a2);
        assertThat(a1.get(0).uuid())
                .matches("GPU-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}");
        assertThat(a1.stream().map(Gpu::uuid).distinct()).hasSize(8);
        assertThat(a1.get(3).uuid()).isNotEqualTo(b.get(3).uuid());
        assertThat(a1.get(5).uuid()).isEqualTo(SimulatedGpuInventory.gpuUuid("node-a", 5));
    }

    @Test
    void nvswitchProfileLinksEveryPairAndPcieProfileDoesNot() {
        assertThat(open("h100-80gb-x8", "n").links())
                .hasSize(28)
                .allSatisfy(l -> assertThat(l.level()).isEqualTo(GpuLink.Level.NVLINK));
        assertThat(open("l4-x2", "n").links())
                .singleElement()
                .satisfies(l -> assertThat(l.level()).isEqualTo(GpuLink.Level.PCIE_HOST_BRIDGE));
    }

    @Test
    void migMixedProfileHasMigDevicesWithStableUuids() {
        var gpus = open("a100-40gb-x8-mig-mixed", "n").gpus();
        assertThat(gpus.get(0).mig().enabled()).isTrue();
        assertThat(gpus.get(0).mig().devices())
                .extracting(Gpu.MigDevice::profile)
                .containsExactly("3g.20gb", "2g.10gb", "1g.5gb", "1g.5gb");
        assertThat(gpus.get(1).mig().devices().get(2).uuid())
                .isEqualTo(SimulatedGpuInventory.migUuid("n", 1, 3));
        assertThat(gpus.get(1).mig().devices())
                .extracting(Gpu.MigDevice::index)
                .containsExactly("1:0", "1:1", "1:2", "1:3");
        // what NVML's attributes would say: slices from the name, engines from the profile
        assertThat(gpus.get(0).mig().devices().getFirst().attributes())
                .isEqualTo(new Gpu.MigAttributes(20096, 42, 3, 3, new Gpu.Engines(3, 2, 0, 0, 0)));
        assertThat(gpus.get(0).mig().devices().get(2).attributes().engines())
                .isEqualTo(new Gpu.Engines(1, 0, 0, 0, 0));
    }

    @Test
    void samplesAreInPlausibleRangesAndMoveOverTime() {
        Instant t0 = Instant.parse("2026-01-01T00:00:00Z");
        var p = SimulatedProfiles.builtIn().get("h100-80gb-x8");
        GpuSample s0 =
                new SimulatedGpuInventory(p, "n", hostRoot, Clock.fixed(t0, ZoneOffset.UTC))
                        .sample(0);
        GpuSample s1 =
                new SimulatedGpuInventory(
                                p, "n", hostRoot, Clock.fixed(t0.plusSeconds(15), ZoneOffset.UTC))
                        .sample(0);
        assertThat(s0.get(GpuMetric.GPU_UTIL).getAsDouble()).isBetween(0.0, 100.0);
        assertThat(s0.get(GpuMetric.GPU_TEMP_C).getAsDouble()).isBetween(20.0, 100.0);
        assertThat(s0.get(GpuMetric.POWER_USAGE_W).getAsDouble()).isBetween(70.0, 700.0);
        double used = s0.get(GpuMetric.FB_USED_MIB).getAsDouble();
        double free = s0.get(GpuMetric.FB_FREE_MIB).getAsDouble();
        double reserved = s0.get(GpuMetric.FB_RESERVED_MIB).getAsDouble();
        assertThat(used + free + reserved).isEqualTo(81559.0);
        assertThat(s1.get(GpuMetric.GPU_UTIL)).isNotEqualTo(s0.get(GpuMetric.GPU_UTIL));
        assertThat(s1.get(GpuMetric.TOTAL_ENERGY_MJ).getAsDouble())
                .isGreaterThan(s0.get(GpuMetric.TOTAL_ENERGY_MJ).getAsDouble());
    }

    /** A clock the test moves. */
    private static final class MovableClock extends Clock {
        private Instant now;

        MovableClock(Instant start) {
            now = start;
        }

        void advance(Duration d) {
            now = now.plus(d);
        }

        @Override
        public Instant instant() {
            return now;
        }

        @Override
        public java.time.ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(java.time.ZoneId zone) {
            return this;
        }
    }

    @Test
    void hopperGpusReportProfilingConsistentWithTheirUtilisation() {
        var clock = new MovableClock(Instant.parse("2026-01-01T00:00:00Z"));
        var h100 =
                new SimulatedGpuInventory(
                        SimulatedProfiles.builtIn().get("h100-80gb-x8"), "n", hostRoot, clock);
        for (int round = 0; round < 6; round++) {
            GpuSample s = h100.sample(round % 8);
            double util = s.get(GpuMetric.GPU_UTIL).getAsDouble();
            assertThat(s.get(GpuMetric.PROF_GR_ENGINE_ACTIVE)).hasValue(util / 100);
            assertThat(s.get(GpuMetric.PROF_DRAM_ACTIVE))
                    .hasValue(s.get(GpuMetric.MEM_COPY_UTIL).getAsDouble() / 100);
            for (GpuMetric m :
                    new GpuMetric[] {
                        GpuMetric.PROF_SM_ACTIVE,
                        GpuMetric.PROF_SM_OCCUPANCY,
                        GpuMetric.PROF_PIPE_TENSOR_ACTIVE,
                        GpuMetric.PROF_PIPE_FP64_ACTIVE,
                        GpuMetric.PROF_PIPE_FP32_ACTIVE,
                        GpuMetric.PROF_PIPE_FP16_ACTIVE
                    }) {
                assertThat(s.get(m).getAsDouble()).as(m.name()).isBetween(0.0, util / 100);
            }
            assertThat(s.get(GpuMetric.PROF_PCIE_TX_BYTES))
                    .hasValue(s.get(GpuMetric.PCIE_TX_KBPS).getAsDouble() * 1024);
            assertThat(s.get(GpuMetric.PROF_NVLINK_TX_BYTES).getAsDouble()).isPositive();
            clock.advance(Duration.ofSeconds(7));
        }
        assertThat(h100.profilingSupported(0)).isTrue();
        assertThat(h100.profilingSupported(8)).isFalse();
        for (String noGpm : new String[] {"a100-40gb-x8", "t4-x1", "l4-x2"}) {
            SimulatedGpuInventory inv = open(noGpm, "n");
            assertThat(inv.profilingSupported(0)).as(noGpm).isFalse();
            assertThat(inv.sample(0).values().keySet()).as(noGpm).noneMatch(GpuMetric::isProfiling);
        }
    }

    @Test
    void violationTimesGrowAndMemoryRepairFollowsTheArchitectureAndItsXids() {
        var clock = new MovableClock(Instant.parse("2026-01-01T00:00:00Z"));
        var a100 =
                new SimulatedGpuInventory(
                        SimulatedProfiles.builtIn().get("a100-40gb-x8"), "n", hostRoot, clock);
        assertThat(a100.sample(0).get(GpuMetric.POWER_VIOLATION_NS)).hasValue(0.0);
        clock.advance(Duration.ofSeconds(10));
        GpuSample later = a100.sample(0);
        assertThat(later.get(GpuMetric.POWER_VIOLATION_NS)).hasValue(0.02 * 10e9);
        assertThat(later.get(GpuMetric.LOW_UTIL_VIOLATION_NS)).hasValue(0.1 * 10e9);
        assertThat(later.get(GpuMetric.THERMAL_VIOLATION_NS)).hasValue(0.0);
        assertThat(later.get(GpuMetric.ROW_REMAP_FAILURE)).hasValue(0.0);
        assertThat(later.get(GpuMetric.RETIRED_SBE)).as("Ampere remaps rows").isEmpty();

        new SimulatedFaults(hostRoot).injectXid(1, 64);
        GpuSample failed = a100.sample(1);
        assertThat(failed.get(GpuMetric.ROW_REMAP_FAILURE)).hasValue(1.0);
        assertThat(failed.get(GpuMetric.UNCORRECTABLE_REMAPPED_ROWS)).hasValue(1.0);
        new SimulatedFaults(hostRoot).injectXid(1, 63);
        assertThat(a100.sample(1).get(GpuMetric.ROW_REMAP_PENDING)).hasValue(1.0);

        GpuSample t4 = open("t4-x1", "n").sample(0);
        assertThat(t4.get(GpuMetric.RETIRED_DBE)).as("Turing retires pages").hasValue(0.0);
        assertThat(t4.get(GpuMetric.ROW_REMAP_FAILURE)).isEmpty();
    }

    @Test
    void injectedFaultsAppearOnTheHealthStreamAndRecover() throws Exception {
        try (GpuInventory inv = open("h100-80gb-x8", "n");
                GpuInventory.HealthWatch watch = inv.watchHealth()) {
            assertThat(watch.next(Duration.ofMillis(150))).isEmpty();
            SimulatedFaults faults = new SimulatedFaults(hostRoot);
            faults.injectXid(2, 79);
            HealthEvent e = watch.next(Duration.ofSeconds(2)).orElseThrow();
            assertThat(e.kind()).isEqualTo(HealthEvent.Kind.XID);
            assertThat(e.gpuIndex()).isEqualTo(2);
            assertThat(e.xid()).isEqualTo(79);
            assertThat(e.uuid()).isEqualTo(inv.gpus().get(2).uuid());
            assertThat(inv.sample(2).get(GpuMetric.XID_LAST).getAsDouble()).isEqualTo(79.0);

            faults.loseGpu(5);
            assertThat(watch.next(Duration.ofSeconds(2)))
                    .get()
                    .extracting(HealthEvent::kind, HealthEvent::gpuIndex)
                    .containsExactly(HealthEvent.Kind.GPU_LOST, 5);
            assertThatThrownBy(() -> inv.sample(5))
                    .isInstanceOf(GpuSourceException.class)
                    .hasMessageContaining("lost");

            faults.recover(2);
            Optional<HealthEvent> r = watch.next(Duration.ofSeconds(2));
            assertThat(r)
                    .get()
                    .extracting(HealthEvent::kind, HealthEvent::gpuIndex)
                    .containsExactly(HealthEvent.Kind.RECOVERED, 2);
        }
    }

    @Test
    void aFaultIsReadableByAgentsThatRunAsAnotherUser() throws Exception {
        SimulatedFaults faults = new SimulatedFaults(hostRoot);
        faults.loseGpu(3);
        assertThat(Files.getPosixFilePermissions(faults.directory().resolve("gpu-3")))
                .contains(PosixFilePermission.OTHERS_READ);
        assertThat(Files.readString(faults.directory().resolve("gpu-3"))).isEqualTo("lost\n");
        assertThat(Files.list(faults.directory()).map(f -> f.getFileName().toString()))
                .as("no temp file left")
                .containsExactly("gpu-3");
        faults.injectXid(3, 79);
        assertThat(faults.active()).containsOnlyKeys(3);
        assertThat(faults.active().get(3).xid()).isEqualTo(79);
    }

    @Test
    void faultsPresentBeforeTheWatchOpensAreReportedFirst() throws Exception {
        new SimulatedFaults(hostRoot).injectXid(1, 48);
        try (GpuInventory inv = open("l4-x2", "n");
                GpuInventory.HealthWatch watch = inv.watchHealth()) {
            assertThat(watch.next(Duration.ofMillis(10)))
                    .get()
                    .extracting(HealthEvent::xid)
                    .isEqualTo(48L);
        }
    }

    @Test
    void gpuSourceParsesBothFormsAndRejectsOthers() {
        assertThat(GpuSource.parse("nvml").simulated()).isFalse();
        assertThat(GpuSource.parse(null).simulated()).isFalse();
        assertThat(GpuSource.parse("simulated:t4-x1"))
                .isEqualTo(new GpuSource(GpuSource.Kind.SIMULATED, "t4-x1"));
        assertThatThrownBy(() -> GpuSource.parse("simulated:"))
                .hasMessageContaining("simulated:<profile>");
        assertThatThrownBy(() -> GpuSource.parse("cuda")).hasMessageContaining("'cuda'");
        assertThatThrownBy(() -> GpuSource.parse("simulated:nope").open(hostRoot, "n", null))
                .isInstanceOf(GpuSourceException.class)
                .hasMessageContaining("unknown simulated GPU profile 'nope'")
                .hasMessageContaining("h100-80gb-x8");
    }

    @Test
    void builtInProfilesAreParsedOnceAndSharedReadOnlyWhileTheUsersFileIsReadAtEachOpen()
            throws Exception {
        SimulatedProfile first = SimulatedProfiles.builtIn().get("a100-40gb-x8-mig-mixed");
        assertThat(SimulatedProfiles.builtIn().get("a100-40gb-x8-mig-mixed")).isSameAs(first);
        assertThatThrownBy(() -> first.migDevices().add("1g.5gb"))
                .isInstanceOf(UnsupportedOperationException.class);
        assertThatThrownBy(() -> first.migProfiles().clear())
                .isInstanceOf(UnsupportedOperationException.class);
        Path f = hostRoot.resolve("changing.yaml");
        String mini =
                """
                profiles:
                  mini:
                    product: NVIDIA A10
                    count: %d
                    memoryMiB: 23028
                    computeCapability: "8.6"
                    driverVersion: 550.54.15
                    cudaDriverVersion: 12040
                """;
        java.nio.file.Files.writeString(f, mini.formatted(1));
        assertThat(SimulatedProfiles.withUserFile(f).get("mini").count()).isEqualTo(1);
        java.nio.file.Files.writeString(f, mini.formatted(2));
        assertThat(SimulatedProfiles.withUserFile(f).get("mini").count()).isEqualTo(2);
    }

    @Test
    void userProfilesExtendAndBadOnesNameTheField() throws Exception {
        Path f = hostRoot.resolve("p.yaml");
        java.nio.file.Files.writeString(
                f,
                """
                profiles:
                  mini:
                    product: NVIDIA A10
                    count: 3
                    memoryMiB: 23028
                    computeCapability: "8.6"
                    driverVersion: 550.54.15
                    cudaDriverVersion: 12040
                """);
        assertThat(SimulatedProfiles.withUserFile(f).get("mini").count()).isEqualTo(3);
        assertThat(SimulatedProfiles.withUserFile(f).names()).contains("h100-80gb-x8", "mini");
        java.nio.file.Files.writeString(
                f,
                "profiles:\n  bad:\n    product: X\n    computeCapability: \"8.0\"\n    count: many\n");
        assertThatThrownBy(() -> SimulatedProfiles.withUserFile(f))
                .hasMessageContaining(f.toString())
                .hasMessageContaining("profiles.bad.count");
    }

    @Test
    void inconsistentUserProfilesAreRejectedWithTheField() throws Exception {
        Path f = hostRoot.resolve("p.yaml");
        String base =
                """
                profiles:
                  odd:
                    product: NVIDIA A10
                    count: 2
                    memoryMiB: 23028
                    computeCapability: "8.6"
                    driverVersion: 550.54.15
                    cudaDriverVersion: 12040
                """;
        java.nio.file.Files.writeString(f, base + "    numaNodes: 0\n");
        assertThatThrownBy(() -> SimulatedProfiles.withUserFile(f))
                .hasMessageContaining("profiles.odd.numaNodes");
        java.nio.file.Files.writeString(
                f,
                base
                        + """
                    migProfiles: {1g.6gb: {memoryMiB: 5888, multiprocessors: 18}}
                    mig: {enabled: true, devices: [1g.6gb]}
                """);
        assertThatThrownBy(() -> SimulatedProfiles.withUserFile(f))
                .hasMessageContaining("profiles.odd.mig.enabled: the profile is not migCapable");
        java.nio.file.Files.writeString(
                f,
                base
                        + """
                    migCapable: true
                    migProfiles: {small: {memoryMiB: 5888, multiprocessors: 18}}
                """);
        assertThatThrownBy(() -> SimulatedProfiles.withUserFile(f))
                .hasMessageContaining(
                        "profiles.odd.migProfiles.small: a MIG profile is named"
                                + " [<c>c.]<g>g.<memory>gb[.<suffix>]");
        java.nio.file.Files.writeString(
                f,
                base
                        + """
                    migCapable: true
                    migProfiles: {1g.6gb: {memoryMiB: 5888, multiprocessors: 18, engines: {copy: x}}}
                """);
        assertThatThrownBy(() -> SimulatedProfiles.withUserFile(f))
                .hasMessageContaining(
                        "profiles.odd.migProfiles.1g.6gb.engines.copy: expected an integer, got 'x'");
    }

    @Test
    void everySourceGivesTheSameShapeThroughTheSharedOptions() {
        try (GpuInventory inv =
                org.gpuoperator.node.inventory.GpuSourceOptions.of(
                                "simulated:a100-40gb-x8-mig-mixed", hostRoot, "node-z")
                        .open()) {
            assertThat(inv.describe()).isEqualTo("simulated:a100-40gb-x8-mig-mixed");
            assertThat(inv.gpus())
                    .hasSize(8)
                    .allSatisfy(g -> assertThat(g.mig().devices()).hasSize(4));
            assertThat(inv.gpus().get(0).uuid())
                    .isEqualTo(SimulatedGpuInventory.gpuUuid("node-z", 0));
            assertThat(inv.node().cudaMajor()).isEqualTo(12);
            assertThat(inv.node().cudaMinor()).isEqualTo(4);
        }
    }
}
