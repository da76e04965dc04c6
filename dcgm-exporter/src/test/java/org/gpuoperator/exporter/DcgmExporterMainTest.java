package org.gpuoperator.exporter;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** Bad input ends the process with one clear line and a non-zero status, before anything is served. */
class DcgmExporterMainTest {

    @TempDir
    Path dir;

    private record Run(int code, String err) {}

    private Run run(String... args) {
        CommandLine cl = DcgmExporterMain.commandLine();
        StringWriter err = new StringWriter();
        cl.setErr(new PrintWriter(err, true));
        return new Run(cl.execute(args), err.toString());
    }

    @Test
    void aMalformedCountersFileIsRefusedWithItsLineNumber() throws Exception {
        Path csv = dir.resolve("counters.csv");
        Files.writeString(csv, "# mine\nDCGM_FI_DEV_GPU_TEMP, gauge, temp\nDCGM_FI_DEV_FB_USED gauge used\n");
        Run r = run("--collectors", csv.toString(), "--gpu-source", "simulated:t4-x1", "--host-root", dir.toString(),
                "--address", "127.0.0.1:0");
        assertThat(r.code()).isEqualTo(1);
        assertThat(r.err()).isEqualTo("dcgm-exporter: " + csv + ":3: expected 3 fields 'field, type, help' but "
                + "found 1 in 'DCGM_FI_DEV_FB_USED gauge used'" + System.lineSeparator());
    }

    @Test
    void badOptionsAreNamed() {
        assertThat(run("--hostname-label", "HOST", "--gpu-source", "simulated:t4-x1").err())
                .contains("--hostname-label must be Hostname or hostname");
        assertThat(run("--address", "nonsense", "--gpu-source", "simulated:t4-x1").err()).contains("--address");
        assertThat(run("--gpu-source", "simulated:no-such-profile", "--address", "127.0.0.1:0",
                "--pod-resources-socket", dir.resolve("x.sock").toString()).code()).isEqualTo(1);
    }

    @Test
    void helpListsTheUpstreamFlags() {
        CommandLine cl = DcgmExporterMain.commandLine();
        StringWriter out = new StringWriter();
        cl.setOut(new PrintWriter(out, true));
        assertThat(cl.execute("--help")).isZero();
        assertThat(out.toString()).contains("--address", "--collectors", "--collect-interval",
                "--pod-resources-socket", "--web-config-file", "--hostname-label", "--gpu-source");
    }
}
