package org.gpuoperator.e2e.simulate;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

class SimulateCommandTest {

    @Test
    void stepsOfOperandsThePolicyTurnsOffAreNotAwaited() {
        assertThat(SimulateCommand.enabledSteps(java.util.Map.of()))
                .containsExactly(
                        "driver",
                        "container-toolkit",
                        "device-plugin",
                        "gpu-feature-discovery",
                        "dcgm-exporter");
        assertThat(
                        SimulateCommand.enabledSteps(
                                java.util.Map.of(
                                        "gfd", java.util.Map.of("enabled", false),
                                        "dcgmExporter", java.util.Map.of("enabled", true))))
                .containsExactly("driver", "container-toolkit", "device-plugin", "dcgm-exporter");
    }

    @Test
    void kubeconfigLineIsReadyToPasteIntoAShell() {
        assertThat(SimulateCommand.kubeconfigExport(Path.of("/tmp/gpuop-123/kubeconfig")))
                .isEqualTo("export KUBECONFIG=/tmp/gpuop-123/kubeconfig");
        assertThat(SimulateCommand.kubeconfigExport(Path.of("/tmp/it's here/kubeconfig")))
                .isEqualTo("export KUBECONFIG='/tmp/it'\\''s here/kubeconfig'");
    }

    @Test
    void timeoutTakesTheAgentsDurationFormsAndIso() {
        assertThat(timeout("4m")).isEqualTo(Duration.ofMinutes(4));
        assertThat(timeout("1h30m")).isEqualTo(Duration.ofMinutes(90));
        assertThat(timeout("300")).isEqualTo(Duration.ofMinutes(5));
        assertThat(timeout("PT5M")).isEqualTo(Duration.ofMinutes(5));
        assertThat(timeout(null)).isEqualTo(Duration.ofMinutes(5)); // the default
    }

    @Test
    void aTimeoutThatIsNoDurationIsRefusedNamingTheOptionAndTheForms() {
        StringWriter err = new StringWriter();
        CommandLine cl = new CommandLine(new SimulateCommand());
        cl.setErr(new PrintWriter(err));
        int rc = cl.execute("--timeout", "4 minutes");
        assertThat(rc).isEqualTo(2);
        assertThat(err.toString())
                .contains("--timeout")
                .contains("'4 minutes' is not a duration: use seconds (300), units (500ms, 5m,");
    }

    private static Duration timeout(String value) {
        SimulateCommand c = new SimulateCommand();
        if (value == null) {
            new CommandLine(c).parseArgs();
        } else {
            new CommandLine(c).parseArgs("--timeout", value);
        }
        return c.timeout;
    }
}
