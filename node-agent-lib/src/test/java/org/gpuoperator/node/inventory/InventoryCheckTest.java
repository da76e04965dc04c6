package org.gpuoperator.node.inventory;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.Optional;
import org.gpuoperator.node.inventory.nvml.MockNvml;
import org.gpuoperator.node.inventory.nvml.NvmlGpuInventory;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class InventoryCheckTest {

    @TempDir Path hostRoot;

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int run(String... args) {
        return new CommandLine(new InventoryCheck())
                .setOut(new PrintWriter(out))
                .setErr(new PrintWriter(err))
                .execute(args);
    }

    @Test
    void printsASimulatedInventoryAndOneSamplePerGpu() {
        int rc =
                run(
                        "--gpu-source",
                        "simulated:l4-x2",
                        "--node-name",
                        "node-a",
                        "--host-root",
                        hostRoot.toString());
        assertThat(rc).isZero();
        assertThat(out.toString())
                .contains("source: simulated:l4-x2")
                .contains("gpus: 2")
                .contains("gpu 1: NVIDIA L4  uuid=" + SimulatedUuid.of("node-a", 1))
                .contains("links: 1")
                .containsPattern("sample gpu 0: GPU_UTIL=\\d+ ")
                .contains("sample gpu 1: ")
                .contains("profiling (GPM): none of 2 GPUs")
                .contains("processes gpu 0: none")
                .contains("processes gpu 1: none");
    }

    @Test
    void printsTheNvmlInventoryFromTheMockLibrary() {
        Optional<Path> lib = MockNvml.library();
        Assumptions.assumeTrue(
                lib.isPresent(), "SKIPPED: no gcc/cc on PATH to build the mock libnvidia-ml.so");
        MockNvml.control().reset();
        MockNvml.control().processes("2:4242:1024:35:12:0:3,2:4343:-:10:4:1:0");
        int rc =
                run(
                        "--gpu-source",
                        "nvml",
                        "--host-root",
                        hostRoot.toString(),
                        "--nvml-library",
                        lib.get().toString());
        MockNvml.control().reset();
        assertThat(rc).as(err.toString()).isZero();
        assertThat(out.toString())
                .contains("source: nvml (" + lib.get() + ")")
                .contains("driver: 550.54.15  cuda: 12.4 (12040)  nvml: 12.550.54.15")
                .contains(
                        "gpu 0: NVIDIA A100-SXM4-40GB  uuid=GPU-a1000000-0000-4000-8000-000000000000")
                .contains("mig=enabled(2 devices)")
                .contains("  mig gi=5 ci=0: 1g.5gb")
                .contains("  0-1 NVLINK x4")
                .contains("sample gpu 7: GPU_UTIL=75 MEM_COPY_UTIL=38")
                .containsPattern("sampled 8 GPUs in \\d+ us")
                .contains("PROF_GR_ENGINE_ACTIVE=")
                .contains("profiling (GPM): 0,1,2,3,4,5,6 of 8 GPUs")
                .contains(
                        "processes gpu 2: 2 pid=4242 fb=1024MiB sm=35% mem=12% enc=0% dec=3%;"
                                + " pid=4343 fb=? sm=10% mem=4% enc=1% dec=0%")
                .contains("processes gpu 3: none");
        assertThat(MockNvml.control().initCount()).isZero();
    }

    @Test
    void aMissingDriverIsOneLineAndExitOne() {
        int rc =
                run(
                        "--gpu-source",
                        "nvml",
                        "--host-root",
                        hostRoot.toString(),
                        "--nvml-library",
                        hostRoot.resolve("nope.so").toString());
        assertThat(rc).isEqualTo(1);
        assertThat(err.toString())
                .isEqualTo(
                        "inventory-check: " + NvmlGpuInventory.NOT_FOUND + System.lineSeparator());
        assertThat(out.toString()).isEmpty();
    }

    @Test
    void aBadSourceIsOneLineAndExitOne() {
        assertThat(run("--gpu-source", "cuda")).isEqualTo(1);
        assertThat(err.toString())
                .startsWith("inventory-check: invalid GPU source 'cuda'")
                .doesNotContain("Exception");
    }

    /** The simulated UUID function, named here so the test reads as the contract it checks. */
    private static final class SimulatedUuid {
        static String of(String node, int index) {
            return org.gpuoperator.node.inventory.simulated.SimulatedGpuInventory.gpuUuid(
                    node, index);
        }
    }
}
