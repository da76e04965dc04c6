package org.gpuoperator.gfd;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.gpuoperator.node.agent.AgentCommand;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The command line in-process: oneshot runs into a features file, and one-line errors on bad input.
 */
class FeatureDiscoveryMainTest {

    @TempDir Path dir;

    private Path host;
    private Path out;
    private final StringWriter err = new StringWriter();
    private final ByteArrayOutputStream stdout = new ByteArrayOutputStream();

    @BeforeEach
    void hostFiles() throws Exception {
        host = dir.resolve("host");
        out = dir.resolve("features.d/gfd");
        Path dmi = host.resolve("sys/class/dmi/id/product_name");
        Files.createDirectories(dmi.getParent());
        Files.writeString(dmi, "PowerEdge R750xa\n");
        Path pci = host.resolve("sys/bus/pci/devices/0000:18:00.0");
        Files.createDirectories(pci);
        Files.writeString(pci.resolve("class"), "0x030200\n");
    }

    private int run(Map<String, String> env, String... args) {
        List<String> all =
                new ArrayList<>(
                        List.of(
                                "--gpu-source",
                                "simulated:t4-x1",
                                "--node-name",
                                "n1",
                                "--host-root",
                                host.toString(),
                                "--validations-dir",
                                dir.resolve("v").toString(),
                                "--wait-for",
                                "none"));
        all.addAll(List.of(args));
        var cl =
                AgentCommand.commandLine(
                        new FeatureDiscoveryMain(
                                env, new PrintStream(stdout, true, StandardCharsets.UTF_8)));
        cl.setErr(new PrintWriter(err, true));
        cl.setOut(new PrintWriter(new StringWriter(), true));
        return cl.execute(all.toArray(String[]::new));
    }

    @Test
    void oneshotWritesTheFeaturesFile() throws Exception {
        int rc = run(Map.of(), "--oneshot", "--output-file", out.toString(), "--no-timestamp");

        assertThat(rc).isZero();
        List<String> lines = Files.readAllLines(out);
        assertThat(lines)
                .contains(
                        "nvidia.com/gpu.product=Tesla-T4",
                        "nvidia.com/gpu.count=1",
                        "nvidia.com/gpu.machine=PowerEdge-R750xa",
                        "nvidia.com/gpu.mode=compute",
                        "nvidia.com/gpu.family=turing",
                        "nvidia.com/cuda.driver-version.full=535.161.08");
        assertThat(lines).noneMatch(l -> l.startsWith("nvidia.com/gfd.timestamp="));
        assertThat(lines).isSorted();
        // a oneshot run leaves its output in place for NFD
        assertThat(dir.resolve("v/gfd-ready")).doesNotExist();
    }

    @Test
    void sharingComesFromTheDevicePluginConfigAndEnvironment() throws Exception {
        Path config =
                Files.writeString(
                        dir.resolve("config.yaml"),
                        """
                version: v1
                sharing:
                  timeSlicing:
                    resources:
                    - name: nvidia.com/gpu
                      replicas: 4
                """);

        int rc =
                run(
                        Map.of(
                                "CONFIG_FILE",
                                config.toString(),
                                "GFD_ONESHOT",
                                "true",
                                "MIG_STRATEGY",
                                "mixed"),
                        "-o",
                        out.toString());

        assertThat(rc).isZero();
        assertThat(Files.readAllLines(out))
                .contains(
                        "nvidia.com/gpu.product=Tesla-T4-SHARED",
                        "nvidia.com/gpu.replicas=4",
                        "nvidia.com/gpu.sharing-strategy=time-slicing",
                        "nvidia.com/mig.strategy=mixed");
    }

    @Test
    void previewGoesToStandardOutputAndTheLogToStandardError() {
        int rc = run(Map.of(), "--oneshot", "--output-file", "-");

        assertThat(rc).isZero();
        assertThat(stdout.toString(StandardCharsets.UTF_8).lines())
                .isNotEmpty()
                .allMatch(l -> l.startsWith("nvidia.com/") && l.contains("="));
    }

    @Test
    void aBadConfigFileFailsWithOneLineNamingTheField() throws Exception {
        Path config =
                Files.writeString(
                        dir.resolve("bad.yaml"),
                        """
                sharing:
                  timeSlicing:
                    resources:
                    - name: nvidia.com/gpu
                      replicas: 1
                """);

        int rc =
                run(
                        Map.of(),
                        "--oneshot",
                        "--output-file",
                        out.toString(),
                        "--config-file",
                        config.toString());

        assertThat(rc).isEqualTo(1);
        assertThat(err.toString().strip())
                .hasLineCount(1)
                .contains(config.toString())
                .contains("sharing.timeSlicing.resources[0].replicas")
                .doesNotContain("Exception");
        assertThat(out).doesNotExist();
    }

    @Test
    void badFlagsFailWithOneLine() {
        assertThat(run(Map.of(), "--oneshot", "--mig-strategy", "all")).isEqualTo(1);
        assertThat(err.toString().strip())
                .hasLineCount(1)
                .contains("--mig-strategy")
                .contains("'all'");
    }

    @Test
    void anUnknownSimulatedProfileFailsWithOneLine() {
        var cl =
                AgentCommand.commandLine(
                        new FeatureDiscoveryMain(
                                Map.of(), new PrintStream(stdout, true, StandardCharsets.UTF_8)));
        cl.setErr(new PrintWriter(err, true));

        int rc =
                cl.execute(
                        "--gpu-source",
                        "simulated:no-such-profile",
                        "--oneshot",
                        "--output-file",
                        "-",
                        "--wait-for",
                        "none");

        assertThat(rc).isEqualTo(1);
        assertThat(err.toString().strip())
                .hasLineCount(1)
                .contains("no-such-profile")
                .doesNotContain("\tat ");
    }

    @Test
    void helpAndUsageErrors() {
        assertThat(run(Map.of(), "--help")).isZero();
        assertThat(run(Map.of(), "--no-such-flag")).isEqualTo(AgentCommand.USAGE);
        assertThat(err.toString())
                .startsWith("feature-discovery: error: Unknown option: '--no-such-flag'")
                .contains("Run 'feature-discovery --help' for usage.")
                .doesNotContain("Usage:");
    }
}
