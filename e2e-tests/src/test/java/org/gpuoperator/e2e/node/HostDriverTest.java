package org.gpuoperator.e2e.node;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HostDriverTest {

    @TempDir Path root;

    @Test
    void installsWhatTheKernelAndThePackageLeaveOnANode() throws Exception {
        HostDriver.install(root, "550.54.15", "l4-x2");

        assertThat(Files.readString(root.resolve("proc/driver/nvidia/version")))
                .startsWith("NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.15 ");
        try (var gpus = Files.list(root.resolve("proc/driver/nvidia/gpus"))) {
            assertThat(gpus.map(p -> p.getFileName().toString()).sorted())
                    .containsExactly("0000:18:00.0", "0000:28:00.0");
        }
        assertThat(Files.readString(root.resolve("proc/modules"))).contains("\nnvidia ");
        assertThat(Files.readString(root.resolve("dev/nvidiactl"))).isEqualTo("c 195:255\n");
        assertThat(Files.readString(root.resolve("dev/nvidia1"))).isEqualTo("c 195:1\n");
        assertThat(root.resolve("dev/nvidia2")).doesNotExist();
        assertThat(Files.isExecutable(root.resolve("usr/bin/nvidia-smi"))).isTrue();
        // stand-ins of the driver's libraries, so that the toolkit's CDI spec lists them
        assertThat(root.resolve("usr/lib/x86_64-linux-gnu/libcuda.so.550.54.15")).isRegularFile();
    }

    @Test
    void faultsBreakTheDriverTheWayNodesBreak() throws Exception {
        HostDriver.install(root, "550.54.15", "l4-x2");
        HostDriver.breakIt(root, HostDriver.Fault.NO_DEVICE_NODES);
        assertThat(root.resolve("dev/nvidiactl")).doesNotExist();
        assertThat(root.resolve("proc/driver/nvidia/version")).exists();

        HostDriver.breakIt(root, HostDriver.Fault.MODULE_NOT_LOADED);
        assertThat(root.resolve("proc/driver/nvidia")).doesNotExist();
        assertThat(Files.readString(root.resolve("proc/modules"))).isEmpty();
    }
}
