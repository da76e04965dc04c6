package org.gpuoperator.gfd.labels;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.gpuoperator.node.deviceconfig.MigStrategy;
import org.gpuoperator.node.inventory.GpuInventory;
import org.gpuoperator.node.inventory.GpuSourceOptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The complete label set for each built-in simulated profile, as upstream GFD would publish it for
 * that GPU. The expected maps are written out from the reference (label keys, value formats, family
 * table, the profile's NVML facts), not produced by the code under test.
 */
class SimulatedProfileLabelsTest {

    private static final Instant TS = Instant.ofEpochSecond(1_724_632_719L);

    @TempDir Path hostRoot;

    private Map<String, String> labels(
            String profile, LabelConfig config, Optional<String> machine) {
        try (GpuInventory inv =
                GpuSourceOptions.of("simulated:" + profile, hostRoot, "node-a").open()) {
            return GfdLabels.compute(
                    new NodeFacts(inv.node(), inv.gpus(), machine, List.of()),
                    config,
                    Optional.of(TS),
                    w -> {});
        }
    }

    static Map<String, String> map(String... kv) {
        Map<String, String> m = new TreeMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put("nvidia.com/" + kv[i], kv[i + 1]);
        }
        return m;
    }

    /** Driver 550.54.15 with CUDA 12.4 (NVML 12040): both the deprecated and the current keys. */
    static Map<String, String> driver550() {
        return map(
                "cuda.driver.major",
                "550",
                "cuda.driver.minor",
                "54",
                "cuda.driver.rev",
                "15",
                "cuda.runtime.major",
                "12",
                "cuda.runtime.minor",
                "4",
                "cuda.driver-version.major",
                "550",
                "cuda.driver-version.minor",
                "54",
                "cuda.driver-version.revision",
                "15",
                "cuda.driver-version.full",
                "550.54.15",
                "cuda.runtime-version.major",
                "12",
                "cuda.runtime-version.minor",
                "4",
                "cuda.runtime-version.full",
                "12.4");
    }

    static Map<String, String> merged(Map<String, String> a, Map<String, String> b) {
        Map<String, String> m = new TreeMap<>(a);
        m.putAll(b);
        return m;
    }

    @Test
    void h100x8() {
        Map<String, String> expected =
                merged(
                        driver550(),
                        map(
                                "gfd.timestamp", "1724632719",
                                "gpu.machine", "DGX-H100",
                                "mig.capable", "true",
                                "mps.capable", "false",
                                "gpu.product", "NVIDIA-H100-80GB-HBM3",
                                "gpu.count", "8",
                                "gpu.replicas", "1",
                                "gpu.sharing-strategy", "none",
                                "gpu.memory", "81559",
                                "gpu.family", "hopper",
                                "gpu.compute.major", "9",
                                "gpu.compute.minor", "0"));

        assertThat(labels("h100-80gb-x8", LabelConfig.DEFAULT, Optional.of("DGX H100")))
                .isEqualTo(expected);
    }

    @Test
    void a100x8WithMigOff() {
        Map<String, String> expected =
                merged(
                        driver550(),
                        map(
                                "gfd.timestamp", "1724632719",
                                "gpu.machine", "unknown",
                                "mig.capable", "true",
                                "mps.capable", "false",
                                "gpu.product", "NVIDIA-A100-SXM4-40GB",
                                "gpu.count", "8",
                                "gpu.replicas", "1",
                                "gpu.sharing-strategy", "none",
                                "gpu.memory", "40960",
                                "gpu.family", "ampere",
                                "gpu.compute.major", "8",
                                "gpu.compute.minor", "0"));

        assertThat(labels("a100-40gb-x8", LabelConfig.DEFAULT, Optional.empty()))
                .isEqualTo(expected);
        // Strategy mixed on GPUs without MIG: only the strategy label is added.
        assertThat(
                        labels(
                                "a100-40gb-x8",
                                new LabelConfig(MigStrategy.MIXED, Sharing.NONE),
                                Optional.empty()))
                .isEqualTo(merged(expected, map("mig.strategy", "mixed")));
    }

    /**
     * MIG GPUs labelled as whole GPUs: no sharing information, hence replicas 0 (upstream's
     * WithoutSharing labeler).
     */
    private static Map<String, String> a100MigEnabledAsWholeGpus() {
        return merged(
                driver550(),
                map(
                        "gfd.timestamp", "1724632719",
                        "gpu.machine", "p4d.24xlarge",
                        "mig.capable", "true",
                        "mps.capable", "false",
                        "gpu.product", "NVIDIA-A100-SXM4-40GB",
                        "gpu.count", "8",
                        "gpu.replicas", "0",
                        "gpu.sharing-strategy", "none",
                        "gpu.memory", "40960",
                        "gpu.family", "ampere",
                        "gpu.compute.major", "8",
                        "gpu.compute.minor", "0"));
    }

    @Test
    void a100x8MigMixedUnderTheMixedStrategy() {
        // Per GPU: 3g.20gb, 2g.10gb, 1g.5gb, 1g.5gb; engines from the A100 40GB MIG profile table.
        Map<String, String> expected =
                merged(
                        a100MigEnabledAsWholeGpus(),
                        map(
                                "mig.strategy", "mixed",
                                "mig-3g.20gb.product", "NVIDIA-A100-SXM4-40GB-MIG-3g.20gb",
                                "mig-3g.20gb.count", "8",
                                "mig-3g.20gb.replicas", "1",
                                "mig-3g.20gb.sharing-strategy", "none",
                                "mig-3g.20gb.memory", "20096",
                                "mig-3g.20gb.multiprocessors", "42",
                                "mig-3g.20gb.slices.gi", "3",
                                "mig-3g.20gb.slices.ci", "3",
                                "mig-3g.20gb.engines.copy", "3",
                                "mig-3g.20gb.engines.decoder", "2",
                                "mig-3g.20gb.engines.encoder", "0",
                                "mig-3g.20gb.engines.jpeg", "0",
                                "mig-3g.20gb.engines.ofa", "0",
                                "mig-2g.10gb.product", "NVIDIA-A100-SXM4-40GB-MIG-2g.10gb",
                                "mig-2g.10gb.count", "8",
                                "mig-2g.10gb.replicas", "1",
                                "mig-2g.10gb.sharing-strategy", "none",
                                "mig-2g.10gb.memory", "9984",
                                "mig-2g.10gb.multiprocessors", "28",
                                "mig-2g.10gb.slices.gi", "2",
                                "mig-2g.10gb.slices.ci", "2",
                                "mig-2g.10gb.engines.copy", "2",
                                "mig-2g.10gb.engines.decoder", "1",
                                "mig-2g.10gb.engines.encoder", "0",
                                "mig-2g.10gb.engines.jpeg", "0",
                                "mig-2g.10gb.engines.ofa", "0",
                                "mig-1g.5gb.product", "NVIDIA-A100-SXM4-40GB-MIG-1g.5gb",
                                "mig-1g.5gb.count", "16",
                                "mig-1g.5gb.replicas", "1",
                                "mig-1g.5gb.sharing-strategy", "none",
                                "mig-1g.5gb.memory", "4864",
                                "mig-1g.5gb.multiprocessors", "14",
                                "mig-1g.5gb.slices.gi", "1",
                                "mig-1g.5gb.slices.ci", "1",
                                "mig-1g.5gb.engines.copy", "1",
                                "mig-1g.5gb.engines.decoder", "0",
                                "mig-1g.5gb.engines.encoder", "0",
                                "mig-1g.5gb.engines.jpeg", "0",
                                "mig-1g.5gb.engines.ofa", "0"));

        assertThat(
                        labels(
                                "a100-40gb-x8-mig-mixed",
                                new LabelConfig(MigStrategy.MIXED, Sharing.NONE),
                                Optional.of("p4d.24xlarge")))
                .isEqualTo(expected);
    }

    @Test
    void a100x8MigMixedUnderTheNoneStrategy() {
        assertThat(
                        labels(
                                "a100-40gb-x8-mig-mixed",
                                LabelConfig.DEFAULT,
                                Optional.of("p4d.24xlarge")))
                .isEqualTo(a100MigEnabledAsWholeGpus());
    }

    @Test
    void a100x8MigMixedUnderTheSingleStrategyIsInvalid() {
        // Four profiles per GPU cannot be one resource: upstream publishes the -MIG-INVALID set
        // over gpu.*.
        Map<String, String> expected =
                merged(
                        a100MigEnabledAsWholeGpus(),
                        map(
                                "mig.strategy", "single",
                                "gpu.product", "NVIDIA-A100-SXM4-40GB-MIG-INVALID",
                                "gpu.count", "0",
                                "gpu.replicas", "0",
                                "gpu.sharing-strategy", "",
                                "gpu.memory", "0"));

        assertThat(
                        labels(
                                "a100-40gb-x8-mig-mixed",
                                new LabelConfig(MigStrategy.SINGLE, Sharing.NONE),
                                Optional.of("p4d.24xlarge")))
                .isEqualTo(expected);
    }

    @Test
    void t4x1() {
        Map<String, String> expected =
                map(
                        "gfd.timestamp",
                        "1724632719",
                        "gpu.machine",
                        "unknown",
                        "cuda.driver.major",
                        "535",
                        "cuda.driver.minor",
                        "161",
                        "cuda.driver.rev",
                        "08",
                        "cuda.runtime.major",
                        "12",
                        "cuda.runtime.minor",
                        "2",
                        "cuda.driver-version.major",
                        "535",
                        "cuda.driver-version.minor",
                        "161",
                        "cuda.driver-version.revision",
                        "08",
                        "cuda.driver-version.full",
                        "535.161.08",
                        "cuda.runtime-version.major",
                        "12",
                        "cuda.runtime-version.minor",
                        "2",
                        "cuda.runtime-version.full",
                        "12.2",
                        "mig.capable",
                        "false",
                        "mps.capable",
                        "false",
                        "gpu.product",
                        "Tesla-T4",
                        "gpu.count",
                        "1",
                        "gpu.replicas",
                        "1",
                        "gpu.sharing-strategy",
                        "none",
                        "gpu.memory",
                        "15360",
                        "gpu.family",
                        "turing",
                        "gpu.compute.major",
                        "7",
                        "gpu.compute.minor",
                        "5");

        assertThat(labels("t4-x1", LabelConfig.DEFAULT, Optional.empty())).isEqualTo(expected);
    }

    @Test
    void l4x2() {
        Map<String, String> expected =
                merged(
                        driver550(),
                        map(
                                "gfd.timestamp", "1724632719",
                                "gpu.machine", "Standard_NV12ads_L4",
                                "mig.capable", "false",
                                "mps.capable", "false",
                                "gpu.product", "NVIDIA-L4",
                                "gpu.count", "2",
                                "gpu.replicas", "1",
                                "gpu.sharing-strategy", "none",
                                "gpu.memory", "23034",
                                "gpu.family", "ada-lovelace",
                                "gpu.compute.major", "8",
                                "gpu.compute.minor", "9"));

        assertThat(labels("l4-x2", LabelConfig.DEFAULT, Optional.of("Standard_NV12ads_L4\n")))
                .isEqualTo(expected);
    }
}
