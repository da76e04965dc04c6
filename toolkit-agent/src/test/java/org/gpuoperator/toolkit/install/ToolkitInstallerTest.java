package org.gpuoperator.toolkit.install;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.gpuoperator.toolkit.ConfigException;
import org.gpuoperator.toolkit.NvidiaRuntimes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ToolkitInstallerTest {

    @TempDir
    Path host;

    @TempDir
    Path image;

    final NvidiaRuntimes rt = new NvidiaRuntimes("/usr/local/nvidia/toolkit", true, false);

    @Test
    void realModeCopiesTheShippedRuntimeOnceAndRefusesAMissingOne() throws Exception {
        for (String n : List.of("nvidia-container-runtime", "nvidia-container-runtime.cdi", "nvidia-container-runtime.legacy",
                "nvidia-ctk")) {
            Files.writeString(image.resolve(n), "binary " + n);
        }
        ToolkitInstaller i = new ToolkitInstaller(host, rt, false, image, "/var/log/x.log");
        assertThat(i.install()).hasSize(4);
        assertThat(host.resolve("usr/local/nvidia/toolkit/nvidia-ctk")).isExecutable().hasContent("binary nvidia-ctk");
        i.verify();
        assertThat(i.install()).isEmpty();

        Files.delete(image.resolve("nvidia-container-runtime.cdi"));
        assertThatThrownBy(i::install).isInstanceOf(ConfigException.class)
                .hasMessageContaining("nvidia-container-runtime.cdi").hasMessageContaining("missing from the image");
    }

    @Test
    void simulatedShimLogsItsArgumentsAndRunsTheNextRuntime() throws Exception {
        Path log = host.resolve("shim.log");
        ToolkitInstaller i = new ToolkitInstaller(host, rt, true, image, log.toString());
        i.install();
        Path shim = host.resolve("usr/local/nvidia/toolkit/nvidia-container-runtime");
        Process p = new ProcessBuilder(shim.toString(), "--version").redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertThat(p.waitFor(20, TimeUnit.SECONDS)).isTrue();
        assertThat(Files.readString(log)).isEqualTo("nvidia-container-runtime --version\n");
        if (Files.isExecutable(Path.of("/usr/sbin/runc"))) {
            assertThat(out).contains("runc version");
        }
    }
}
