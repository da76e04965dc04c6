package org.gpuoperator.node.cdi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.gpuoperator.node.cdi.CdiFixtures.VERSION;

import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.ServerSocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Discovery of the driver's files besides libraries and tools: GSP firmware, IPC sockets, graphics
 * files (Vulkan, EGL, OpenCL, X modules), VDPAU, {@code /dev/dri} nodes, on layouts written here as
 * Debian's packages, the {@code .run} installer, RHEL's packages and a driver container lay them
 * out.
 */
class DriverFileKindsTest {

    static final String TRIPLET = "/usr/lib/x86_64-linux-gnu";
    static final String CURRENT = TRIPLET + "/nvidia/current";

    @TempDir Path host;

    private final List<ServerSocketChannel> sockets = new ArrayList<>();

    @AfterEach
    void closeSockets() throws Exception {
        for (ServerSocketChannel s : sockets) {
            s.close();
        }
    }

    private Path write(String path, String text) throws Exception {
        Path p = host.resolve(path.substring(1));
        Files.createDirectories(p.getParent());
        Files.writeString(p, text);
        return p;
    }

    private void link(String path, String target) throws Exception {
        Path p = host.resolve(path.substring(1));
        Files.createDirectories(p.getParent());
        Files.createSymbolicLink(p, Path.of(target));
    }

    private void dir(String path) throws Exception {
        Files.createDirectories(host.resolve(path.substring(1)));
    }

    /** A listening unix socket, as a daemon makes it. */
    private void socket(String path) throws Exception {
        Path p = host.resolve(path.substring(1));
        Files.createDirectories(p.getParent());
        ServerSocketChannel s = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        s.bind(UnixDomainSocketAddress.of(p));
        sockets.add(s);
    }

    private DriverFiles discover(String root) throws Exception {
        return new DriverDiscovery(new HostFs(host)).discover(root, VERSION);
    }

    /**
     * Debian's graphics, VDPAU, firmware and ICD packages, merged {@code /usr}, at {@code root}.
     */
    private void debianLayout(String root) throws Exception {
        link(root + "/lib", "usr/lib");
        link(root + "/var/run", "/run");
        for (String[] lib :
                new String[][] {{"libGLX_nvidia", "0"}, {"libEGL_nvidia", "0"}, {"libcuda", "1"}}) {
            String real = lib[0] + ".so." + VERSION;
            String soname = lib[0] + ".so." + lib[1];
            write(root + CURRENT + "/" + real, "");
            link(root + CURRENT + "/" + soname, real);
            String alt = "/etc/alternatives/nvidia--" + soname + "-x86_64-linux-gnu";
            link(root + alt, CURRENT + "/" + soname);
            link(root + TRIPLET + "/" + soname, alt);
        }
        write(root + CURRENT + "/libnvidia-vulkan-producer.so." + VERSION, "");
        write(root + TRIPLET + "/libnvidia-glcore.so." + VERSION, "");
        // nvidia-vdpau-driver: the file in nvidia/current, the triplet's vdpau/ a link to it
        write(root + CURRENT + "/libvdpau_nvidia.so." + VERSION, "");
        link(root + CURRENT + "/libvdpau_nvidia.so.1", "libvdpau_nvidia.so." + VERSION);
        link(
                root + "/etc/alternatives/nvidia--libvdpau_nvidia.so.1-x86_64-linux-gnu",
                CURRENT + "/libvdpau_nvidia.so.1");
        link(
                root + TRIPLET + "/vdpau/libvdpau_nvidia.so.1",
                "/etc/alternatives/nvidia--libvdpau_nvidia.so.1-x86_64-linux-gnu");
        // firmware-nvidia-gsp installs under /lib, which is /usr/lib
        write(root + "/usr/lib/firmware/nvidia/" + VERSION + "/gsp_ga10x.bin", "");
        write(root + "/usr/lib/firmware/nvidia/" + VERSION + "/gsp_tu10x.bin", "");
        write(root + "/usr/lib/firmware/nvidia/535.1.1/gsp_ga10x.bin", ""); // another driver's
        write(root + "/usr/share/vulkan/icd.d/nvidia_icd.json", "{}");
        write(root + "/usr/share/vulkan/implicit_layer.d/nvidia_layers.json", "{}");
        write(root + "/usr/share/glvnd/egl_vendor.d/10_nvidia.json", "{}");
        write(root + "/usr/share/glvnd/egl_vendor.d/50_mesa.json", "{}");
        write(root + "/usr/share/egl/egl_external_platform.d/10_nvidia_wayland.json", "{}");
        // libnvidia-egl-wayland1, versioned on its own, which that platform file names
        write(root + TRIPLET + "/libnvidia-egl-wayland.so.1.1.10", "");
        link(root + TRIPLET + "/libnvidia-egl-wayland.so.1", "libnvidia-egl-wayland.so.1.1.10");
        write(root + "/usr/share/egl/egl_external_platform.d/50_mesa.json", "{}");
        write(root + "/etc/OpenCL/vendors/nvidia.icd", "libnvidia-opencl.so.1");
        // xserver-xorg-video-nvidia: the modules in /usr/lib/nvidia/current, the X server's
        // drivers folder a link to the driver through the alternatives
        write(root + "/usr/lib/nvidia/current/nvidia_drv.so", "");
        write(root + "/usr/lib/nvidia/current/libglxserver_nvidia.so." + VERSION, "");
        link(
                root + "/etc/alternatives/nvidia--nvidia_drv.so",
                "/usr/lib/nvidia/current/nvidia_drv.so");
        link(
                root + "/usr/lib/xorg/modules/drivers/nvidia_drv.so",
                "/etc/alternatives/nvidia--nvidia_drv.so");
        write(root + "/usr/sbin/nvidia-cuda-mps-server", "");
        write(root + "/usr/bin/nvidia-cuda-mps-control", "");
    }

    @Test
    void debiansPackagesGiveEachKindThroughTheirLinks() throws Exception {
        debianLayout("");
        socket("/run/nvidia-persistenced/socket");
        dir("/tmp/nvidia-mps");

        DriverFiles d = discover("/");

        assertThat(d.libraries())
                .contains(
                        CURRENT + "/libGLX_nvidia.so." + VERSION,
                        CURRENT + "/libEGL_nvidia.so." + VERSION,
                        CURRENT + "/libvdpau_nvidia.so." + VERSION,
                        CURRENT + "/libnvidia-vulkan-producer.so." + VERSION,
                        TRIPLET + "/libnvidia-glcore.so." + VERSION,
                        TRIPLET + "/libnvidia-egl-wayland.so.1.1.10");
        // the graphics libraries' sonames, as the loader and libglvnd open them
        assertThat(d.sonameLinks())
                .containsEntry(CURRENT + "/libGLX_nvidia.so.0", "libGLX_nvidia.so." + VERSION)
                .containsEntry(CURRENT + "/libEGL_nvidia.so.0", "libEGL_nvidia.so." + VERSION)
                .containsEntry(CURRENT + "/libvdpau_nvidia.so.1", "libvdpau_nvidia.so." + VERSION)
                .containsEntry(
                        TRIPLET + "/libnvidia-egl-wayland.so.1", "libnvidia-egl-wayland.so.1.1.10");
        assertThat(d.binaries())
                .containsExactly(
                        "/usr/bin/nvidia-cuda-mps-control", "/usr/sbin/nvidia-cuda-mps-server");
        // found under /lib as the kernel looks, mounted from /usr/lib
        String fw = "/lib/firmware/nvidia/" + VERSION;
        assertThat(d.firmware()).containsExactly(fw + "/gsp_ga10x.bin", fw + "/gsp_tu10x.bin");
        assertThat(d.hostPath(fw + "/gsp_ga10x.bin"))
                .isEqualTo("/usr/lib/firmware/nvidia/" + VERSION + "/gsp_ga10x.bin");
        assertThat(d.graphics())
                .containsExactlyInAnyOrder(
                        "/etc/OpenCL/vendors/nvidia.icd",
                        "/usr/share/glvnd/egl_vendor.d/10_nvidia.json",
                        "/usr/share/egl/egl_external_platform.d/10_nvidia_wayland.json",
                        "/etc/vulkan/icd.d/nvidia_icd.json",
                        "/etc/vulkan/implicit_layer.d/nvidia_layers.json",
                        "/usr/lib/xorg/modules/drivers/nvidia_drv.so",
                        "/usr/lib/nvidia/current/libglxserver_nvidia.so." + VERSION);
        // Vulkan's files at /etc from /usr/share; the X driver from where its links lead
        assertThat(d.hostPath("/etc/vulkan/icd.d/nvidia_icd.json"))
                .isEqualTo("/usr/share/vulkan/icd.d/nvidia_icd.json");
        assertThat(d.hostPath("/usr/lib/xorg/modules/drivers/nvidia_drv.so"))
                .isEqualTo("/usr/lib/nvidia/current/nvidia_drv.so");
        // /var/run is /run: the socket once, by the first folder; no fabric manager
        assertThat(d.ipc()).containsExactly("/run/nvidia-persistenced/socket", "/tmp/nvidia-mps");
        assertThat(d.dri()).isEmpty();
    }

    @Test
    void theRunInstallersLayoutWithImexAndFirmwareForTheRunningKernel() throws Exception {
        write(TRIPLET + "/libcuda.so." + VERSION, "");
        write(TRIPLET + "/vdpau/libvdpau_nvidia.so." + VERSION, "");
        link(TRIPLET + "/vdpau/libvdpau_nvidia.so.1", "libvdpau_nvidia.so." + VERSION);
        write(TRIPLET + "/libnvidia-allocator.so." + VERSION, "");
        write("/usr/lib/xorg/modules/drivers/nvidia_drv.so", "");
        write("/usr/lib/xorg/modules/extensions/libglxserver_nvidia.so." + VERSION, "");
        link(
                "/usr/lib/xorg/modules/extensions/libglxserver_nvidia.so",
                "libglxserver_nvidia.so." + VERSION);
        write("/etc/vulkan/icd.d/nvidia_icd.json", "{}");
        write("/usr/share/vulkan/icd.d/nvidia_icd.json", "{}"); // /etc's wins
        write("/usr/share/nvidia/nvoptix.bin", "");
        write("/usr/share/egl/egl_external_platform.d/15_nvidia_gbm.json", "{}");
        write("/usr/bin/nvidia-imex", "");
        write("/usr/bin/nvidia-imex-ctl", "");
        write("/proc/sys/kernel/osrelease", "6.8.0-45-generic\n");
        write("/lib/firmware/updates/6.8.0-45-generic/nvidia/" + VERSION + "/gsp_ga10x.bin", "");
        write("/lib/firmware/nvidia/" + VERSION + "/gsp_ga10x.bin", "");
        write("/lib/firmware/updates/6.1.0-9-amd64/nvidia/" + VERSION + "/gsp_tu10x.bin", "");
        socket("/var/run/nvidia-fabricmanager/socket");

        DriverFiles d = discover("/");

        assertThat(d.libraries()).contains(TRIPLET + "/vdpau/libvdpau_nvidia.so." + VERSION);
        assertThat(d.sonameLinks())
                .containsEntry(
                        TRIPLET + "/vdpau/libvdpau_nvidia.so.1", "libvdpau_nvidia.so." + VERSION);
        assertThat(d.binaries())
                .containsExactly("/usr/bin/nvidia-imex", "/usr/bin/nvidia-imex-ctl");
        // the running kernel's updates first; another kernel's folder is not searched
        assertThat(d.firmware())
                .containsExactly(
                        "/lib/firmware/updates/6.8.0-45-generic/nvidia/"
                                + VERSION
                                + "/gsp_ga10x.bin",
                        "/lib/firmware/nvidia/" + VERSION + "/gsp_ga10x.bin");
        assertThat(d.graphics())
                .containsExactlyInAnyOrder(
                        "/usr/share/nvidia/nvoptix.bin",
                        "/usr/share/egl/egl_external_platform.d/15_nvidia_gbm.json",
                        "/etc/vulkan/icd.d/nvidia_icd.json",
                        "/usr/lib/xorg/modules/drivers/nvidia_drv.so",
                        "/usr/lib/xorg/modules/extensions/libglxserver_nvidia.so." + VERSION);
        assertThat(d.hostPath("/etc/vulkan/icd.d/nvidia_icd.json"))
                .isEqualTo("/etc/vulkan/icd.d/nvidia_icd.json");
        assertThat(d.ipc()).containsExactly("/var/run/nvidia-fabricmanager/socket");
    }

    @Test
    void rhelsLib64LayoutWithItsArchitecturesVulkanIcd() throws Exception {
        write("/usr/lib64/libcuda.so." + VERSION, "");
        write("/usr/lib64/vdpau/libvdpau_nvidia.so." + VERSION, "");
        write("/usr/lib64/xorg/modules/drivers/nvidia_drv.so", "");
        write("/usr/lib64/xorg/modules/extensions/libglxserver_nvidia.so." + VERSION, "");
        write("/usr/share/vulkan/icd.d/nvidia_icd.x86_64.json", "{}");
        write("/usr/share/vulkan/implicit_layer.d/nvidia_layers.json", "{}");

        DriverFiles d = discover("/");

        assertThat(d.libraries())
                .containsExactly(
                        "/usr/lib64/libcuda.so." + VERSION,
                        "/usr/lib64/vdpau/libvdpau_nvidia.so." + VERSION);
        assertThat(d.graphics())
                .containsExactlyInAnyOrder(
                        "/etc/vulkan/icd.d/nvidia_icd.x86_64.json",
                        "/etc/vulkan/implicit_layer.d/nvidia_layers.json",
                        "/usr/lib64/xorg/modules/drivers/nvidia_drv.so",
                        "/usr/lib64/xorg/modules/extensions/libglxserver_nvidia.so." + VERSION);
        assertThat(d.firmware()).isEmpty();
        assertThat(d.ipc()).isEmpty();
    }

    @Test
    void aDriverContainersRootGivesItsOwnFilesAndNothingOfTheHosts() throws Exception {
        String root = "/run/nvidia/driver";
        debianLayout(root);
        socket(root + "/run/nvidia-persistenced/socket");
        // the host's own files, and links in the driver root that would reach them on the host
        write("/usr/share/vulkan/implicit_layer.d/nvidia_layers.json", "{}");
        write("/etc/vulkan/icd.d/nvidia_icd.x86_64.json", "{}");
        write("/lib/firmware/nvidia/" + VERSION + "/gsp_gh100.bin", "");
        write("/opt/host/10_nvidia_gbm.json", "{}");
        link(
                root + "/usr/share/egl/egl_external_platform.d/15_nvidia_gbm.json",
                "/opt/host/10_nvidia_gbm.json");
        write("/opt/host/nvoptix.bin", "");
        link(root + "/usr/share/nvidia", "../../../../../../opt/host");
        socket("/run/nvidia-fabricmanager/socket");
        dir("/tmp/nvidia-mps");

        DriverFiles d = discover(root);

        String fw = "/lib/firmware/nvidia/" + VERSION;
        assertThat(d.firmware()).containsExactly(fw + "/gsp_ga10x.bin", fw + "/gsp_tu10x.bin");
        assertThat(d.hostPath(fw + "/gsp_ga10x.bin"))
                .isEqualTo(root + "/usr/lib/firmware/nvidia/" + VERSION + "/gsp_ga10x.bin");
        assertThat(d.graphics())
                .containsExactlyInAnyOrder(
                        "/etc/OpenCL/vendors/nvidia.icd",
                        "/usr/share/glvnd/egl_vendor.d/10_nvidia.json",
                        "/usr/share/egl/egl_external_platform.d/10_nvidia_wayland.json",
                        "/etc/vulkan/icd.d/nvidia_icd.json",
                        "/etc/vulkan/implicit_layer.d/nvidia_layers.json",
                        "/usr/lib/xorg/modules/drivers/nvidia_drv.so",
                        "/usr/lib/nvidia/current/libglxserver_nvidia.so." + VERSION);
        assertThat(d.hostPath("/etc/vulkan/implicit_layer.d/nvidia_layers.json"))
                .isEqualTo(root + "/usr/share/vulkan/implicit_layer.d/nvidia_layers.json");
        assertThat(d.ipc()).containsExactly("/run/nvidia-persistenced/socket");
        assertThat(d.hostPath("/run/nvidia-persistenced/socket"))
                .isEqualTo(root + "/run/nvidia-persistenced/socket");
        for (List<String> files : List.of(d.firmware(), d.graphics(), d.ipc(), d.libraries())) {
            assertThat(files).allSatisfy(f -> assertThat(d.hostPath(f)).startsWith(root + "/"));
        }
    }

    @Test
    void aRootWithoutThemHasNone() throws Exception {
        write(TRIPLET + "/libcuda.so." + VERSION, "");
        write("/run/nvidia-persistenced", ""); // a file, not the socket's folder
        write("/tmp/nvidia-mps", ""); // a file, not the pipe folder

        DriverFiles d = discover("/");

        assertThat(d.firmware()).isEmpty();
        assertThat(d.graphics()).isEmpty();
        assertThat(d.ipc()).isEmpty();
        assertThat(d.dri()).isEmpty();
        assertThat(d.binaries()).isEmpty();
    }

    @Test
    void eachGpusDriNodesByTheirByPathLinks() throws Exception {
        write("/dev/dri/card1", "c 226:1\n");
        write("/dev/dri/renderD128", "c 226:128\n");
        link("/dev/dri/by-path/pci-0000:17:00.0-card", "../card1");
        link("/dev/dri/by-path/pci-0000:17:00.0-render", "../renderD128");
        // a GPU whose node is gone, a link to no DRM node, an unknown link kind
        link("/dev/dri/by-path/pci-0000:2a:00.0-card", "../card2");
        write("/dev/nvidiactl", "c 195:255\n");
        link("/dev/dri/by-path/pci-0000:3b:00.0-card", "../../nvidiactl");
        link("/dev/dri/by-path/platform-simple-framebuffer.0-card", "../card1");

        DriverFiles d = discover("/");

        assertThat(d.dri())
                .containsExactlyEntriesOf(
                        Map.of(
                                "0000:17:00.0",
                                List.of(
                                        new DriverFiles.DriLink(
                                                "/dev/dri/by-path/pci-0000:17:00.0-card",
                                                "../card1",
                                                "/dev/dri/card1"),
                                        new DriverFiles.DriLink(
                                                "/dev/dri/by-path/pci-0000:17:00.0-render",
                                                "../renderD128",
                                                "/dev/dri/renderD128"))));
        assertThat(d.deviceNodes())
                .containsEntry(
                        "/dev/dri/renderD128",
                        CdiSpec.DeviceNode.charDevice("/dev/dri/renderD128", 226, 128));
        // NVML's bus id form matches the links'
        assertThat(DriverFiles.busId("00000000:17:00.0")).isEqualTo("0000:17:00.0");
        assertThat(DriverFiles.busId("00000001:AB:00.0")).isEqualTo("0001:ab:00.0");
    }
}
