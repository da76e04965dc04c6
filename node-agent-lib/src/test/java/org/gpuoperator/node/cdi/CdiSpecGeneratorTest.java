package org.gpuoperator.node.cdi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.gpuoperator.node.cdi.CdiFixtures.HOOK;
import static org.gpuoperator.node.cdi.CdiFixtures.LIB;
import static org.gpuoperator.node.cdi.CdiFixtures.VERSION;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.gpuoperator.node.inventory.Gpu;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CdiSpecGeneratorTest {

    @TempDir Path host;

    private static List<String> names(CdiSpec s) {
        return s.devices().stream().map(CdiSpec.Device::name).toList();
    }

    private static CdiSpec.Device device(CdiSpec s, String name) {
        return s.devices().stream().filter(d -> d.name().equals(name)).findFirst().orElseThrow();
    }

    private static List<String> nodePaths(CdiSpec.ContainerEdits e) {
        return e.deviceNodes().stream().map(CdiSpec.DeviceNode::path).toList();
    }

    @Test
    void gpuSpecHasEveryGpuByIndexAndUuidAndAll() {
        List<Gpu> gpus = CdiFixtures.gpus("h100-80gb-x8", host);
        CdiSpec spec = CdiSpecGenerator.gpuSpec(gpus, CdiFixtures.driver(), HOOK);

        assertThat(spec.kind()).isEqualTo("nvidia.com/gpu");
        assertThat(names(spec)).hasSize(8 * 2 + 1).contains("0", "7", gpus.get(3).uuid(), "all");
        assertThat(nodePaths(device(spec, "3").containerEdits())).containsExactly("/dev/nvidia3");
        assertThat(nodePaths(device(spec, gpus.get(3).uuid()).containerEdits()))
                .containsExactly("/dev/nvidia3");
        assertThat(nodePaths(device(spec, "all").containerEdits()))
                .containsExactly(gpus.stream().map(Gpu::devicePath).toArray(String[]::new));
        // numbers where the host has the node
        assertThat(device(spec, "0").containerEdits().deviceNodes().getFirst())
                .isEqualTo(CdiSpec.DeviceNode.charDevice("/dev/nvidia0", 195, 0));
    }

    @Test
    void specEditsHaveControlNodesDriverFilesAndHooks() {
        CdiSpec spec =
                CdiSpecGenerator.gpuSpec(
                        CdiFixtures.gpus("h100-80gb-x8", host), CdiFixtures.driver(), HOOK);
        CdiSpec.ContainerEdits e = spec.containerEdits();

        assertThat(nodePaths(e))
                .containsExactly(
                        "/dev/nvidiactl",
                        "/dev/nvidia-uvm",
                        "/dev/nvidia-uvm-tools",
                        "/dev/nvidia-modeset");
        assertThat(e.env()).containsExactly("NVIDIA_VISIBLE_DEVICES=void");
        assertThat(e.mounts())
                .extracting(CdiSpec.Mount::hostPath, CdiSpec.Mount::containerPath)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple(
                                "/run/nvidia/driver" + LIB + "/libcuda.so." + VERSION,
                                LIB + "/libcuda.so." + VERSION),
                        org.assertj.core.groups.Tuple.tuple(
                                "/run/nvidia/driver" + LIB + "/libnvidia-ml.so." + VERSION,
                                LIB + "/libnvidia-ml.so." + VERSION),
                        org.assertj.core.groups.Tuple.tuple(
                                "/run/nvidia/driver/usr/bin/nvidia-smi", "/usr/bin/nvidia-smi"),
                        org.assertj.core.groups.Tuple.tuple(
                                "/run/nvidia/driver/usr/bin/nvidia-persistenced",
                                "/usr/bin/nvidia-persistenced"));
        assertThat(e.mounts()).allSatisfy(m -> assertThat(m.options()).contains("ro", "rbind"));
        assertThat(e.hooks())
                .extracting(CdiSpec.Hook::args)
                .containsExactly(
                        List.of(
                                "nvidia-cdi-hook",
                                "create-symlinks",
                                "--link",
                                "libcuda.so.1::" + LIB + "/libcuda.so"),
                        List.of(
                                "nvidia-cdi-hook",
                                "enable-cuda-compat",
                                "--host-driver-version=" + VERSION),
                        List.of("nvidia-cdi-hook", "update-ldcache", "--folder", LIB),
                        List.of("nvidia-cdi-hook", "disable-device-node-modification"));
        assertThat(e.hooks())
                .allSatisfy(
                        h -> {
                            assertThat(h.path()).isEqualTo(HOOK);
                            assertThat(h.hookName()).isEqualTo("createContainer");
                        });
    }

    @Test
    void soNameLinksAndRealFilesAsDebiansPackagesHaveThem() {
        // discovery's result for Debian's packages: the real files in nvidia/current, a library
        // outside it, their soname links, nvidia-smi through the alternatives
        String current = LIB + "/nvidia/current";
        DriverFiles debian =
                new DriverFiles(
                        "/",
                        VERSION,
                        List.of(
                                current + "/libcuda.so." + VERSION,
                                current + "/libnvidia-ml.so." + VERSION,
                                LIB + "/libnvidia-pkcs11-openssl3.so." + VERSION),
                        List.of("/usr/bin/nvidia-smi"),
                        Map.of(),
                        Map.of(),
                        Map.of(),
                        Map.of(
                                current + "/libnvidia-ml.so.1", "libnvidia-ml.so." + VERSION,
                                current + "/libcuda.so.1", "libcuda.so." + VERSION),
                        Map.of("/usr/bin/nvidia-smi", "/usr/lib/nvidia/current/nvidia-smi"));
        CdiSpec.ContainerEdits e =
                CdiSpecGenerator.gpuSpec(CdiFixtures.gpus("t4-x1", host), debian, HOOK)
                        .containerEdits();

        assertThat(e.mounts())
                .extracting(CdiSpec.Mount::hostPath, CdiSpec.Mount::containerPath)
                .contains(
                        org.assertj.core.groups.Tuple.tuple(
                                current + "/libcuda.so." + VERSION,
                                current + "/libcuda.so." + VERSION),
                        org.assertj.core.groups.Tuple.tuple(
                                "/usr/lib/nvidia/current/nvidia-smi", "/usr/bin/nvidia-smi"));
        // soname links by path, then libcuda's development link; ldconfig after them
        assertThat(e.hooks())
                .extracting(CdiSpec.Hook::args)
                .containsExactly(
                        List.of(
                                "nvidia-cdi-hook",
                                "create-symlinks",
                                "--link",
                                "libcuda.so." + VERSION + "::" + current + "/libcuda.so.1",
                                "--link",
                                "libnvidia-ml.so."
                                        + VERSION
                                        + "::"
                                        + current
                                        + "/libnvidia-ml.so.1",
                                "--link",
                                "libcuda.so.1::" + current + "/libcuda.so"),
                        List.of(
                                "nvidia-cdi-hook",
                                "enable-cuda-compat",
                                "--host-driver-version=" + VERSION),
                        List.of(
                                "nvidia-cdi-hook",
                                "update-ldcache",
                                "--folder",
                                current,
                                "--folder",
                                LIB),
                        List.of("nvidia-cdi-hook", "disable-device-node-modification"));
    }

    @Test
    void soNameLinksWithoutLibcudaGetNoCudaCompatHook() {
        DriverFiles mlOnly =
                new DriverFiles(
                        "/",
                        VERSION,
                        List.of(LIB + "/libnvidia-ml.so." + VERSION),
                        List.of(),
                        Map.of(),
                        Map.of(),
                        Map.of(),
                        Map.of(LIB + "/libnvidia-ml.so.1", "libnvidia-ml.so." + VERSION),
                        Map.of());
        assertThat(
                        CdiSpecGenerator.gpuSpec(CdiFixtures.gpus("t4-x1", host), mlOnly, HOOK)
                                .containerEdits()
                                .hooks())
                .extracting(h -> h.args().get(1))
                .containsExactly(
                        "create-symlinks", "update-ldcache", "disable-device-node-modification");
    }

    @Test
    void migDevicesBySlotAndUuidWithTheirCapsNodes() {
        List<Gpu> gpus = CdiFixtures.gpus("a100-40gb-x8-mig-mixed", host);
        Gpu g = gpus.stream().filter(x -> x.mig().enabled()).findFirst().orElseThrow();
        Gpu.MigDevice second = g.mig().devices().get(1);
        CdiSpec spec = CdiSpecGenerator.gpuSpec(gpus, CdiFixtures.driver(), HOOK);

        int giMinor = 3 + g.minorNumber() * 135 + second.gpuInstanceId() * 9;
        List<String> expected =
                List.of(
                        g.devicePath(),
                        "/dev/nvidia-caps/nvidia-cap" + giMinor,
                        "/dev/nvidia-caps/nvidia-cap" + (giMinor + 1 + second.computeInstanceId()));
        assertThat(nodePaths(device(spec, g.index() + ":" + second.slot()).containerEdits()))
                .isEqualTo(expected);
        assertThat(nodePaths(device(spec, second.uuid()).containerEdits())).isEqualTo(expected);
        assertThat(nodePaths(device(spec, "all").containerEdits())).containsAll(expected);
    }

    @Test
    void aGpuInMigModeHasNoWholeGpuDeviceAndMigDevicesKeepNvmlsSlots() {
        Gpu.MigAttributes a = new Gpu.MigAttributes(4864, 14, 1, 1, new Gpu.Engines(1, 0, 0, 0, 0));
        Gpu plain = CdiFixtures.gpus("a100-40gb-x8", host).getFirst();
        // NVML left slot 1 empty (its GPU instance destroyed): slot 2 stays 2
        Gpu mig =
                new Gpu(
                        1,
                        1,
                        "GPU-mig",
                        plain.productName(),
                        plain.memoryMiB(),
                        "00000000:28:00.0",
                        0,
                        plain.compute(),
                        new Gpu.Mig(
                                true,
                                true,
                                List.of(
                                        new Gpu.MigDevice(1, 0, 7, 0, "MIG-a", "1g.5gb", a),
                                        new Gpu.MigDevice(1, 2, 9, 0, "MIG-b", "1g.5gb", a))));
        CdiSpec spec = CdiSpecGenerator.gpuSpec(List.of(plain, mig), CdiFixtures.driver(), HOOK);

        assertThat(names(spec))
                .containsExactly("0", plain.uuid(), "1:0", "MIG-a", "1:2", "MIG-b", "all");
        // the MIG GPU's node still reaches containers through its MIG devices and "all"
        assertThat(nodePaths(device(spec, "1:2").containerEdits())).startsWith("/dev/nvidia1");
        assertThat(nodePaths(device(spec, "all").containerEdits())).contains("/dev/nvidia1");
    }

    @Test
    void migMinorsFromTheDriverWinOverTheDefaultTable() {
        List<Gpu> gpus = CdiFixtures.gpus("a100-40gb-x8-mig-mixed", host);
        Gpu g = gpus.stream().filter(x -> x.mig().enabled()).findFirst().orElseThrow();
        Gpu.MigDevice m = g.mig().devices().getFirst();
        DriverFiles d = CdiFixtures.driver();
        DriverFiles withMinors =
                new DriverFiles(
                        d.root(),
                        d.version(),
                        d.libraries(),
                        d.binaries(),
                        d.deviceNodes(),
                        MigCaps.parse(
                                "config 1\nmonitor 2\ngpu%d/gi%d/access 77\n"
                                        .formatted(g.minorNumber(), m.gpuInstanceId())));
        CdiSpec spec = CdiSpecGenerator.gpuSpec(gpus, withMinors, HOOK);
        assertThat(nodePaths(device(spec, g.index() + ":0").containerEdits()))
                .contains("/dev/nvidia-caps/nvidia-cap77");
    }

    @Test
    void migCapsNodesGetTheDriversCapsMajorBeforeTheyExist() {
        List<Gpu> gpus = CdiFixtures.gpus("a100-40gb-x8-mig-mixed", host);
        Gpu g = gpus.stream().filter(x -> x.mig().enabled()).findFirst().orElseThrow();
        DriverFiles d = CdiFixtures.driver();
        DriverFiles withMajors =
                new DriverFiles(
                        d.root(),
                        d.version(),
                        d.libraries(),
                        d.binaries(),
                        d.deviceNodes(),
                        d.migCapMinors(),
                        Map.of("nvidia-caps", 236));
        CdiSpec spec = CdiSpecGenerator.gpuSpec(gpus, withMajors, HOOK);
        CdiSpec.DeviceNode gi =
                device(spec, g.index() + ":0").containerEdits().deviceNodes().get(1);
        int minor = Integer.parseInt(gi.path().substring("/dev/nvidia-caps/nvidia-cap".length()));
        assertThat(gi).isEqualTo(CdiSpec.DeviceNode.charDevice(gi.path(), 236, minor));
        // without the major: path only, CDI looks the node up on the host
        assertThat(
                        device(CdiSpecGenerator.gpuSpec(gpus, d, HOOK), g.index() + ":0")
                                .containerEdits()
                                .deviceNodes()
                                .get(1))
                .isEqualTo(CdiSpec.DeviceNode.of(gi.path()));
    }

    @Test
    void managementSpecHasOneDeviceAllWithEveryNode() {
        List<Gpu> gpus = CdiFixtures.gpus("a100-40gb-x8-mig-mixed", host);
        CdiSpec spec = CdiSpecGenerator.managementSpec(gpus, CdiFixtures.driver(), HOOK);
        assertThat(spec.kind()).isEqualTo("management.nvidia.com/gpu");
        assertThat(names(spec)).containsExactly("all");
        assertThat(nodePaths(spec.devices().getFirst().containerEdits()))
                .contains("/dev/nvidiactl", "/dev/nvidia7", "/dev/nvidia-caps/nvidia-cap1");
        assertThat(spec.containerEdits().mounts()).hasSize(4);
    }

    @Test
    void versionIsTheLowestTheFeaturesNeed() {
        List<Gpu> gpus = CdiFixtures.gpus("h100-80gb-x8", host);
        Map<String, CdiSpec> files = CdiSpecGenerator.specFiles(gpus, CdiFixtures.driver(), HOOK);
        assertThat(files.keySet()).containsExactly("nvidia.yaml", "management.nvidia.com-gpu.yaml");
        // device names that start with a digit need 0.5.0; "all" alone needs nothing newer
        assertThat(files.get("nvidia.yaml").cdiVersion()).isEqualTo("0.5.0");
        assertThat(files.get("management.nvidia.com-gpu.yaml").cdiVersion()).isEqualTo("0.3.0");
    }

    @Test
    void controlNodesAreThoseTheHostHasAndAlwaysNvidiactl() {
        DriverFiles bare = new DriverFiles("/", VERSION, List.of(), List.of(), Map.of(), Map.of());
        CdiSpec spec = CdiSpecGenerator.gpuSpec(CdiFixtures.gpus("t4-x1", host), bare, HOOK);
        assertThat(nodePaths(spec.containerEdits())).containsExactly("/dev/nvidiactl");
        // a node the host lacks has no numbers: CDI would look for it on the host
        assertThat(device(spec, "0").containerEdits().deviceNodes().getFirst())
                .isEqualTo(CdiSpec.DeviceNode.of("/dev/nvidia0"));
    }

    @Test
    void aDriverWithoutLibrariesGetsOnlyTheDeviceNodeHook() {
        DriverFiles none = new DriverFiles("/", VERSION, List.of(), List.of(), Map.of(), Map.of());
        CdiSpec spec = CdiSpecGenerator.gpuSpec(CdiFixtures.gpus("t4-x1", host), none, HOOK);
        assertThat(spec.containerEdits().hooks())
                .extracting(CdiSpec.Hook::args)
                .containsExactly(List.of("nvidia-cdi-hook", "disable-device-node-modification"));
        assertThat(spec.containerEdits().mounts()).isEmpty();
    }

    private static List<String> hookNames(CdiSpec.ContainerEdits e) {
        return e.hooks().stream().map(h -> h.args().get(1)).toList();
    }

    @Test
    void firmwareGraphicsFilesAndSocketsAreMountedWithNvidiaCtksOptions() {
        List<Gpu> gpus = CdiFixtures.gpus("t4-x1", host);
        CdiSpec.ContainerEdits e =
                CdiSpecGenerator.gpuSpec(gpus, CdiFixtures.everyKind(gpus), HOOK).containerEdits();
        String root = "/run/nvidia/driver";
        List<String> ro = List.of("ro", "nosuid", "nodev", "rbind", "rprivate");
        List<String> ipc = List.of("nosuid", "nodev", "rbind", "rprivate", "noexec");

        assertThat(e.mounts())
                .contains(
                        new CdiSpec.Mount(
                                root + "/usr/share/vulkan/icd.d/nvidia_icd.json",
                                "/etc/vulkan/icd.d/nvidia_icd.json",
                                null,
                                ro),
                        new CdiSpec.Mount(
                                root + "/lib/firmware/nvidia/" + VERSION + "/gsp_ga10x.bin",
                                "/lib/firmware/nvidia/" + VERSION + "/gsp_ga10x.bin",
                                null,
                                ro),
                        new CdiSpec.Mount(
                                root
                                        + "/usr/lib/xorg/modules/extensions/libglxserver_nvidia.so."
                                        + VERSION,
                                "/usr/lib/xorg/modules/extensions/libglxserver_nvidia.so."
                                        + VERSION,
                                null,
                                ro),
                        new CdiSpec.Mount(
                                root + "/usr/bin/nvidia-imex", "/usr/bin/nvidia-imex", null, ro),
                        // a socket is written to: not read-only
                        new CdiSpec.Mount(
                                root + "/run/nvidia-persistenced/socket",
                                "/run/nvidia-persistenced/socket",
                                null,
                                ipc),
                        new CdiSpec.Mount(root + "/tmp/nvidia-mps", "/tmp/nvidia-mps", null, ipc));
        assertThat(e.mounts()).hasSize(4 + 1 + 2 + 1 + 2);
        // VDPAU's soname link, the graphics links no soname names, ldconfig for vdpau/
        List<String> links = e.hooks().getFirst().args();
        assertThat(links)
                .containsSubsequence(
                        "--link",
                        "libvdpau_nvidia.so."
                                + VERSION
                                + "::"
                                + LIB
                                + "/vdpau/libvdpau_nvidia.so.1")
                .containsSubsequence(
                        "--link",
                        "libnvidia-vulkan-producer.so."
                                + VERSION
                                + "::"
                                + LIB
                                + "/libnvidia-vulkan-producer.so")
                .containsSubsequence(
                        "--link", "../libnvidia-allocator.so.1::" + LIB + "/gbm/nvidia-drm_gbm.so")
                .containsSubsequence(
                        "--link",
                        "libglxserver_nvidia.so."
                                + VERSION
                                + "::/usr/lib/xorg/modules/extensions/libglxserver_nvidia.so");
        assertThat(e.hooks().get(2).args())
                .containsExactly(
                        "nvidia-cdi-hook",
                        "update-ldcache",
                        "--folder",
                        LIB,
                        "--folder",
                        LIB + "/vdpau");
    }

    @Test
    void aGpusDriNodesAndByPathLinksAreItsDevicesAndAllsOnly() {
        List<Gpu> gpus = CdiFixtures.gpus("a100-40gb-x8", host);
        Gpu whole = gpus.getFirst();
        Gpu mig =
                CdiFixtures.gpus("a100-40gb-x8-mig-mixed", host).stream()
                        .filter(g -> g.mig().enabled() && g.index() != whole.index())
                        .findFirst()
                        .orElseThrow();
        assertThat(mig.pciBusId()).isNotEqualTo(whole.pciBusId());
        List<Gpu> both = List.of(whole, mig);
        DriverFiles d = CdiFixtures.everyKind(both);
        CdiSpec spec = CdiSpecGenerator.gpuSpec(both, d, HOOK);
        String bus = DriverFiles.busId(whole.pciBusId());
        List<String> linkHook =
                List.of(
                        "nvidia-cdi-hook",
                        "create-symlinks",
                        "--link",
                        "../card1::/dev/dri/by-path/pci-" + bus + "-card",
                        "--link",
                        "../renderD128::/dev/dri/by-path/pci-" + bus + "-render");

        for (String name : List.of(String.valueOf(whole.index()), whole.uuid(), "all")) {
            CdiSpec.ContainerEdits e = device(spec, name).containerEdits();
            assertThat(nodePaths(e))
                    .containsSubsequence(
                            whole.devicePath(), "/dev/dri/card1", "/dev/dri/renderD128");
            assertThat(e.deviceNodes())
                    .contains(CdiSpec.DeviceNode.charDevice("/dev/dri/renderD128", 226, 128));
            assertThat(e.hooks()).extracting(CdiSpec.Hook::args).containsExactly(linkHook);
        }
        CdiSpec.ContainerEdits migDevice = device(spec, mig.index() + ":0").containerEdits();
        assertThat(nodePaths(migDevice)).noneMatch(p -> p.startsWith("/dev/dri/"));
        assertThat(migDevice.hooks()).isEmpty();
        // a GPU whose bus id has no links gets no DRI node
        CdiSpec other = CdiSpecGenerator.gpuSpec(List.of(gpus.get(1)), d, HOOK);
        assertThat(nodePaths(device(other, "all").containerEdits()))
                .containsExactly(gpus.get(1).devicePath());
    }

    @Test
    void hooksAreDisabledByNameAndAllDropsEveryOne() {
        List<Gpu> gpus = CdiFixtures.gpus("t4-x1", host);
        DriverFiles d = CdiFixtures.everyKind(gpus);
        assertThat(hookNames(CdiSpecGenerator.gpuSpec(gpus, d, HOOK).containerEdits()))
                .containsExactly(
                        "create-symlinks",
                        "enable-cuda-compat",
                        "update-ldcache",
                        "disable-device-node-modification");
        for (String h : CdiSpecGenerator.HOOKS) {
            CdiSpec spec = CdiSpecGenerator.gpuSpec(gpus, d, HOOK, java.util.Set.of(h));
            assertThat(hookNames(spec.containerEdits()))
                    .as("without %s", h)
                    .doesNotContain(h)
                    .hasSize(3);
        }
        // an nvidia-cdi-hook older than 1.18.0 lacks disable-device-node-modification
        CdiSpec old =
                CdiSpecGenerator.gpuSpec(
                        gpus, d, HOOK, java.util.Set.of("disable-device-node-modification"));
        assertThat(hookNames(old.containerEdits()))
                .containsExactly("create-symlinks", "enable-cuda-compat", "update-ldcache");
        // the device's by-path links go with create-symlinks
        assertThat(
                        device(
                                        CdiSpecGenerator.gpuSpec(
                                                gpus, d, HOOK, java.util.Set.of("create-symlinks")),
                                        "0")
                                .containerEdits()
                                .hooks())
                .isEmpty();

        Map<String, CdiSpec> none =
                CdiSpecGenerator.specFiles(gpus, d, HOOK, java.util.Set.of("all"));
        for (CdiSpec spec : none.values()) {
            assertThat(spec.containerEdits().hooks()).isEmpty();
            assertThat(spec.devices())
                    .allSatisfy(dev -> assertThat(dev.containerEdits().hooks()).isEmpty());
            // the files stay
            assertThat(spec.containerEdits().mounts()).hasSize(10);
        }
        org.assertj.core.api.Assertions.assertThatThrownBy(
                        () ->
                                CdiSpecGenerator.gpuSpec(
                                        gpus, d, HOOK, java.util.Set.of("update-ld-cache")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("unknown hook update-ld-cache");
    }
}
