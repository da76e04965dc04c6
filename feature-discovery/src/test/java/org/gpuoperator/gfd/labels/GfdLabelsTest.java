package org.gpuoperator.gfd.labels;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.gpuoperator.gfd.labels.SimulatedProfileLabelsTest.map;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.IntStream;
import org.gpuoperator.node.deviceconfig.MigStrategy;
import org.gpuoperator.node.inventory.Gpu;
import org.gpuoperator.node.inventory.NodeInfo;
import org.junit.jupiter.api.Test;

/** Sharing, MIG strategies and edge cases of the label computation, over hand-built GPUs. */
class GfdLabelsTest {

    private static final NodeInfo DRIVER = new NodeInfo("550.54.15", 12040, "12.550.54.15");
    private static final Optional<Instant> TS = Optional.of(Instant.ofEpochSecond(1_700_000_000L));

    private static Gpu gpu(int i, String product, long mem, int major, int minor) {
        return new Gpu(
                i,
                i,
                "GPU-" + i,
                product,
                mem,
                "00000000:%02X:00.0".formatted(0x18 + i),
                0,
                new Gpu.ComputeCapability(major, minor),
                Gpu.Mig.NOT_CAPABLE);
    }

    private static Gpu a100(int i, String... migProfiles) {
        List<Gpu.MigDevice> devices = new ArrayList<>();
        for (int gi = 0; gi < migProfiles.length; gi++) {
            String p = migProfiles[gi];
            // NVML's attributes of these A100 40GB profiles
            Gpu.MigAttributes a =
                    p.equals("1g.5gb")
                            ? new Gpu.MigAttributes(4864, 14, 1, 1, new Gpu.Engines(1, 0, 0, 0, 0))
                            : new Gpu.MigAttributes(
                                    20096, 42, 3, 3, new Gpu.Engines(3, 2, 0, 0, 0));
            devices.add(new Gpu.MigDevice(i, gi, gi + 1, 0, "MIG-" + i + "-" + gi, p, a));
        }
        boolean enabled = migProfiles.length > 0 && !migProfiles[0].equals("off");
        return new Gpu(
                i,
                i,
                "GPU-" + i,
                "NVIDIA A100-SXM4-40GB",
                40960,
                "00000000:%02X:00.0".formatted(0x18 + i),
                0,
                new Gpu.ComputeCapability(8, 0),
                new Gpu.Mig(true, enabled, enabled ? devices : List.of()));
    }

    private static Gpu a100EnabledEmpty(int i) {
        return new Gpu(
                i,
                i,
                "GPU-" + i,
                "NVIDIA A100-SXM4-40GB",
                40960,
                "00000000:18:00.0",
                0,
                new Gpu.ComputeCapability(8, 0),
                new Gpu.Mig(true, true, List.of()));
    }

    private static Map<String, String> compute(List<Gpu> gpus, LabelConfig config) {
        return GfdLabels.compute(
                new NodeFacts(DRIVER, gpus, Optional.empty(), List.of()), config, TS, w -> {});
    }

    private static Sharing timeSlicing(boolean rename, Map<String, Integer> replicas) {
        return new Sharing(Sharing.Strategy.TIME_SLICING, rename, replicas);
    }

    @Test
    void timeSlicingMarksTheProductSharedAndCountsReplicasPerGpu() {
        Map<String, String> l =
                compute(
                        List.of(gpu(0, "Tesla T4", 15360, 7, 5)),
                        new LabelConfig(
                                MigStrategy.NONE, timeSlicing(false, Map.of("nvidia.com/gpu", 4))));

        assertThat(l)
                .containsAllEntriesOf(
                        map(
                                "gpu.product",
                                "Tesla-T4-SHARED",
                                "gpu.replicas",
                                "4",
                                "gpu.sharing-strategy",
                                "time-slicing",
                                "gpu.count",
                                "1",
                                "mps.capable",
                                "false"));
    }

    @Test
    void mpsMarksTheNodeMpsCapableAndTheProductSharedUnlessAGpuIsInMigMode() {
        Sharing mps = new Sharing(Sharing.Strategy.MPS, false, Map.of("nvidia.com/gpu", 2));
        Map<String, String> l =
                compute(
                        List.of(gpu(0, "Tesla T4", 15360, 7, 5)),
                        new LabelConfig(MigStrategy.NONE, mps));
        assertThat(l)
                .containsAllEntriesOf(
                        map(
                                "gpu.product",
                                "Tesla-T4-SHARED",
                                "gpu.replicas",
                                "2",
                                "gpu.sharing-strategy",
                                "mps",
                                "mps.capable",
                                "true"));

        List<String> warnings = new java.util.ArrayList<>();
        Map<String, String> mig =
                GfdLabels.compute(
                        new NodeFacts(
                                DRIVER, List.of(a100EnabledEmpty(0)), Optional.empty(), List.of()),
                        new LabelConfig(MigStrategy.MIXED, mps),
                        TS,
                        warnings::add);
        assertThat(mig).containsEntry("nvidia.com/mps.capable", "false");
        assertThat(warnings).anyMatch(w -> w.contains("GPU 0 is in MIG mode"));
    }

    @Test
    void renamedSharedResourcesKeepThePlainProductName() {
        Map<String, String> l =
                compute(
                        List.of(gpu(0, "Tesla T4", 15360, 7, 5)),
                        new LabelConfig(
                                MigStrategy.NONE, timeSlicing(true, Map.of("nvidia.com/gpu", 4))));

        assertThat(l)
                .containsAllEntriesOf(
                        map(
                                "gpu.product",
                                "Tesla-T4",
                                "gpu.replicas",
                                "4",
                                "gpu.sharing-strategy",
                                "time-slicing"));
    }

    @Test
    void sharingOfAnotherResourceLeavesFullGpusUnshared() {
        Map<String, String> l =
                compute(
                        List.of(gpu(0, "Tesla T4", 15360, 7, 5)),
                        new LabelConfig(
                                MigStrategy.NONE,
                                timeSlicing(false, Map.of("nvidia.com/mig-1g.5gb", 4))));

        assertThat(l)
                .containsAllEntriesOf(
                        map(
                                "gpu.product",
                                "Tesla-T4",
                                "gpu.replicas",
                                "1",
                                "gpu.sharing-strategy",
                                "none"));
    }

    @Test
    void mixedStrategySharingOfOneMigProfile() {
        Map<String, String> l =
                compute(
                        List.of(a100(0, "3g.20gb", "1g.5gb", "1g.5gb")),
                        new LabelConfig(
                                MigStrategy.MIXED,
                                timeSlicing(false, Map.of("nvidia.com/mig-1g.5gb", 3))));

        assertThat(l)
                .containsAllEntriesOf(
                        map(
                                "mig-1g.5gb.product", "NVIDIA-A100-SXM4-40GB-MIG-1g.5gb-SHARED",
                                "mig-1g.5gb.replicas", "3",
                                "mig-1g.5gb.sharing-strategy", "time-slicing",
                                "mig-1g.5gb.count", "2",
                                "mig-3g.20gb.product", "NVIDIA-A100-SXM4-40GB-MIG-3g.20gb",
                                "mig-3g.20gb.replicas", "1",
                                "mig-3g.20gb.sharing-strategy", "none",
                                "gpu.replicas", "0",
                                "gpu.sharing-strategy", "none"));
    }

    @Test
    void singleStrategyWithOneProfileLabelsMigDevicesAsGpus() {
        List<Gpu> gpus =
                IntStream.range(0, 2)
                        .mapToObj(
                                i ->
                                        a100(
                                                i, "1g.5gb", "1g.5gb", "1g.5gb", "1g.5gb", "1g.5gb",
                                                "1g.5gb", "1g.5gb"))
                        .toList();

        Map<String, String> l = compute(gpus, new LabelConfig(MigStrategy.SINGLE, Sharing.NONE));

        assertThat(l)
                .containsAllEntriesOf(
                        map(
                                "mig.strategy", "single",
                                "gpu.product", "NVIDIA-A100-SXM4-40GB-MIG-1g.5gb",
                                "gpu.count", "14",
                                "gpu.replicas", "1",
                                "gpu.sharing-strategy", "none",
                                "gpu.memory", "4864",
                                "gpu.multiprocessors", "14",
                                "gpu.slices.gi", "1",
                                "gpu.slices.ci", "1",
                                "gpu.engines.copy", "1",
                                "gpu.engines.decoder", "0",
                                "gpu.engines.encoder", "0",
                                "gpu.engines.jpeg", "0",
                                "gpu.engines.ofa", "0",
                                // architecture labels stay those of the whole GPU
                                "gpu.family", "ampere",
                                "gpu.compute.major", "8",
                                "gpu.compute.minor", "0"));
        assertThat(l.keySet()).noneMatch(k -> k.startsWith("nvidia.com/mig-"));
    }

    @Test
    void singleStrategyWithMixedMigModesOrAnEmptyMigGpuIsInvalid() {
        Map<String, String> invalid =
                map(
                        "gpu.product",
                        "NVIDIA-A100-SXM4-40GB-MIG-INVALID",
                        "gpu.count",
                        "0",
                        "gpu.replicas",
                        "0",
                        "gpu.sharing-strategy",
                        "",
                        "gpu.memory",
                        "0");
        LabelConfig single = new LabelConfig(MigStrategy.SINGLE, Sharing.NONE);

        assertThat(compute(List.of(a100(0, "1g.5gb"), a100(1, "off")), single))
                .containsAllEntriesOf(invalid);
        assertThat(compute(List.of(a100(0, "1g.5gb"), a100EnabledEmpty(1)), single))
                .containsAllEntriesOf(invalid);
        // No MIG-enabled GPU at all: single behaves like none.
        assertThat(compute(List.of(a100(0, "off")), single))
                .containsAllEntriesOf(
                        map(
                                "gpu.product",
                                "NVIDIA-A100-SXM4-40GB",
                                "gpu.count",
                                "1",
                                "mig.strategy",
                                "single"));
    }

    @Test
    void mixedStrategyIgnoresMigGpusWithoutDevices() {
        Map<String, String> l =
                compute(
                        List.of(a100EnabledEmpty(0)),
                        new LabelConfig(MigStrategy.MIXED, Sharing.NONE));

        assertThat(l.keySet()).noneMatch(k -> k.startsWith("nvidia.com/mig-"));
        assertThat(l).containsEntry("nvidia.com/gpu.replicas", "0");
    }

    @Test
    void wholeGpusOverrideMigEnabledGpusOfTheSameModel() {
        Map<String, String> l =
                compute(
                        List.of(a100(0, "1g.5gb"), a100(1, "off"), a100(2, "off")),
                        LabelConfig.DEFAULT);

        assertThat(l)
                .containsAllEntriesOf(
                        map(
                                "gpu.count",
                                "3",
                                "gpu.replicas",
                                "1",
                                "gpu.product",
                                "NVIDIA-A100-SXM4-40GB"));
    }

    @Test
    void withSeveralModelsTheMostNumerousWinsAndAWarningIsGiven() {
        List<String> warnings = new ArrayList<>();
        Map<String, String> l =
                GfdLabels.compute(
                        new NodeFacts(
                                DRIVER,
                                List.of(
                                        gpu(0, "Tesla T4", 15360, 7, 5),
                                        gpu(1, "NVIDIA L4", 23034, 8, 9),
                                        gpu(2, "NVIDIA L4", 23034, 8, 9)),
                                Optional.empty(),
                                List.of()),
                        LabelConfig.DEFAULT,
                        TS,
                        warnings::add);

        assertThat(l)
                .containsAllEntriesOf(
                        map(
                                "gpu.product",
                                "NVIDIA-L4",
                                "gpu.count",
                                "2",
                                "gpu.family",
                                "ada-lovelace",
                                "gpu.memory",
                                "23034"));
        assertThat(warnings).singleElement().asString().contains("multiple GPU models");
    }

    @Test
    void noGpusLeavesOnlyTheTimestamp() {
        assertThat(compute(List.of(), LabelConfig.DEFAULT))
                .isEqualTo(map("gfd.timestamp", "1700000000"));
        assertThat(
                        GfdLabels.compute(
                                new NodeFacts(DRIVER, List.of(), Optional.empty(), List.of()),
                                LabelConfig.DEFAULT,
                                Optional.empty(),
                                w -> {}))
                .isEmpty();
    }

    @Test
    void noTimestampLeavesItOut() {
        Map<String, String> l =
                GfdLabels.compute(
                        new NodeFacts(
                                DRIVER,
                                List.of(gpu(0, "Tesla T4", 15360, 7, 5)),
                                Optional.empty(),
                                List.of()),
                        LabelConfig.DEFAULT,
                        Optional.empty(),
                        w -> {});

        assertThat(l).doesNotContainKey(GfdLabels.TIMESTAMP).containsKey("nvidia.com/gpu.product");
    }

    @Test
    void gpuModeFromPciClasses() {
        assertThat(GfdLabels.gpuMode(List.of("0x030200", "0x030200"))).contains("compute");
        assertThat(GfdLabels.gpuMode(List.of("0x030000"))).contains("graphics");
        assertThat(GfdLabels.gpuMode(List.of("0x030200", "0x030000"))).contains("unknown");
        assertThat(GfdLabels.gpuMode(List.of("0x038000"))).contains("unknown");
        assertThat(GfdLabels.gpuMode(List.of())).isEmpty();
        Map<String, String> l =
                GfdLabels.compute(
                        new NodeFacts(
                                DRIVER,
                                List.of(gpu(0, "Tesla T4", 15360, 7, 5)),
                                Optional.empty(),
                                List.of("0x030200")),
                        LabelConfig.DEFAULT,
                        TS,
                        w -> {});
        assertThat(l).containsEntry("nvidia.com/gpu.mode", "compute");
    }

    @Test
    void twoPartDriverVersionsHaveAnEmptyRevision() {
        assertThat(GfdLabels.versionLabels("470.57", 11, 4))
                .containsAllEntriesOf(
                        map(
                                "cuda.driver.major",
                                "470",
                                "cuda.driver.minor",
                                "57",
                                "cuda.driver.rev",
                                "",
                                "cuda.driver-version.revision",
                                "",
                                "cuda.driver-version.full",
                                "470.57",
                                "cuda.runtime-version.full",
                                "11.4"));
    }

    @Test
    void malformedDriverVersionsAreRefused() {
        assertThatThrownBy(() -> GfdLabels.versionLabels("550", 12, 4))
                .isInstanceOf(LabelException.class)
                .hasMessageContaining("\"550\"")
                .hasMessageContaining("X.Y[.Z]");
        assertThatThrownBy(() -> GfdLabels.versionLabels("1.2.3.4", 12, 4))
                .isInstanceOf(LabelException.class);
    }

    @Test
    void nvmlPlusProfilesBecomeDottedResourceNames() {
        Gpu a100 =
                new Gpu(
                        0,
                        0,
                        "GPU-0",
                        "NVIDIA A100-SXM4-40GB",
                        40960,
                        "00000000:18:00.0",
                        0,
                        new Gpu.ComputeCapability(8, 0),
                        new Gpu.Mig(
                                true,
                                true,
                                List.of(
                                        new Gpu.MigDevice(
                                                0,
                                                0,
                                                1,
                                                0,
                                                "MIG-0",
                                                "1g.5gb+me",
                                                new Gpu.MigAttributes(
                                                        4864,
                                                        14,
                                                        1,
                                                        1,
                                                        new Gpu.Engines(1, 1, 0, 1, 1))))));

        Map<String, String> l =
                compute(List.of(a100), new LabelConfig(MigStrategy.MIXED, Sharing.NONE));

        assertThat(l)
                .containsAllEntriesOf(
                        map(
                                "mig-1g.5gb.me.product",
                                "NVIDIA-A100-SXM4-40GB-MIG-1g.5gb.me",
                                "mig-1g.5gb.me.count",
                                "1",
                                "mig-1g.5gb.me.engines.decoder",
                                "1",
                                "mig-1g.5gb.me.engines.ofa",
                                "1"));
        assertThat(l.keySet()).allMatch(GfdKeys::owned);
    }

    @Test
    void invalidLabelValuesAreLeftOutWithAWarning() {
        List<String> warnings = new ArrayList<>();
        Map<String, String> l =
                GfdLabels.compute(
                        new NodeFacts(
                                DRIVER,
                                List.of(gpu(0, "Tesla T4", 15360, 7, 5)),
                                Optional.of("A".repeat(70)),
                                List.of()),
                        LabelConfig.DEFAULT,
                        TS,
                        warnings::add);
        Map<String, String> trailingDash =
                GfdLabels.compute(
                        new NodeFacts(
                                DRIVER,
                                List.of(gpu(0, "Tesla T4", 15360, 7, 5)),
                                Optional.of("Custom Box -"),
                                List.of()),
                        LabelConfig.DEFAULT,
                        TS,
                        warnings::add);

        assertThat(l)
                .doesNotContainKey("nvidia.com/gpu.machine")
                .containsKey("nvidia.com/gpu.product");
        assertThat(trailingDash).doesNotContainKey("nvidia.com/gpu.machine");
        assertThat(warnings).hasSize(2).allMatch(w -> w.contains("nvidia.com/gpu.machine"));
        // the empty values upstream publishes (cuda.driver.rev for X.Y, the invalid single set) are
        // valid
        assertThat(
                        GfdLabels.compute(
                                new NodeFacts(
                                        new NodeInfo("470.57", 11040, "x"),
                                        List.of(gpu(0, "Tesla T4", 15360, 7, 5)),
                                        Optional.empty(),
                                        List.of()),
                                LabelConfig.DEFAULT,
                                TS,
                                w -> {}))
                .containsEntry("nvidia.com/cuda.driver.rev", "");
    }

    @Test
    void migSlicesAndEnginesAreNvmlsOnAnyGpuModel() {
        // an A30 and a compute-instance profile: no table here knows either; NVML says
        Gpu a30 =
                new Gpu(
                        0,
                        0,
                        "GPU-0",
                        "NVIDIA A30",
                        24576,
                        "00000000:18:00.0",
                        0,
                        new Gpu.ComputeCapability(8, 0),
                        new Gpu.Mig(
                                true,
                                true,
                                List.of(
                                        new Gpu.MigDevice(
                                                0,
                                                0,
                                                1,
                                                0,
                                                "MIG-0",
                                                "1c.2g.12gb",
                                                new Gpu.MigAttributes(
                                                        11904,
                                                        14,
                                                        2,
                                                        1,
                                                        new Gpu.Engines(2, 2, 0, 1, 1))))));
        List<String> warnings = new ArrayList<>();
        Map<String, String> l =
                GfdLabels.compute(
                        new NodeFacts(DRIVER, List.of(a30), Optional.empty(), List.of()),
                        new LabelConfig(MigStrategy.MIXED, Sharing.NONE),
                        TS,
                        warnings::add);

        assertThat(l)
                .containsAllEntriesOf(
                        map(
                                "mig-1c.2g.12gb.memory", "11904",
                                "mig-1c.2g.12gb.slices.gi", "2",
                                "mig-1c.2g.12gb.slices.ci", "1",
                                "mig-1c.2g.12gb.engines.copy", "2",
                                "mig-1c.2g.12gb.engines.decoder", "2",
                                "mig-1c.2g.12gb.engines.encoder", "0",
                                "mig-1c.2g.12gb.engines.jpeg", "1",
                                "mig-1c.2g.12gb.engines.ofa", "1"));
        assertThat(warnings).isEmpty();
    }
}
