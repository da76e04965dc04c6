package org.gpuoperator.deviceplugin.allocation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.gpuoperator.deviceplugin.Fixtures.gpu;
import static org.gpuoperator.deviceplugin.Fixtures.mig;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.gpuoperator.deviceplugin.Fixtures;
import org.gpuoperator.deviceplugin.config.Flag;
import org.gpuoperator.deviceplugin.config.PluginConfig;
import org.gpuoperator.deviceplugin.resources.PluginDevice;
import org.gpuoperator.deviceplugin.resources.Resource;
import org.gpuoperator.deviceplugin.resources.ResourcePlanner;
import org.gpuoperator.kubelet.deviceplugin.v1beta1.CDIDevice;
import org.gpuoperator.kubelet.deviceplugin.v1beta1.ContainerAllocateResponse;
import org.gpuoperator.node.cdi.CdiRegistry;
import org.gpuoperator.node.cdi.CdiSpecGenerator;
import org.gpuoperator.node.cdi.DriverFiles;
import org.gpuoperator.node.deviceconfig.ConfigFile;
import org.gpuoperator.node.deviceconfig.DeviceIdStrategy;
import org.gpuoperator.node.inventory.Gpu;
import org.gpuoperator.node.inventory.simulated.SimulatedGpuInventory;
import org.gpuoperator.node.inventory.simulated.SimulatedProfiles;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The exact CDI names of an Allocate response for each list strategy × device ID strategy × MIG
 * strategy × sharing mode: they are the device names of the toolkit's spec ({@code nvidia.com/gpu=}
 * index, UUID, {@code <gpu>:<mig>} or MIG UUID), replicas named as their physical device.
 */
class CdiNamesTest {

    /** Every GPU MIG-enabled with one profile, as {@code mig-strategy single} needs. */
    static final String MIG_SINGLE_PROFILE =
            """
            profiles:
              a100-40gb-x2-mig-single:
                product: NVIDIA A100-SXM4-40GB
                count: 2
                memoryMiB: 40960
                computeCapability: "8.0"
                driverVersion: 550.54.15
                cudaDriverVersion: 12040
                numaNodes: 1
                topology: nvswitch
                nvlinks: 12
                powerIdleW: 55
                powerMaxW: 400
                smClockMaxMHz: 1410
                memClockMHz: 1215
                migCapable: true
                migProfiles:
                  1g.5gb: {memoryMiB: 4864, multiprocessors: 14}
                mig: {enabled: true, devices: [1g.5gb, 1g.5gb, 1g.5gb]}
            """;

    static final String SHARED_GPU =
            "sharing: {timeSlicing: {resources: [{name: gpu, replicas: 2}]}}";
    static final String SHARED_MIG =
            "sharing: {timeSlicing: {resources: [{name: mig-1g.5gb, replicas: 2}]}}";

    static SimulatedProfiles profiles;

    @BeforeAll
    static void profiles(@TempDir Path dir) throws IOException {
        Path f = dir.resolve("profiles.yaml");
        Files.writeString(f, MIG_SINGLE_PROFILE);
        profiles = SimulatedProfiles.withUserFile(f);
    }

    /**
     * One allocation: the node, the plugin's MIG strategy and sharing config, the resource, the IDs
     * the kubelet asks for, and the spec's device names expected by UUID and by index.
     */
    record Case(
            String profile,
            String migStrategy,
            String sharing,
            String resource,
            List<String> requested,
            List<String> byUuid,
            List<String> byIndex) {
        @Override
        public String toString() {
            return "mig=" + migStrategy + " shared=" + (sharing != null) + " " + resource;
        }
    }

    static List<Case> cases() {
        return List.of(
                new Case(
                        "h100-80gb-x8",
                        "none",
                        null,
                        "nvidia.com/gpu",
                        List.of(gpu(3), gpu(1)),
                        List.of(gpu(3), gpu(1)),
                        List.of("3", "1")),
                new Case(
                        "h100-80gb-x8",
                        "none",
                        SHARED_GPU,
                        "nvidia.com/gpu",
                        List.of(gpu(3) + "::1", gpu(3) + "::0", gpu(1) + "::0"),
                        List.of(gpu(3), gpu(1)),
                        List.of("3", "1")),
                // MIG enabled but strategy none: the whole GPU, which the spec does not have
                new Case(
                        "a100-40gb-x8-mig-mixed",
                        "none",
                        null,
                        "nvidia.com/gpu",
                        List.of(gpu(2)),
                        List.of(gpu(2)),
                        List.of("2")),
                new Case(
                        "a100-40gb-x2-mig-single",
                        "single",
                        null,
                        "nvidia.com/gpu",
                        List.of(mig(1, 2), mig(0, 1)),
                        List.of(mig(1, 2), mig(0, 1)),
                        List.of("1:1", "0:0")),
                new Case(
                        "a100-40gb-x2-mig-single",
                        "single",
                        SHARED_GPU,
                        "nvidia.com/gpu",
                        List.of(mig(1, 2) + "::0", mig(1, 2) + "::1", mig(0, 3) + "::1"),
                        List.of(mig(1, 2), mig(0, 3)),
                        List.of("1:1", "0:2")),
                // devices [3g.20gb, 2g.10gb, 1g.5gb, 1g.5gb]: gi 1..4, NVML slots 0..3
                new Case(
                        "a100-40gb-x8-mig-mixed",
                        "mixed",
                        null,
                        "nvidia.com/mig-1g.5gb",
                        List.of(mig(5, 4), mig(2, 3)),
                        List.of(mig(5, 4), mig(2, 3)),
                        List.of("5:3", "2:2")),
                new Case(
                        "a100-40gb-x8-mig-mixed",
                        "mixed",
                        null,
                        "nvidia.com/mig-3g.20gb",
                        List.of(mig(4, 1)),
                        List.of(mig(4, 1)),
                        List.of("4:0")),
                new Case(
                        "a100-40gb-x8-mig-mixed",
                        "mixed",
                        SHARED_MIG,
                        "nvidia.com/mig-1g.5gb",
                        List.of(mig(5, 4) + "::1", mig(5, 3) + "::0", mig(5, 4) + "::0"),
                        List.of(mig(5, 4), mig(5, 3)),
                        List.of("5:3", "5:2")));
    }

    static Stream<Arguments> matrix() {
        List<Arguments> out = new ArrayList<>();
        for (Case c : cases()) {
            for (String list : List.of("cdi-cri", "cdi-annotations", "cdi-annotations,cdi-cri")) {
                for (DeviceIdStrategy ids : DeviceIdStrategy.values()) {
                    out.add(Arguments.of(c, list, ids));
                }
            }
        }
        return out.stream();
    }

    static PluginConfig config(Case c, String list, DeviceIdStrategy ids, String prefix) {
        Map<Flag, String> flags =
                prefix == null
                        ? Map.of(
                                Flag.MIG_STRATEGY,
                                c.migStrategy(),
                                Flag.DEVICE_LIST_STRATEGY,
                                list,
                                Flag.DEVICE_ID_STRATEGY,
                                ids.value())
                        : Map.of(
                                Flag.MIG_STRATEGY,
                                c.migStrategy(),
                                Flag.DEVICE_LIST_STRATEGY,
                                list,
                                Flag.DEVICE_ID_STRATEGY,
                                ids.value(),
                                Flag.CDI_ANNOTATION_PREFIX,
                                prefix);
        return PluginConfig.resolve(
                flags,
                Map.of(),
                c.sharing() == null ? ConfigFile.empty() : ConfigFile.parse(c.sharing(), "cfg"));
    }

    static Resource resource(Case c, PluginConfig config) {
        List<Gpu> gpus =
                new SimulatedGpuInventory(
                                profiles.get(c.profile()),
                                Fixtures.NODE,
                                Path.of("/nonexistent"),
                                Clock.systemUTC())
                        .gpus();
        return ResourcePlanner.plan(gpus, config, Fixtures::noMigNodes).stream()
                .filter(r -> r.name().equals(c.resource()))
                .findFirst()
                .orElseThrow(() -> new AssertionError("no resource " + c.resource()));
    }

    @ParameterizedTest(name = "{0} {1} {2}")
    @MethodSource("matrix")
    void allocateNamesTheSpecsDevices(Case c, String list, DeviceIdStrategy ids) {
        PluginConfig config = config(c, list, ids, null);
        Resource r = resource(c, config);
        ContainerAllocateResponse resp =
                new Allocations(r, config, List.of()).allocate(c.requested(), d -> true);

        List<String> expected =
                (ids == DeviceIdStrategy.UUID ? c.byUuid() : c.byIndex())
                        .stream().map(n -> "nvidia.com/gpu=" + n).toList();
        List<PluginDevice> devices = c.requested().stream().map(r.byId()::get).toList();
        assertThat(CdiNames.forDevices(devices, ids))
                .as("the public name function")
                .isEqualTo(expected);

        if (list.contains("cdi-cri")) {
            assertThat(resp.getCdiDevicesList())
                    .extracting(CDIDevice::getName)
                    .containsExactlyElementsOf(expected);
        } else {
            assertThat(resp.getCdiDevicesList()).isEmpty();
        }
        if (list.contains("cdi-annotations")) {
            assertThat(resp.getAnnotationsMap()).hasSize(1);
            var e = resp.getAnnotationsMap().entrySet().iterator().next();
            assertThat(e.getKey()).matches("cdi\\.k8s\\.io/nvidia-device-plugin_[0-9a-f-]{36}");
            assertThat(e.getValue()).isEqualTo(String.join(",", expected));
        } else {
            assertThat(resp.getAnnotationsMap()).isEmpty();
        }
        assertThat(resp.getEnvsMap()).as("no NVIDIA_VISIBLE_DEVICES under CDI").isEmpty();
    }

    /**
     * Issue 17's resolve test: every name an Allocate response can carry, for every device the
     * plugin advertises (alone and all together), resolves against the spec the toolkit's generator
     * makes for the same GPUs.
     */
    @ParameterizedTest(name = "{0} {1} {2}")
    @MethodSource("matrix")
    void everyNameAnAllocateCanCarryResolvesAgainstTheGeneratedSpec(
            Case c, String list, DeviceIdStrategy ids) throws Exception {
        PluginConfig config = config(c, list, ids, null);
        List<Gpu> gpus =
                new SimulatedGpuInventory(
                                profiles.get(c.profile()),
                                Fixtures.NODE,
                                Path.of("/nonexistent"),
                                Clock.systemUTC())
                        .gpus();
        DriverFiles driver =
                new DriverFiles(
                        "/run/nvidia/driver",
                        "550.54.15",
                        List.of("/usr/lib/x86_64-linux-gnu/libcuda.so.550.54.15"),
                        List.of("/usr/bin/nvidia-smi"),
                        Map.of(),
                        Map.of());
        CdiRegistry spec =
                CdiRegistry.of(
                        CdiSpecGenerator.specFiles(
                                gpus, driver, "/usr/local/nvidia/toolkit/nvidia-cdi-hook"));
        Resource r = resource(c, config);
        assertThat(r.byId()).isNotEmpty();
        // a GPU in MIG mode given whole (strategy none): the spec has no such device, as
        // nvidia-ctk's, so the runtime refuses the container instead of starting it without MIG
        boolean wholeGpusInMigMode =
                c.migStrategy().equals("none") && gpus.stream().anyMatch(g -> g.mig().enabled());
        List<String> all = new ArrayList<>();
        for (String id : r.byId().keySet()) {
            ContainerAllocateResponse resp =
                    new Allocations(r, config, List.of()).allocate(List.of(id), d -> true);
            List<String> names = new ArrayList<>();
            resp.getCdiDevicesList().forEach(d -> names.add(d.getName()));
            resp.getAnnotationsMap().values().forEach(v -> names.addAll(List.of(v.split(","))));
            assertThat(names).as("names for " + id).isNotEmpty();
            if (wholeGpusInMigMode) {
                assertThatThrownBy(() -> spec.resolve(names))
                        .hasMessageStartingWith("unresolvable CDI devices nvidia.com/gpu=");
                continue;
            }
            spec.resolve(names); // throws "unresolvable CDI devices ..." on a name not in the spec
            all.addAll(names);
        }
        if (!wholeGpusInMigMode) {
            assertThat(spec.resolve(all.stream().distinct().toList()).deviceNodes())
                    .as("all devices at once")
                    .isNotEmpty();
        }
    }

    @Test
    void theAnnotationKeyHonoursThePrefix() {
        Case c = cases().get(0);
        PluginConfig config =
                config(c, "cdi-annotations", DeviceIdStrategy.UUID, "cdi.example.org/");
        ContainerAllocateResponse resp =
                new Allocations(resource(c, config), config, List.of())
                        .allocate(c.requested(), d -> true);
        assertThat(resp.getAnnotationsMap().keySet())
                .singleElement()
                .asString()
                .startsWith("cdi.example.org/nvidia-device-plugin_");
        assertThat(CdiNames.annotationKey("p.io/", "nvidia.com/gpu", List.of("0")))
                .as("stable for a retried Allocate, different for other devices")
                .isEqualTo(CdiNames.annotationKey("p.io/", "nvidia.com/gpu", List.of("0")))
                .isNotEqualTo(CdiNames.annotationKey("p.io/", "nvidia.com/gpu", List.of("1")));
    }
}
