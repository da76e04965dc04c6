package org.gpuoperator.node.inventory.simulated;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Set;
import org.gpuoperator.node.inventory.GpuMetric;
import org.gpuoperator.node.inventory.GpuProcess;
import org.gpuoperator.node.inventory.GpuSample;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SimulatedGpuProcessesTest {

    private static final long MIB = 1024L * 1024L;
    private static final String POD = "8d6c2f4e-1a2b-4c3d-9e8f-0a1b2c3d4e5f";
    private static final String WORKLOAD = "a".repeat(64);
    private static final String OTHER = "b".repeat(64);

    @TempDir Path node;

    @Test
    void splitAddsUpToTheWholeAndIsTheSameForTheSamePids() {
        List<GpuProcess> parts =
                SimulatedGpuProcesses.split(List.of(100L, 101L, 102L), 67, 40, 5, 30_001);
        assertThat(parts.stream().mapToInt(p -> p.smUtil().orElseThrow()).sum()).isEqualTo(67);
        assertThat(parts.stream().mapToInt(p -> p.memUtil().orElseThrow()).sum()).isEqualTo(40);
        assertThat(parts.stream().mapToInt(p -> p.decUtil().orElseThrow()).sum()).isEqualTo(5);
        assertThat(parts.stream().mapToLong(p -> p.usedMemoryBytes().orElseThrow()).sum())
                .isEqualTo(30_001 * MIB);
        assertThat(parts).extracting(GpuProcess::pid).containsExactly(100L, 101L, 102L);
        assertThat(parts.stream().map(p -> p.smUtil().orElseThrow()).distinct().count())
                .as("the weights differ between PIDs")
                .isGreaterThan(1);
        assertThat(SimulatedGpuProcesses.split(List.of(100L, 101L, 102L), 67, 40, 5, 30_001))
                .isEqualTo(parts);
        assertThat(SimulatedGpuProcesses.split(List.of(), 67, 40, 5, 30_001)).isEmpty();
    }

    @Test
    void descriptionFileGpuLinesNameTheUuids() {
        assertThat(
                        SimulatedGpuProcesses.gpuUuids(
                                "# simulated GPUs\ndriver\t550\ngpu\t0\tGPU-x\tNVIDIA H100\t81559\n"
                                        + "mig\t0\t0\tMIG-y\t1g.10gb\ngpu\t1\tGPU-z\tNVIDIA H100\n"))
                .isEqualTo(Set.of("GPU-x", "GPU-z"));
    }

    private void process(long pid, String cgroup) throws Exception {
        Path dir = node.resolve("proc").resolve(Long.toString(pid));
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("cgroup"), cgroup);
    }

    private void runtimeGave(String containerId, String... uuids) throws Exception {
        Path dir = node.resolve(SimulatedGpuProcesses.CONTAINERS_DIR).resolve(containerId);
        Files.createDirectories(dir);
        StringBuilder sb = new StringBuilder("driver\t550.54.15\n");
        for (int i = 0; i < uuids.length; i++) {
            sb.append("gpu\t").append(i).append('\t').append(uuids[i]).append("\tNVIDIA H100\n");
        }
        Files.writeString(dir.resolve(SimulatedGpuProcesses.DESCRIPTION_FILE), sb.toString());
    }

    @Test
    void theProcessesOfTheContainersGivenAGpuShareItsUtilizationAndMemory() throws Exception {
        SimulatedGpuInventory inv =
                new SimulatedGpuInventory(
                        SimulatedProfiles.builtIn().get("h100-80gb-x8"),
                        "node-a",
                        node,
                        Clock.fixed(Instant.parse("2026-11-30T00:00:15Z"), ZoneOffset.UTC));
        String gpu1 = inv.gpus().get(1).uuid();
        runtimeGave(WORKLOAD, gpu1);
        runtimeGave(OTHER, inv.gpus().get(2).uuid());
        process(100, "0::/kubepods/besteffort/pod" + POD + "/" + WORKLOAD + "\n");
        process(101, "0::/kubepods/besteffort/pod" + POD + "/" + WORKLOAD + "\n");
        process(200, "0::/kubepods/besteffort/pod" + POD + "/" + OTHER + "\n");
        process(1, "0::/init.scope\n");

        List<GpuProcess> on1 = inv.processes(1).orElseThrow();
        GpuSample whole = inv.sample(1);
        assertThat(on1).extracting(GpuProcess::pid).containsExactly(100L, 101L);
        assertThat(on1.stream().mapToInt(p -> p.smUtil().orElseThrow()).sum())
                .isEqualTo((int) whole.get(GpuMetric.GPU_UTIL).orElseThrow());
        assertThat(on1.stream().mapToLong(p -> p.usedMemoryBytes().orElseThrow()).sum())
                .isEqualTo((long) whole.get(GpuMetric.FB_USED_MIB).orElseThrow() * MIB);
        assertThat(inv.processes(2).orElseThrow())
                .extracting(GpuProcess::pid)
                .containsExactly(200L);
        assertThat(inv.processes(0)).contains(List.of());

        // the runtime removes a deleted container's file: its GPU has no process any more
        Files.delete(
                node.resolve(SimulatedGpuProcesses.CONTAINERS_DIR)
                        .resolve(WORKLOAD)
                        .resolve(SimulatedGpuProcesses.DESCRIPTION_FILE));
        assertThat(inv.processes(1)).contains(List.of());
    }
}
