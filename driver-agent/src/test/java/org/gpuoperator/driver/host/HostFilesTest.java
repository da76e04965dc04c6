package org.gpuoperator.driver.host;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.gpuoperator.driver.testing.FakeNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Readers of the host's /proc and paths, on files in the kernel's real formats. */
class HostFilesTest {

    @TempDir Path tmp;

    @Test
    void procModulesGivesNamesUseCountsAndUsers() {
        LoadedModules m =
                LoadedModules.parse(
                        """
                nvidia_uvm 1437696 2 - Live 0x0000000000000000 (POE)
                nvidia_modeset 1306624 1 nvidia_drm, Live 0x0000000000000000 (POE)
                nvidia 56623104 19 nvidia_uvm,nvidia_modeset, Live 0x0000000000000000 (POE)
                garbage line
                """);

        assertThat(m.isLoaded("nvidia-uvm")).isTrue();
        assertThat(m.isLoaded("nvidia-peermem")).isFalse();
        assertThat(m.get("nvidia").orElseThrow().usedBy())
                .containsExactly("nvidia_uvm", "nvidia_modeset");
        assertThat(m.get("nvidia").orElseThrow().refCount()).isEqualTo(19);
        assertThat(m.get("nvidia_uvm").orElseThrow().usedBy()).isEmpty();
        assertThat(m.byName()).hasSize(3);
    }

    @Test
    void theDriverVersionIsReadFromBothProprietaryAndOpenModuleBanners() {
        assertThat(
                        NvidiaProcFs.parseVersion(
                                "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.15  Tue Mar  5 22:23:56 UTC 2024\n"))
                .contains("550.54.15");
        assertThat(
                        NvidiaProcFs.parseVersion(
                                "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  560.35.03  Release Build  (dvs-builder)\n"))
                .contains("560.35.03");
        assertThat(NvidiaProcFs.parseVersion("something else")).isEmpty();
    }

    @Test
    void kernelGpusAndDeviceMajorsComeFromProc() {
        Path root = tmp.resolve("host");
        FakeNode.write(
                root.resolve("proc/driver/nvidia/gpus/0000:3b:00.0/information"),
                "Device Minor: \t 1\n");
        FakeNode.write(
                root.resolve("proc/driver/nvidia/gpus/0000:17:00.0/information"),
                "Device Minor: \t 0\n");
        FakeNode.write(
                root.resolve("proc/devices"),
                """
                Character devices:
                  1 mem
                195 nvidia-frontend
                195 nvidia
                508 nvidia-uvm

                Block devices:
                508 nvidia-uvm-looks-like-a-block
                """);
        NvidiaProcFs proc = new NvidiaProcFs(new HostRoot(root));

        assertThat(proc.kernelGpus())
                .containsExactly(
                        new NvidiaProcFs.KernelGpu("0000:17:00.0", 0),
                        new NvidiaProcFs.KernelGpu("0000:3b:00.0", 1));
        assertThat(proc.characterMajors())
                .containsEntry("nvidia-uvm", 508)
                .containsEntry("nvidia-frontend", 195)
                .doesNotContainKey("nvidia-uvm-looks-like-a-block");
        assertThat(proc.loadedDriverVersion()).isEmpty();
    }

    @Test
    void absoluteSymlinksResolveUnderTheHostRoot() throws Exception {
        Path root = tmp.resolve("host");
        Files.createDirectories(root.resolve("usr/src/linux-headers-6.1.0-18-amd64"));
        Files.createDirectories(root.resolve("lib/modules/6.1.0-18-amd64"));
        Files.createSymbolicLink(
                root.resolve("lib/modules/6.1.0-18-amd64/build"),
                Path.of("/usr/src/linux-headers-6.1.0-18-amd64"));
        HostRoot host = new HostRoot(root);

        assertThat(host.resolve("/lib/modules/6.1.0-18-amd64/build"))
                .isEqualTo(root.resolve("usr/src/linux-headers-6.1.0-18-amd64"));
        assertThat(host.hostPathOf(root.resolve("run/nvidia/driver")))
                .isEqualTo("/run/nvidia/driver");
        assertThat(host.hostPathOf(Path.of("/elsewhere"))).isEqualTo("/elsewhere");
        assertThat(new HostRoot(Path.of("/")).isSlash()).isTrue();
    }

    @Test
    void gpuHoldersAreTheProcessesWithNvidiaDevicesOpen() {
        FakeNode node = new FakeNode(tmp, "6.8.0", 1);
        node.process(100, "python3", "/dev/nvidia0");
        node.process(200, "nvidia-persistenced", "/dev/nvidiactl");
        node.process(300, "sshd", "/dev/null");
        GpuHolders holders = new GpuHolders(node.host);

        assertThat(holders.scan(Set.of()))
                .extracting(GpuHolders.Holder::pid)
                .containsExactly(100L, 200L);
        List<GpuHolders.Holder> others = holders.scan(Set.of(200L));
        assertThat(others)
                .containsExactly(new GpuHolders.Holder(100, "python3", Set.of("/dev/nvidia0")));
        assertThat(GpuHolders.describe(others)).isEqualTo("pid 100 (python3) /dev/nvidia0");
    }
}
