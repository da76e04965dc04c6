package org.gpuoperator.toolkit.simulated;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.gpuoperator.node.inventory.GpuMetric;
import org.gpuoperator.node.inventory.GpuSample;
import org.gpuoperator.node.inventory.simulated.SimulatedGpuInventory;
import org.gpuoperator.node.inventory.simulated.SimulatedProfiles;
import org.gpuoperator.toolkit.install.ToolkitInstaller;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The busybox-compatible nvidia-smi: its numbers equal SimulatedGpuInventory.sample's for the same
 * time.
 */
class NvidiaSmiScriptTest {

    static final Pattern ROW =
            Pattern.compile(
                    "\\| N/A\\s+(\\d+)C\\s+P0\\s+(\\d+)W /\\s+(\\d+)W \\|\\s+(\\d+)MiB /\\s+(\\d+)MiB \\|\\s+(\\d+)%\\s+Default \\|");

    @TempDir Path tmp;

    record Run(int exit, String out) {}

    Run smi(String shell, Path description, long nowMillis, String... args) throws Exception {
        Path script = tmp.resolve("nvidia-smi");
        Files.write(script, ToolkitInstaller.nvidiaSmi());
        List<String> cmd = new ArrayList<>(List.of(shell, script.toString()));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().put("NVIDIA_SMI_SIM_GPUS", description.toString());
        pb.environment().put("NVIDIA_SMI_SIM_TIME_MS", Long.toString(nowMillis));
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes());
        assertThat(p.waitFor(20, TimeUnit.SECONDS)).isTrue();
        return new Run(p.exitValue(), out);
    }

    @ParameterizedTest
    @ValueSource(strings = {"/bin/busybox sh", "/bin/sh"})
    void tableNumbersEqualTheJavaInventorysForTheSameTime(String shell) throws Exception {
        String[] sh = shell.split(" ");
        assumeTrue(Files.isExecutable(Path.of(sh[0])), sh[0] + " not installed");
        var profile = SimulatedProfiles.builtIn().get("h100-80gb-x8");
        for (long now :
                List.of(
                        1_796_120_262_000L,
                        1_796_120_281_000L,
                        1_800_000_000_000L,
                        1_796_120_299_500L)) {
            SimulatedGpuInventory inv =
                    new SimulatedGpuInventory(
                            profile,
                            "node-a",
                            tmp,
                            Clock.fixed(Instant.ofEpochMilli(now), ZoneOffset.UTC));
            VisibleGpus visible =
                    VisibleGpus.resolve(VisibleDevices.parse("1,3,6"), inv.gpus(), Set.of());
            Path description = tmp.resolve("gpus");
            Files.writeString(
                    description, GpuDescription.render("c", inv.node(), profile, visible));

            Path script = tmp.resolve("nvidia-smi");
            Files.write(script, ToolkitInstaller.nvidiaSmi());
            List<String> cmd = new ArrayList<>(List.of(sh));
            cmd.add(script.toString());
            ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
            pb.environment()
                    .putAll(
                            Map.of(
                                    "NVIDIA_SMI_SIM_GPUS",
                                    description.toString(),
                                    "NVIDIA_SMI_SIM_TIME_MS",
                                    Long.toString(now)));
            Process p = pb.start();
            String out = new String(p.getInputStream().readAllBytes());
            assertThat(p.waitFor(20, TimeUnit.SECONDS)).isTrue();
            assertThat(p.exitValue()).as(out).isZero();

            assertThat(out)
                    .contains(
                            "| NVIDIA-SMI 550.54.15              Driver Version: 550.54.15      CUDA Version: 12.4     |")
                    .contains("|  No running processes found");
            Matcher m = ROW.matcher(out);
            int[] hostIndex = {1, 3, 6};
            for (int i = 0; i < 3; i++) {
                assertThat(m.find()).as(out).isTrue();
                GpuSample s = inv.sample(hostIndex[i]);
                assertThat(Integer.parseInt(m.group(1)))
                        .isEqualTo(s.values().get(GpuMetric.GPU_TEMP_C).intValue());
                assertThat(Long.parseLong(m.group(2)))
                        .isEqualTo(Math.round(s.values().get(GpuMetric.POWER_USAGE_W)));
                assertThat(Double.parseDouble(m.group(3))).isEqualTo(profile.powerMaxW());
                assertThat(Long.parseLong(m.group(4)))
                        .isEqualTo(s.values().get(GpuMetric.FB_USED_MIB).longValue());
                assertThat(Long.parseLong(m.group(5))).isEqualTo(profile.memoryMiB());
                assertThat(Integer.parseInt(m.group(6)))
                        .isEqualTo(s.values().get(GpuMetric.GPU_UTIL).intValue());
                assertThat(out)
                        .contains("|   " + i + "  NVIDIA H100 80GB HBM3")
                        .contains(inv.gpus().get(hostIndex[i]).pciBusId());
            }
            assertThat(m.find()).isFalse();
        }
    }

    @ParameterizedTest
    @ValueSource(strings = {"/bin/busybox sh", "/bin/sh"})
    void listShowsExactlyTheVisibleGpusRenumberedFromZeroWithTheirMigDevices(String shell)
            throws Exception {
        String[] sh = shell.split(" ");
        assumeTrue(Files.isExecutable(Path.of(sh[0])), sh[0] + " not installed");
        var profile = SimulatedProfiles.builtIn().get("a100-40gb-x8-mig-mixed");
        SimulatedGpuInventory inv =
                new SimulatedGpuInventory(profile, "node-a", tmp, Clock.systemUTC());
        var migs = inv.gpus().get(4).mig().devices();
        VisibleGpus visible =
                VisibleGpus.resolve(
                        VisibleDevices.parse(migs.get(2).uuid() + ",2:0"), inv.gpus(), Set.of());
        Path description = tmp.resolve("gpus");
        Files.writeString(description, GpuDescription.render("c", inv.node(), profile, visible));
        Path script = tmp.resolve("nvidia-smi");
        Files.write(script, ToolkitInstaller.nvidiaSmi());
        List<String> cmd = new ArrayList<>(List.of(sh));
        cmd.addAll(List.of(script.toString(), "-L"));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().put("NVIDIA_SMI_SIM_GPUS", description.toString());
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes());
        assertThat(p.waitFor(20, TimeUnit.SECONDS)).isTrue();
        assertThat(out)
                .isEqualTo(
                        "GPU 0: NVIDIA A100-SXM4-40GB (UUID: "
                                + inv.gpus().get(2).uuid()
                                + ")\n"
                                + "  MIG 3g.20gb     Device  0: (UUID: "
                                + inv.gpus().get(2).mig().devices().get(0).uuid()
                                + ")\n"
                                + "GPU 1: NVIDIA A100-SXM4-40GB (UUID: "
                                + inv.gpus().get(4).uuid()
                                + ")\n"
                                + "  MIG 1g.5gb      Device  0: (UUID: "
                                + migs.get(2).uuid()
                                + ")\n");
    }
}
