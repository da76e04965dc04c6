package org.gpuoperator.driver.detect;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.gpuoperator.driver.detect.HostDriverDetector.HostDriver;
import org.gpuoperator.driver.testing.FakeNode;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HostDriverDetectorTest {

    @TempDir Path tmp;
    FakeNode node;

    @BeforeEach
    void setUp() {
        node = new FakeNode(tmp, "6.1.0-18-amd64", 2);
    }

    private HostDriver detect() {
        return new HostDriverDetector(node.host, node.commands, node.driverRootDir).detect();
    }

    @Test
    void aLoadedModuleAndAWorkingHostNvidiaSmiIsAPreInstalledDriver() {
        node.loaded("535.161.08", "nvidia");
        node.hostNvidiaSmi();
        node.commands.ok("NVIDIA-SMI 535.161.08\n", "chroot");

        HostDriver d = detect();

        assertThat(d.present()).isTrue();
        assertThat(d.version()).isEqualTo("535.161.08");
        assertThat(d.nvidiaSmi()).isEqualTo("/usr/bin/nvidia-smi");
        assertThat(d.kernelGpus()).isEqualTo(2);
        // nvidia-smi runs under the host root, with the host's own libraries.
        assertThat(node.commands.callsOf("chroot"))
                .containsExactly(List.of("chroot", node.root.toString(), "/usr/bin/nvidia-smi"));
    }

    @Test
    void noModuleLoadedIsNoHostDriver() {
        node.hostNvidiaSmi();

        HostDriver d = detect();

        assertThat(d.present()).isFalse();
        assertThat(d.reason())
                .contains("no NVIDIA kernel module loaded")
                .contains("proc/driver/nvidia/version");
        assertThat(node.commands.calls()).isEmpty();
    }

    @Test
    void aModuleWithoutHostNvidiaSmiIsNoHostDriver() {
        node.loaded("535.161.08", "nvidia");

        HostDriver d = detect();

        assertThat(d.present()).isFalse();
        assertThat(d.reason())
                .contains("driver 535.161.08 is loaded but the host has no nvidia-smi")
                .contains("/usr/bin/nvidia-smi");
    }

    @Test
    void aFailingHostNvidiaSmiIsNoHostDriverAndSaysWhy() {
        node.loaded("535.161.08", "nvidia");
        node.hostNvidiaSmi();
        node.commands.fail(
                9,
                "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.\n",
                "chroot");

        HostDriver d = detect();

        assertThat(d.present()).isFalse();
        assertThat(d.reason())
                .contains("exit code 9")
                .contains("couldn't communicate with the NVIDIA driver");
    }

    @Test
    void aModuleLoadedByThisAgentsContainerDriverIsNotTheHosts() {
        node.loaded("550.54.15", "nvidia");
        node.hostNvidiaSmi();
        node.commands.ok("", "mountpoint");
        node.commands.ok("NVIDIA-SMI\n", "chroot");

        HostDriver d = detect();

        assertThat(d.present()).isFalse();
        assertThat(d.reason()).contains("this agent's container driver");
    }
}
