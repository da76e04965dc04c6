package org.gpuoperator.toolkit.cdi;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import org.gpuoperator.node.cdi.CdiRegistry;
import org.gpuoperator.node.cdi.DriverFiles;
import org.gpuoperator.node.inventory.Gpu;
import org.gpuoperator.node.inventory.simulated.SimulatedDriverFiles;
import org.gpuoperator.node.inventory.simulated.SimulatedGpuInventory;
import org.gpuoperator.node.inventory.simulated.SimulatedProfiles;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CdiSpecFilesTest {

    static final String HOOK = "/usr/local/nvidia/toolkit/nvidia-cdi-hook";
    static final String DRIVER_ROOT = "/run/nvidia/driver";

    @TempDir Path host;

    /**
     * A simulated node as the simulated driver container leaves it: the driver image with
     * nvidia-smi and the stand-in libraries, the driver root a relative link to it, and the device
     * files the simulated kernel writes.
     */
    static void simulatedDriver(Path host, String version, int gpus) throws Exception {
        Path image = host.resolve("var/lib/driver-agent-sim/image");
        SimulatedDriverFiles.layDown(image, version);
        Files.createDirectories(image.resolve("usr/bin"));
        Files.writeString(image.resolve("usr/bin/nvidia-smi"), "#!/bin/sh\n");
        Files.createDirectories(host.resolve("run/nvidia"));
        Files.createSymbolicLink(
                host.resolve("run/nvidia/driver"), Path.of("../../var/lib/driver-agent-sim/image"));
        Files.createDirectories(host.resolve("dev"));
        Files.writeString(host.resolve("dev/nvidiactl"), "c 195:255\n");
        Files.writeString(host.resolve("dev/nvidia-modeset"), "c 195:254\n");
        Files.writeString(host.resolve("dev/nvidia-uvm"), "c 510:0\n");
        Files.writeString(host.resolve("dev/nvidia-uvm-tools"), "c 510:1\n");
        for (int i = 0; i < gpus; i++) {
            Files.writeString(host.resolve("dev/nvidia" + i), "c 195:" + i + "\n");
        }
    }

    static List<Gpu> gpus(String profile, Path host) {
        return new SimulatedGpuInventory(
                        SimulatedProfiles.builtIn().get(profile), "node-a", host, Clock.systemUTC())
                .gpus();
    }

    @Test
    void writesBothSpecsOnlyWhenTheyChangeAndRemovesThem() throws Exception {
        simulatedDriver(host, "550.54.15", 2);
        CdiSpecFiles files = new CdiSpecFiles(host, "/var/run/cdi/nvidia.yaml");
        DriverFiles driver = files.discover(DRIVER_ROOT, "550.54.15");
        assertThat(driver.libraries()).contains("/usr/lib/x86_64-linux-gnu/libcuda.so.550.54.15");
        assertThat(driver.binaries()).containsExactly("/usr/bin/nvidia-smi");

        Map<String, String> text = files.render(gpus("l4-x2", host), driver, HOOK);
        assertThat(files.write(text))
                .containsExactly(
                        "/var/run/cdi/nvidia.yaml", "/var/run/cdi/management.nvidia.com-gpu.yaml");
        assertThat(files.write(text)).isEmpty();
        assertThat(
                        Files.readString(
                                host.resolve("var/run/cdi/nvidia.yaml"), StandardCharsets.UTF_8))
                .contains(DRIVER_ROOT + "/usr/lib/x86_64-linux-gnu/libcuda.so.550.54.15");
        // the files the runtime will read resolve
        assertThat(CdiRegistry.load(host).deviceNames())
                .contains("nvidia.com/gpu=1", "management.nvidia.com/gpu=all");

        // a new driver version: new library names, both files rewritten
        SimulatedDriverFiles.layDown(host.resolve("var/lib/driver-agent-sim/image"), "560.35.03");
        Map<String, String> upgraded =
                files.render(gpus("l4-x2", host), files.discover(DRIVER_ROOT, "560.35.03"), HOOK);
        assertThat(files.write(upgraded)).hasSize(2);

        assertThat(files.remove()).hasSize(2);
        assertThat(host.resolve("var/run/cdi/nvidia.yaml")).doesNotExist();
        assertThat(host.resolve("var/run/cdi/management.nvidia.com-gpu.yaml")).doesNotExist();
        assertThat(files.remove()).isEmpty();
    }
}
