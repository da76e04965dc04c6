package org.gpuoperator.exporter;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.gpuoperator.node.agent.AgentCommand;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * Bad input ends the process with the agent kit's one error line before anything is served: exit 2
 * for a bad command line, exit 1 when the command ran and failed (a bad counters file, an unknown
 * GPU source).
 */
class DcgmExporterMainTest {

    @TempDir Path dir;

    private record Run(int code, String out, String err) {}

    private Run run(String... args) {
        CommandLine cl = AgentCommand.commandLine(new DcgmExporterMain());
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        return new Run(cl.execute(args), out.toString(), err.toString());
    }

    @Test
    void aMalformedCountersFileIsRefusedWithItsLineNumber() throws Exception {
        Path csv = dir.resolve("counters.csv");
        Files.writeString(
                csv, "# mine\nDCGM_FI_DEV_GPU_TEMP, gauge, temp\nDCGM_FI_DEV_FB_USED gauge used\n");
        Run r =
                run(
                        "--collectors",
                        csv.toString(),
                        "--gpu-source",
                        "simulated:t4-x1",
                        "--host-root",
                        dir.toString(),
                        "--address",
                        "127.0.0.1:0");
        assertThat(r.code()).isEqualTo(AgentCommand.FAILED);
        assertThat(r.err())
                .isEqualTo(
                        "dcgm-exporter: error: "
                                + csv
                                + ":3: expected 3 fields 'field, type, help' "
                                + "but found 1 in 'DCGM_FI_DEV_FB_USED gauge used'"
                                + System.lineSeparator());
    }

    private Exporter.Settings settings(String... args) {
        DcgmExporterMain main = new DcgmExporterMain();
        AgentCommand.commandLine(main).parseArgs(args);
        return main.settings();
    }

    @Test
    void theHostProcAndTheDeviceCheckpointAreUnderTheHostRootUnlessGiven() {
        Exporter.Settings d = settings("--host-root", dir.toString());
        assertThat(d.hostProc()).isEqualTo(dir.resolve("proc"));
        assertThat(d.deviceCheckpoint())
                .isEqualTo(
                        dir.resolve("var/lib/kubelet/device-plugins/kubelet_internal_checkpoint"));
        Exporter.Settings given =
                settings(
                        "--host-root",
                        dir.toString(),
                        "--host-proc",
                        "/host-proc",
                        "--kubelet-device-checkpoint",
                        "/kubelet/cp");
        assertThat(given.hostProc()).isEqualTo(Path.of("/host-proc"));
        assertThat(given.deviceCheckpoint()).isEqualTo(Path.of("/kubelet/cp"));
    }

    /** The controller renders these env names (operator-controller's DcgmExporterModel). */
    @Test
    void theHostProcAndTheDeviceCheckpointAlsoComeFromTheEnvironment() throws Exception {
        assertThat(envDefault("hostProc")).isEqualTo("${env:DCGM_EXPORTER_HOST_PROC}");
        assertThat(envDefault("deviceCheckpoint"))
                .isEqualTo("${env:DCGM_EXPORTER_KUBELET_DEVICE_CHECKPOINT}");
    }

    private static String envDefault(String field) throws NoSuchFieldException {
        return DcgmExporterMain.class
                .getDeclaredField(field)
                .getAnnotation(picocli.CommandLine.Option.class)
                .defaultValue();
    }

    @Test
    void badOptionsAreNamedAsUsageErrors() {
        Run label = run("--hostname-label", "HOST", "--gpu-source", "simulated:t4-x1");
        assertThat(label.code()).isEqualTo(AgentCommand.USAGE);
        assertThat(label.err().lines().toList())
                .containsExactly(
                        "dcgm-exporter: error: --hostname-label must be Hostname or hostname, got 'HOST'",
                        "Run 'dcgm-exporter --help' for usage.");
        Run address = run("--address", "nonsense", "--gpu-source", "simulated:t4-x1");
        assertThat(address.code()).isEqualTo(AgentCommand.USAGE);
        assertThat(address.err())
                .startsWith(
                        "dcgm-exporter: error: Invalid value for option '--address': "
                                + "expected HOST:PORT or :PORT, got 'nonsense'");
        Run interval = run("-c", "50", "--gpu-source", "simulated:t4-x1");
        assertThat(interval.code()).isEqualTo(AgentCommand.USAGE);
        assertThat(interval.err())
                .startsWith(
                        "dcgm-exporter: error: --collect-interval must be at least 100 ms, "
                                + "got 50");
        Run mig = run("--mig-strategy", "both", "--gpu-source", "simulated:t4-x1");
        assertThat(mig.code()).isEqualTo(AgentCommand.USAGE);
        assertThat(mig.err())
                .startsWith(
                        "dcgm-exporter: error: --mig-strategy: expected one of none, single, mixed,"
                                + " got ");
        Run unknown =
                run(
                        "--gpu-source",
                        "simulated:no-such-profile",
                        "--address",
                        "127.0.0.1:0",
                        "--pod-resources-socket",
                        dir.resolve("x.sock").toString());
        assertThat(unknown.code()).isEqualTo(AgentCommand.FAILED);
        assertThat(unknown.err()).startsWith("dcgm-exporter: error: ").hasLineCount(1);
    }

    @Test
    void helpListsTheUpstreamFlags() {
        Run r = run("--help");
        assertThat(r.code()).isZero();
        assertThat(r.out())
                .contains(
                        "-a, --address",
                        "-f, --collectors",
                        "-c, --collect-interval",
                        "--pod-resources-socket",
                        "--web-config-file",
                        "--hostname-label",
                        "-n, --no-hostname",
                        "--gpu-source",
                        "--version");
    }

    @Test
    void versionNamesTheCommand() {
        Run r = run("--version");
        assertThat(r.code()).isZero();
        assertThat(r.out().strip()).startsWith("dcgm-exporter ");
    }
}
