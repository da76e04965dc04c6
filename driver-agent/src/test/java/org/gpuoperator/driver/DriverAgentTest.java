package org.gpuoperator.driver;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.util.Map;
import org.gpuoperator.driver.detect.HostDriverDetector;
import org.gpuoperator.driver.host.GpuHolders;
import org.gpuoperator.driver.host.NvidiaProcFs;
import org.gpuoperator.driver.install.DriverConfig;
import org.gpuoperator.driver.install.DriverInstaller;
import org.gpuoperator.driver.install.DriverUnloader;
import org.gpuoperator.driver.install.DriverVerifier;
import org.gpuoperator.driver.install.Persistenced;
import org.gpuoperator.driver.testing.FakeNode;
import org.gpuoperator.node.agent.ReadinessFiles;
import org.gpuoperator.node.inventory.GpuSourceOptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * One reconcile pass over a fake node: what ends up in driver-ready, and when it must be absent.
 */
class DriverAgentTest {

    static final String KERNEL = "6.8.0-45-generic";

    @TempDir Path tmp;

    /**
     * The agent over a fake node; NVML is the simulated l4-x2 inventory (2 GPUs, driver 550.54.15).
     */
    private DriverAgent agent(FakeNode node, DriverConfig config, String gpuSource) {
        NvidiaProcFs proc = new NvidiaProcFs(node.host);
        Persistenced persistenced = new Persistenced(node.commands, node.host, node.pidFile);
        DriverUnloader unloader =
                new DriverUnloader(node.commands, proc, new GpuHolders(node.host), persistenced);
        DriverInstaller installer =
                new DriverInstaller(config, node.commands, proc, persistenced, unloader, node.log);
        GpuSourceOptions gpus = GpuSourceOptions.of(gpuSource, node.root, "node-a");
        return new DriverAgent(
                config,
                new HostDriverDetector(node.host, node.commands, node.driverRootDir),
                installer,
                new DriverVerifier(gpus::open),
                readiness(),
                node.log);
    }

    private ReadinessFiles readiness() {
        return new ReadinessFiles(tmp.resolve("validations"));
    }

    @Test
    void aPreInstalledHostDriverIsReportedInDriverReadyAndNothingIsInstalled() throws Exception {
        FakeNode node = new FakeNode(tmp, KERNEL, 2);
        node.loaded("550.54.15", "nvidia", "nvidia-uvm");
        node.hostNvidiaSmi();
        node.commands.ok("NVIDIA-SMI\n", "chroot");

        DriverStatus status = agent(node, node.config(false), "simulated:l4-x2").reconcile();

        assertThat(status.ready()).isTrue();
        assertThat(status.mode()).isEqualTo("host");
        assertThat(readiness().read(ReadinessFiles.DRIVER))
                .contains(
                        Map.of(
                                "IS_HOST_DRIVER",
                                "true",
                                "NVIDIA_DRIVER_ROOT",
                                "/",
                                "DRIVER_ROOT_CTR_PATH",
                                node.root.toString(),
                                "NVIDIA_DEV_ROOT",
                                "/",
                                "DEV_ROOT_CTR_PATH",
                                node.root.toString(),
                                "DRIVER_VERSION",
                                "550.54.15",
                                "GPU_COUNT",
                                "2"));
        assertThat(node.commands.programs()).doesNotContain("insmod", "make", "mknod", "uname");
        assertThat(node.log()).contains("event=host-driver-found", "version=550.54.15");
    }

    /** The policy's version, which this image (carrying 550.54.15) does not have. */
    private static DriverConfig wanting(FakeNode node, String version) {
        DriverConfig c = node.config(false);
        return new DriverConfig(
                c.host(),
                c.installRoot(),
                c.installRoot().resolve("usr/src/nvidia-" + version),
                version,
                c.driverRootDir(),
                c.persistencedPidFile(),
                false,
                0,
                2);
    }

    @Test
    void aHostDriverWinsEvenWhenTheImageLacksThePolicysVersion() throws Exception {
        FakeNode node = new FakeNode(tmp, KERNEL, 2);
        node.loaded("550.54.15", "nvidia", "nvidia-uvm");
        node.hostNvidiaSmi();
        node.commands.ok("NVIDIA-SMI\n", "chroot");

        DriverStatus status =
                agent(node, wanting(node, "570.86.15"), "simulated:l4-x2").reconcile();

        assertThat(status.ready()).as(status.message()).isTrue();
        assertThat(status.mode()).isEqualTo("host");
        assertThat(node.commands.programs()).doesNotContain("insmod", "make");
    }

    @Test
    void anImageWithoutThePolicysVersionSaysSoAndInstallsNothing() throws Exception {
        FakeNode node = new FakeNode(tmp, KERNEL, 2);
        node.modules(node.pkg.resolve("precompiled").resolve(KERNEL), KERNEL);

        DriverStatus status =
                agent(node, wanting(node, "570.86.15"), "simulated:l4-x2").reconcile();

        assertThat(status.ready()).isFalse();
        assertThat(status.step()).isEqualTo("select");
        assertThat(status.message())
                .startsWith(
                        "no driver package for version 570.86.15 in the image (have: 550.54.15)");
        assertThat(node.commands.programs()).doesNotContain("insmod", "make", "modinfo");
        assertThat(readiness().read(ReadinessFiles.DRIVER)).isEmpty();
    }

    @Test
    void theContainerDriverWritesDriverReadyOnlyAfterNvmlShowsTheGpus() throws Exception {
        FakeNode node = new FakeNode(tmp, KERNEL, 2);
        node.modules(node.pkg.resolve("precompiled").resolve(KERNEL), KERNEL);

        DriverStatus status = agent(node, node.config(false), "simulated:l4-x2").reconcile();

        assertThat(status.ready()).as(status.message()).isTrue();
        assertThat(readiness().read(ReadinessFiles.DRIVER))
                .contains(
                        Map.of(
                                "IS_HOST_DRIVER",
                                "false",
                                "NVIDIA_DRIVER_ROOT",
                                "/run/nvidia/driver",
                                "DRIVER_ROOT_CTR_PATH",
                                node.driverRootDir.toString(),
                                "NVIDIA_DEV_ROOT",
                                "/",
                                "DEV_ROOT_CTR_PATH",
                                node.root.toString(),
                                "DRIVER_VERSION",
                                "550.54.15",
                                "GPU_COUNT",
                                "2",
                                "KERNEL_VERSION",
                                KERNEL,
                                "MODULE_SOURCE",
                                "precompiled"));
    }

    @Test
    void fewerGpusInNvmlThanTheKernelBoundMeansNotReadyAndNoDriverReady() throws Exception {
        FakeNode node = new FakeNode(tmp, KERNEL, 8);
        node.modules(node.pkg.resolve("precompiled").resolve(KERNEL), KERNEL);
        FakeNode.write(
                readiness().file(ReadinessFiles.DRIVER),
                "IS_HOST_DRIVER=false\n"); // stale, from before

        DriverStatus status = agent(node, node.config(false), "simulated:l4-x2").reconcile();

        assertThat(status.ready()).isFalse();
        assertThat(status.step()).isEqualTo("verify");
        assertThat(status.message())
                .isEqualTo(
                        "simulated:l4-x2 reports 2 GPU(s), expected 8: a GPU may have fallen "
                                + "off the bus or failed to initialise (see dmesg)");
        assertThat(readiness().read(ReadinessFiles.DRIVER)).isEmpty();
    }

    @Test
    void aDriverLibraryVersionMismatchIsNotReady() throws Exception {
        FakeNode node = new FakeNode(tmp, KERNEL, 1);
        node.modules(node.pkg.resolve("precompiled").resolve(KERNEL), KERNEL);

        // t4-x1's NVML says 535.161.08; the package loaded 550.54.15.
        DriverStatus status = agent(node, node.config(false), "simulated:t4-x1").reconcile();

        assertThat(status.ready()).isFalse();
        assertThat(status.message())
                .contains("driver/library version mismatch: kernel module 550.54.15");
    }

    @Test
    void nvmlMissingIsNotReadyWithTheInventoryMessage() throws Exception {
        FakeNode node = new FakeNode(tmp, KERNEL, 1);
        node.modules(node.pkg.resolve("precompiled").resolve(KERNEL), KERNEL);

        DriverStatus status = agent(node, node.config(false), "nvml").reconcile();

        assertThat(status.ready()).isFalse();
        assertThat(status.step()).isEqualTo("verify");
        assertThat(status.message()).startsWith("GPU inventory unavailable: NVML");
    }

    @Test
    void aDriverInUseIsNotReadyWithTheHoldersAndTheOldDriverStaysLoaded() throws Exception {
        FakeNode node = new FakeNode(tmp, KERNEL, 2);
        node.modules(node.pkg.resolve("precompiled").resolve(KERNEL), KERNEL);
        node.loaded("535.161.08", "nvidia", "nvidia-uvm");
        node.process(4242, "python3", "/dev/nvidia1");

        DriverStatus status = agent(node, node.config(false), "simulated:l4-x2").reconcile();

        assertThat(status.ready()).isFalse();
        assertThat(status.step()).isEqualTo("unload");
        assertThat(status.holders()).extracting(GpuHolders.Holder::pid).containsExactly(4242L);
        assertThat(status.render(java.time.Instant.EPOCH))
                .contains(
                        "STATE=not-ready",
                        "STEP=unload",
                        "HOLDERS=pid 4242 (python3) /dev/nvidia1");
        assertThat(new NvidiaProcFs(node.host).loadedDriverVersion()).contains("535.161.08");
        assertThat(readiness().read(ReadinessFiles.DRIVER)).isEmpty();
    }

    @Test
    void aPassWithNothingToChangeDoesNotRewriteDriverReady() throws Exception {
        FakeNode node = new FakeNode(tmp, KERNEL, 2);
        node.modules(node.pkg.resolve("precompiled").resolve(KERNEL), KERNEL);
        DriverAgent agent = agent(node, node.config(false), "simulated:l4-x2");
        agent.reconcile();
        node.commands.ok("", "mountpoint");
        Path file = readiness().file(ReadinessFiles.DRIVER);
        String before = Files.readString(file);
        Files.setLastModifiedTime(file, FileTime.fromMillis(0));

        DriverStatus again = agent.reconcile();

        assertThat(again.ready()).isTrue();
        assertThat(Files.getLastModifiedTime(file).toMillis()).isZero();
        // The module source stays what it was, not "already-loaded".
        assertThat(Files.readString(file)).isEqualTo(before).contains("MODULE_SOURCE=precompiled");
    }
}
