package org.gpuoperator.toolkit.simulated;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.gpuoperator.node.cdi.CdiSpec;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LegacyDriverLibrariesTest {

    @TempDir Path host;

    private Path driverRoot() {
        return host.resolve("run/nvidia/driver");
    }

    private void library(String name) throws Exception {
        Path dir = driverRoot().resolve("usr/lib/x86_64-linux-gnu");
        Files.createDirectories(dir);
        Files.writeString(dir.resolve(name), "");
    }

    private void loaded(String version) throws Exception {
        Path file = host.resolve("proc/driver/nvidia/version");
        Files.createDirectories(file.getParent());
        Files.writeString(
                file,
                "NVRM version: NVIDIA UNIX x86_64 Kernel Module  " + version + "  (simulated)\n");
    }

    @Test
    void theLoadedDriversLibrariesAreMountedReadOnlyAtTheirPathsInTheContainer() throws Exception {
        library("libnvidia-ml.so.580.65.06");
        library("libcuda.so.580.65.06");
        library("libnvidia-ml.so.570.172.08"); // an older driver's file left in the root
        library("libnvidia-ml.so.1");
        loaded("580.65.06");

        CdiSpec.ContainerEdits edits =
                LegacyDriverLibraries.edits(host, driverRoot(), "/run/nvidia/driver/");

        assertThat(edits.mounts())
                .extracting(CdiSpec.Mount::hostPath, CdiSpec.Mount::containerPath)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple(
                                "/run/nvidia/driver/usr/lib/x86_64-linux-gnu/libcuda.so.580.65.06",
                                "/usr/lib/x86_64-linux-gnu/libcuda.so.580.65.06"),
                        org.assertj.core.groups.Tuple.tuple(
                                "/run/nvidia/driver/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.580.65.06",
                                "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.580.65.06"));
        assertThat(edits.mounts().getFirst().options()).contains("ro", "bind");
        assertThat(edits.deviceNodes()).isEmpty();
    }

    @Test
    void noModuleLoadedOrNoLibrariesMountNothing() throws Exception {
        assertThat(LegacyDriverLibraries.edits(host, driverRoot(), "/run/nvidia/driver").mounts())
                .isEmpty();
        loaded("580.65.06");
        assertThat(LegacyDriverLibraries.edits(host, driverRoot(), "/run/nvidia/driver").mounts())
                .isEmpty();
    }
}
