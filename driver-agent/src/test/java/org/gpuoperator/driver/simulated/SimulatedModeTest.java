package org.gpuoperator.driver.simulated;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.gpuoperator.driver.DriverStatus;
import org.gpuoperator.driver.DriverTestAccess;
import org.gpuoperator.driver.host.HostRoot;
import org.gpuoperator.driver.host.NvidiaProcFs;
import org.gpuoperator.node.agent.ReadinessFiles;
import org.gpuoperator.node.inventory.Gpu;
import org.gpuoperator.node.inventory.GpuInventory;
import org.gpuoperator.node.inventory.GpuSourceOptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent's real code path on a simulated node: the same wiring as the daemon, a simulated host
 * behind it.
 */
class SimulatedModeTest {

    static final String NODE = "sim-node-1";

    @TempDir Path tmp;

    Path hostRoot() {
        return tmp.resolve("host");
    }

    ReadinessFiles readiness() {
        return new ReadinessFiles(hostRoot().resolve("run/nvidia/validations"));
    }

    DriverTestAccess.Wired wire(String profile, String... extra) {
        return DriverTestAccess.wire(tmp, NODE, "simulated:" + profile, extra);
    }

    @Test
    void simulatedModeProducesDriverReadyDeviceFilesADriverRootAndAnInventoryTheOtherAgentsAccept()
            throws Exception {
        DriverStatus status = wire("l4-x2").reconcile();

        assertThat(status.ready()).as(status.message()).isTrue();
        Map<String, String> facts = readiness().read(ReadinessFiles.DRIVER).orElseThrow();
        assertThat(facts)
                .containsEntry("IS_HOST_DRIVER", "false")
                .containsEntry("NVIDIA_DRIVER_ROOT", "/run/nvidia/driver")
                .containsEntry(
                        "DRIVER_ROOT_CTR_PATH", hostRoot().resolve("run/nvidia/driver").toString())
                .containsEntry("DRIVER_VERSION", "550.54.15")
                .containsEntry("GPU_COUNT", "2")
                .containsEntry("KERNEL_VERSION", SimulatedHost.DEFAULT_KERNEL)
                .containsEntry("MODULE_SOURCE", "built");
        for (String dev :
                new String[] {
                    "nvidia0", "nvidia1", "nvidiactl", "nvidia-uvm", "nvidia-uvm-tools"
                }) {
            assertThat(hostRoot().resolve("dev").resolve(dev)).isRegularFile();
        }
        assertThat(hostRoot().resolve("dev/nvidia2")).doesNotExist();
        Path driverRoot = hostRoot().resolve("run/nvidia/driver");
        assertThat(
                        NvidiaProcFs.parseVersion(
                                Files.readString(driverRoot.resolve("proc/driver/nvidia/version"))))
                .contains("550.54.15");
        assertThat(driverRoot.resolve("usr/bin/nvidia-smi")).isExecutable();
        // the MIG capability devices' major, as the real module registers it (CDI spec numbers)
        assertThat(Files.readString(hostRoot().resolve("proc/devices")))
                .contains("511 nvidia-caps\n");
        // stand-ins of the driver's libraries, so that the toolkit's CDI spec lists them
        assertThat(driverRoot.resolve("usr/lib/x86_64-linux-gnu/libcuda.so.550.54.15"))
                .isRegularFile();
        assertThat(driverRoot.resolve("usr/lib/x86_64-linux-gnu/libnvidia-ml.so.550.54.15"))
                .isRegularFile();
        // the "bind mount" is a relative link: it resolves in the node's own mount namespace too,
        // where the host root is /
        assertThat(Files.readSymbolicLink(driverRoot))
                .isEqualTo(Path.of("../../var/lib/driver-agent-sim/image"));

        // What the device plugin and the others do: open the same source and find a device file per
        // GPU.
        try (GpuInventory inv = GpuSourceOptions.of("simulated:l4-x2", hostRoot(), NODE).open()) {
            assertThat(inv.gpus()).hasSize(Integer.parseInt(facts.get("GPU_COUNT")));
            assertThat(inv.node().driverVersion()).isEqualTo(facts.get("DRIVER_VERSION"));
            for (Gpu gpu : inv.gpus()) {
                assertThat(new HostRoot(hostRoot()).path(gpu.devicePath())).isRegularFile();
            }
        }
    }

    @Test
    void aBindMountLinkIsRelativeToTheTargetsDirectory() {
        assertThat(
                        SimulatedHost.bindLink(
                                Path.of("/host/var/lib/driver-agent-sim/image"),
                                Path.of("/host/run/nvidia/driver")))
                .isEqualTo(Path.of("../../var/lib/driver-agent-sim/image"));
        assertThat(
                        Path.of("/run/nvidia")
                                .resolve(
                                        SimulatedHost.bindLink(
                                                Path.of("/var/lib/x"),
                                                Path.of("/run/nvidia/driver")))
                                .normalize())
                .isEqualTo(Path.of("/var/lib/x"));
    }

    @Test
    void aRestartOnAReadyNodeReusesTheLoadedDriver() throws Exception {
        wire("h100-80gb-x8").reconcile();
        DriverTestAccess.Wired again = wire("h100-80gb-x8");

        DriverStatus status = again.reconcile();

        assertThat(status.ready()).isTrue();
        assertThat(readiness().read(ReadinessFiles.DRIVER).orElseThrow())
                .containsEntry("GPU_COUNT", "8");
        assertThat(again.log()).doesNotContain("module-loaded", "modules-build-started");
    }

    @Test
    void aRebootIntoANewKernelRebuildsTheModulesForIt() throws Exception {
        DriverTestAccess.Wired first = wire("l4-x2");
        first.reconcile();
        ((SimulatedHost) first.wiring().commands()).reboot("6.9.0-sim");

        DriverTestAccess.Wired afterReboot = wire("l4-x2");
        DriverStatus status = afterReboot.reconcile();

        assertThat(status.ready()).as(status.message()).isTrue();
        assertThat(afterReboot.log())
                .contains(
                        "event=kernel-mismatch",
                        "modules-built-for=" + SimulatedHost.DEFAULT_KERNEL,
                        "running-kernel=6.9.0-sim");
        assertThat(readiness().read(ReadinessFiles.DRIVER).orElseThrow())
                .containsEntry("KERNEL_VERSION", "6.9.0-sim");
    }

    @Test
    void precompiledModulesInTheSimulatedImageAreLoadedWithoutABuild() throws Exception {
        DriverTestAccess.Wired w = wire("l4-x2");
        Path pre =
                w.wiring()
                        .config()
                        .packageDir()
                        .resolve("precompiled")
                        .resolve(SimulatedHost.DEFAULT_KERNEL);
        for (String m : new String[] {"nvidia", "nvidia-uvm", "nvidia-modeset"}) {
            Files.createDirectories(pre);
            Files.writeString(
                    pre.resolve(m + ".ko"),
                    "vermagic=" + SimulatedHost.DEFAULT_KERNEL + " SMP\nversion=550.54.15\n");
        }

        DriverStatus status = w.reconcile();

        assertThat(status.ready()).isTrue();
        assertThat(readiness().read(ReadinessFiles.DRIVER).orElseThrow())
                .containsEntry("MODULE_SOURCE", "precompiled");
        assertThat(w.log()).doesNotContain("modules-build-started");
    }
}
