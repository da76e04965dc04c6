package org.gpuoperator.toolkit.devnodes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ControlDeviceNodesTest {

    /** /proc/devices of a node with the driver and nvidia-uvm loaded (a real 535 host's shape). */
    static final String LOADED =
            """
            Character devices:
              1 mem
              4 /dev/vc/0
            195 nvidia-frontend
            226 drm
            234 nvidia-nvswitch
            235 nvidia-caps
            236 nvidia-uvm
            254 gpiochip

            Block devices:
            259 blkext
              8 sd
            """;

    /** /proc/driver/nvidia-caps/mig-minors of a MIG-capable host (its first lines). */
    static final String MIG_MINORS =
            """
            config 1
            monitor 2
            gpu0/gi0/access 3
            gpu0/gi0/ci0/access 4
            """;

    @TempDir Path host;

    @Test
    void nvidiaCapsCallsForTheMigConfigAndMonitorNodesWithTheDriversModes() {
        assertThat(ControlDeviceNodes.wanted(LOADED, MIG_MINORS))
                .endsWith(
                        new ControlDeviceNodes.Node(
                                "/dev/nvidia-caps/nvidia-cap1", 235, 1, "r--------"),
                        new ControlDeviceNodes.Node(
                                "/dev/nvidia-caps/nvidia-cap2", 235, 2, "r--r--r--"))
                .hasSize(6);
        // minors elsewhere than 1 and 2 are taken from the file
        assertThat(ControlDeviceNodes.wanted(LOADED, "monitor 7\nconfig 9\n"))
                .extracting(ControlDeviceNodes.Node::path)
                .endsWith("/dev/nvidia-caps/nvidia-cap9", "/dev/nvidia-caps/nvidia-cap7");
        // nvidia-caps not loaded, or no mig-minors: no caps nodes
        assertThat(ControlDeviceNodes.wanted(LOADED.replace("235 nvidia-caps\n", ""), MIG_MINORS))
                .hasSize(4);
        assertThat(ControlDeviceNodes.wanted(LOADED, "")).hasSize(4);
    }

    @Test
    void theLoadedDriverCallsForCtlAndModesetAndUvmForUvmAndTools() {
        assertThat(ControlDeviceNodes.wanted(LOADED))
                .containsExactly(
                        new ControlDeviceNodes.Node("/dev/nvidiactl", 195, 255),
                        new ControlDeviceNodes.Node("/dev/nvidia-modeset", 195, 254),
                        new ControlDeviceNodes.Node("/dev/nvidia-uvm", 236, 0),
                        new ControlDeviceNodes.Node("/dev/nvidia-uvm-tools", 236, 1));
        // without nvidia-uvm: its nodes wait until it is loaded
        assertThat(ControlDeviceNodes.wanted(LOADED.replace("236 nvidia-uvm\n", "")))
                .extracting(ControlDeviceNodes.Node::path)
                .containsExactly("/dev/nvidiactl", "/dev/nvidia-modeset");
        // no driver loaded; a block device named like ours does not count
        assertThat(
                        ControlDeviceNodes.wanted(
                                "Character devices:\n  1 mem\n\nBlock devices:\n195 nvidia-x\n"))
                .isEmpty();
    }

    @Test
    void onlyTheMissingNodesAreMadeUnderTheHostRoot() throws Exception {
        Files.createDirectories(host.resolve("proc"));
        Files.writeString(host.resolve("proc/devices"), LOADED);
        Files.createDirectories(host.resolve("dev"));
        Files.writeString(host.resolve("dev/nvidiactl"), "present");
        Files.createDirectories(host.resolve("proc/driver/nvidia-caps"));
        Files.writeString(host.resolve("proc/driver/nvidia-caps/mig-minors"), MIG_MINORS);
        List<String> made = new ArrayList<>();
        DeviceNodeMaker recording =
                (p, major, minor, permissions) -> {
                    made.add(host.relativize(p) + " " + major + ":" + minor + " " + permissions);
                    Files.createDirectories(p.getParent());
                    Files.writeString(p, "");
                };

        assertThat(new ControlNodeSetup(host, recording).ensure())
                .containsExactly(
                        "/dev/nvidia-modeset c 195:254",
                        "/dev/nvidia-uvm c 236:0",
                        "/dev/nvidia-uvm-tools c 236:1",
                        "/dev/nvidia-caps/nvidia-cap1 c 235:1",
                        "/dev/nvidia-caps/nvidia-cap2 c 235:2");
        assertThat(made)
                .containsExactly(
                        "dev/nvidia-modeset 195:254 rw-rw-rw-",
                        "dev/nvidia-uvm 236:0 rw-rw-rw-",
                        "dev/nvidia-uvm-tools 236:1 rw-rw-rw-",
                        "dev/nvidia-caps/nvidia-cap1 235:1 r--------",
                        "dev/nvidia-caps/nvidia-cap2 235:2 r--r--r--");
        assertThat(host.resolve("dev/nvidiactl")).hasContent("present");
        // a second pass finds them all
        assertThat(new ControlNodeSetup(host, recording).ensure()).isEmpty();
        // no /proc/devices (no driver): nothing
        assertThat(new ControlNodeSetup(host.resolve("nowhere"), recording).ensure()).isEmpty();
    }

    @Test
    void mknodMakesARealCharacterDeviceWithTheNumbersAndMode0666() throws Exception {
        assumeTrue("root".equals(System.getProperty("user.name")), "mknod needs root");
        Path node = host.resolve("dev/nvidia-uvm-tools");

        try {
            DeviceNodeMaker.MKNOD.make(node, 236, 1);
        } catch (java.io.IOException e) {
            // EPERM: a container without CAP_MKNOD
            assumeTrue(!e.getMessage().contains("(errno 1)"), "mknod not permitted here: " + e);
            throw e;
        }

        long rdev = ((Number) Files.getAttribute(node, "unix:rdev")).longValue();
        assertThat(Files.getAttribute(node, "unix:mode")).isNotNull();
        int mode = (Integer) Files.getAttribute(node, "unix:mode");
        assertThat(mode & 0170000).as("S_IFCHR").isEqualTo(0020000);
        assertThat(DeviceNodeMaker.Mknod.makedev(236, 1)).isEqualTo(rdev);
        assertThat(Files.getPosixFilePermissions(node))
                .isEqualTo(PosixFilePermissions.fromString("rw-rw-rw-"));
        // a MIG capability node gets the mode asked for
        Path cap = host.resolve("dev/nvidia-caps/nvidia-cap1");
        DeviceNodeMaker.MKNOD.make(cap, 235, 1, "r--------");
        assertThat(Files.getPosixFilePermissions(cap))
                .isEqualTo(PosixFilePermissions.fromString("r--------"));
        assertThat(((Number) Files.getAttribute(cap, "unix:rdev")).longValue())
                .isEqualTo(DeviceNodeMaker.Mknod.makedev(235, 1));
        // glibc's encoding of large numbers
        assertThat(DeviceNodeMaker.Mknod.makedev(4097, 257))
                .isEqualTo((0x1000L << 32) | (0x001L << 8) | (0x100L << 12) | 0x01L);
    }
}
