package org.gpuoperator.toolkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.gpuoperator.node.agent.EventLog;
import org.gpuoperator.toolkit.apply.ExternalValidator;
import org.gpuoperator.toolkit.containerd.ContainerdCli;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class RuntimeOptionsTest {

    @TempDir Path host;

    static RuntimeOptions parse(String... args) {
        RuntimeOptions o = new RuntimeOptions();
        new CommandLine(o).parseArgs(args);
        return o;
    }

    @Test
    void containerdValidationIsSkippedOnlyWhenAskedAndThenSaidSo() throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        EventLog log = new EventLog("t", new PrintStream(bytes, true, StandardCharsets.UTF_8));
        RuntimeOptions strict = parse("--containerd-executable", "/usr/bin/containerd");
        assertThatThrownBy(() -> strict.externalValidator(host, log))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(host.resolve("usr/bin/containerd").toString());
        assertThat(bytes.toString(StandardCharsets.UTF_8)).isEmpty();

        RuntimeOptions skipping =
                parse(
                        "--containerd-executable",
                        "/usr/bin/containerd",
                        "--skip-containerd-validation");
        assertThat(skipping.externalValidator(host, log)).isSameAs(ExternalValidator.NONE);
        assertThat(bytes.toString(StandardCharsets.UTF_8))
                .contains("level=warn")
                .contains("event=containerd-validation-skipped")
                .contains("executable=/usr/bin/containerd");

        // the binary there: the host's containerd validates, through the host root
        Path bin = host.resolve("usr/bin/containerd");
        Files.createDirectories(bin.getParent());
        Files.writeString(bin, "#!/bin/sh\n");
        bin.toFile().setExecutable(true);
        assertThat(strict.externalValidator(host, log)).isInstanceOf(ContainerdCli.class);
    }

    @Test
    void aCliWithoutItsBinaryRefusesToValidateInsteadOfPassing() {
        ContainerdCli cli = new ContainerdCli(host, "containerd");
        assertThatThrownBy(() -> cli.check("/etc/containerd/config.toml", host.resolve("c")))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith("/etc/containerd/config.toml: containerd binary");
    }

    @Test
    void theCdiDefaultKindIsAnOptionNamedInItsError() throws Exception {
        if (System.getenv("NVIDIA_CONTAINER_RUNTIME_MODES_CDI_DEFAULT_KIND") == null) {
            assertThat(parse().modes().defaultKind()).isEqualTo("nvidia.com/gpu");
        }
        assertThat(parse("--cdi-default-kind", "management.nvidia.com/gpu").modes().defaultKind())
                .isEqualTo("management.nvidia.com/gpu");
        assertThatThrownBy(() -> parse("--cdi-default-kind", "all").modes())
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("--cdi-default-kind")
                .hasMessageContaining("NVIDIA_CONTAINER_RUNTIME_MODES_CDI_DEFAULT_KIND");
    }

    @Test
    void theRuntimeNameComesFromTheFlagElseTheDefault() {
        assertThat(parse("--runtime-name", "nvidia-gpu").runtimes().binaries())
                .as("all three whether CDI is on or not, as upstream")
                .containsOnlyKeys("nvidia-gpu", "nvidia-gpu-cdi", "nvidia-gpu-legacy");
        assertThat(parse("--runtime-name", "nvidia-gpu", "--cdi-enabled").runtimes().binaries())
                .containsOnlyKeys("nvidia-gpu", "nvidia-gpu-cdi", "nvidia-gpu-legacy");
        if (System.getenv("NVIDIA_RUNTIME_NAME") == null
                && System.getenv("CONTAINERD_RUNTIME_CLASS") == null) {
            assertThat(parse().runtimeName()).isEqualTo("nvidia");
        }
        assertThatThrownBy(() -> parse("--runtime-name", "Bad_Name").runtimes())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'Bad_Name'");
    }
}
