package org.gpuoperator.deviceplugin.allocation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.gpuoperator.deviceplugin.Fixtures.gpu;
import static org.gpuoperator.deviceplugin.Fixtures.mig;

import java.util.List;
import java.util.Map;
import java.util.function.Predicate;
import org.gpuoperator.deviceplugin.Fixtures;
import org.gpuoperator.deviceplugin.config.Flag;
import org.gpuoperator.deviceplugin.config.PluginConfig;
import org.gpuoperator.deviceplugin.resources.PluginDevice;
import org.gpuoperator.deviceplugin.resources.Resource;
import org.gpuoperator.deviceplugin.resources.ResourcePlanner;
import org.gpuoperator.kubelet.deviceplugin.v1beta1.CDIDevice;
import org.gpuoperator.kubelet.deviceplugin.v1beta1.ContainerAllocateResponse;
import org.gpuoperator.kubelet.deviceplugin.v1beta1.DeviceSpec;
import org.gpuoperator.kubelet.deviceplugin.v1beta1.Mount;
import org.gpuoperator.node.deviceconfig.ConfigFile;
import org.junit.jupiter.api.Test;

class AllocationsTest {

    static final Predicate<PluginDevice> ALL_HEALTHY = d -> true;

    static Allocations allocations(
            String profile, Map<Flag, String> flags, String yaml, int resource) {
        PluginConfig c =
                PluginConfig.resolve(
                        flags,
                        Map.of(),
                        yaml == null ? ConfigFile.empty() : ConfigFile.parse(yaml, "cfg.yaml"));
        Resource r =
                ResourcePlanner.plan(
                                Fixtures.inventory(profile).gpus(),
                                c,
                                (g, m) ->
                                        List.of(
                                                "/dev/nvidia-caps/nvidia-cap"
                                                        + (g.index() * 10 + m.gpuInstanceId())))
                        .get(resource);
        return new Allocations(r, c, List.of("/dev/nvidiactl", "/dev/nvidia-uvm"));
    }

    static Allocations allocations(Map<Flag, String> flags) {
        return allocations("h100-80gb-x8", flags, null, 0);
    }

    @Test
    void envvarListsTheUuids() {
        ContainerAllocateResponse r =
                allocations(Map.of()).allocate(List.of(gpu(3), gpu(1)), ALL_HEALTHY);
        assertThat(r.getEnvsMap())
                .containsExactly(Map.entry("NVIDIA_VISIBLE_DEVICES", gpu(3) + "," + gpu(1)));
        assertThat(r.getMountsList()).isEmpty();
        assertThat(r.getDevicesList()).isEmpty();
        assertThat(r.getAnnotationsMap()).isEmpty();
        assertThat(r.getCdiDevicesList()).isEmpty();
    }

    @Test
    void indexStrategyNamesGpusAndMigDevicesByIndex() {
        assertThat(
                        allocations(Map.of(Flag.DEVICE_ID_STRATEGY, "index"))
                                .allocate(List.of(gpu(3), gpu(1)), ALL_HEALTHY)
                                .getEnvsMap())
                .containsEntry("NVIDIA_VISIBLE_DEVICES", "3,1");
        // resource 2 of mixed is mig-3g.20gb: the first MIG device of each GPU
        ContainerAllocateResponse r =
                allocations(
                                "a100-40gb-x8-mig-mixed",
                                Map.of(
                                        Flag.MIG_STRATEGY,
                                        "mixed",
                                        Flag.DEVICE_ID_STRATEGY,
                                        "index"),
                                null,
                                2)
                        .allocate(List.of(mig(4, 1)), ALL_HEALTHY);
        assertThat(r.getEnvsMap()).containsEntry("NVIDIA_VISIBLE_DEVICES", "4:0");
    }

    @Test
    void volumeMountsPointDevNullAtOneFilePerDevice() {
        ContainerAllocateResponse r =
                allocations(Map.of(Flag.DEVICE_LIST_STRATEGY, "volume-mounts"))
                        .allocate(List.of(gpu(0), gpu(2)), ALL_HEALTHY);
        assertThat(r.getEnvsMap())
                .containsExactly(
                        Map.entry("NVIDIA_VISIBLE_DEVICES", "/var/run/nvidia-container-devices"));
        assertThat(r.getMountsList())
                .containsExactly(
                        Mount.newBuilder()
                                .setHostPath("/dev/null")
                                .setContainerPath("/var/run/nvidia-container-devices/" + gpu(0))
                                .build(),
                        Mount.newBuilder()
                                .setHostPath("/dev/null")
                                .setContainerPath("/var/run/nvidia-container-devices/" + gpu(2))
                                .build());
    }

    @Test
    void cdiAnnotationsNameCdiDevicesUnderThePrefix() {
        Allocations a =
                allocations(
                        Map.of(
                                Flag.DEVICE_LIST_STRATEGY,
                                "cdi-annotations",
                                Flag.CDI_ANNOTATION_PREFIX,
                                "cdi.example.org/"));
        ContainerAllocateResponse r = a.allocate(List.of(gpu(0), gpu(2)), ALL_HEALTHY);
        assertThat(r.getEnvsMap()).isEmpty();
        assertThat(r.getAnnotationsMap()).hasSize(1);
        var e = r.getAnnotationsMap().entrySet().iterator().next();
        assertThat(e.getKey()).startsWith("cdi.example.org/nvidia-device-plugin_");
        assertThat(e.getValue())
                .isEqualTo("nvidia.com/gpu=" + gpu(0) + ",nvidia.com/gpu=" + gpu(2));
        assertThat(a.allocate(List.of(gpu(0), gpu(2)), ALL_HEALTHY))
                .as("a retry gives the same answer")
                .isEqualTo(r);
        assertThat(r.getCdiDevicesList()).isEmpty();
    }

    @Test
    void cdiCriFillsTheCdiDeviceField() {
        ContainerAllocateResponse r =
                allocations(Map.of(Flag.DEVICE_LIST_STRATEGY, "cdi-cri"))
                        .allocate(List.of(gpu(5)), ALL_HEALTHY);
        assertThat(r.getCdiDevicesList())
                .containsExactly(
                        CDIDevice.newBuilder().setName("nvidia.com/gpu=" + gpu(5)).build());
        assertThat(r.getEnvsMap()).isEmpty();
        assertThat(r.getAnnotationsMap()).isEmpty();
    }

    @Test
    void strategiesCombine() {
        ContainerAllocateResponse r =
                allocations(
                                Map.of(
                                        Flag.DEVICE_LIST_STRATEGY,
                                        "envvar,cdi-cri",
                                        Flag.GDS_ENABLED,
                                        "true"))
                        .allocate(List.of(gpu(5)), ALL_HEALTHY);
        assertThat(r.getEnvsMap())
                .containsEntry("NVIDIA_VISIBLE_DEVICES", gpu(5))
                .containsEntry("NVIDIA_GDS", "enabled");
        assertThat(r.getCdiDevicesCount()).isEqualTo(1);
    }

    @Test
    void passDeviceSpecsAddsControlAndDeviceNodesUnderTheDevRoot() {
        ContainerAllocateResponse r =
                allocations(
                                Map.of(
                                        Flag.PASS_DEVICE_SPECS,
                                        "true",
                                        Flag.DEV_ROOT,
                                        "/run/nvidia/driver"))
                        .allocate(List.of(gpu(6)), ALL_HEALTHY);
        assertThat(r.getDevicesList())
                .containsExactly(
                        spec("/dev/nvidiactl", "/run/nvidia/driver/dev/nvidiactl"),
                        spec("/dev/nvidia-uvm", "/run/nvidia/driver/dev/nvidia-uvm"),
                        spec("/dev/nvidia6", "/run/nvidia/driver/dev/nvidia6"));

        ContainerAllocateResponse m =
                allocations(
                                "a100-40gb-x8-mig-mixed",
                                Map.of(Flag.MIG_STRATEGY, "mixed", Flag.PASS_DEVICE_SPECS, "true"),
                                null,
                                2)
                        .allocate(List.of(mig(1, 1)), ALL_HEALTHY);
        assertThat(m.getDevicesList())
                .extracting(DeviceSpec::getContainerPath)
                .containsExactly(
                        "/dev/nvidiactl",
                        "/dev/nvidia-uvm",
                        "/dev/nvidia1",
                        "/dev/nvidia-caps/nvidia-cap11");
    }

    static DeviceSpec spec(String container, String host) {
        return DeviceSpec.newBuilder()
                .setContainerPath(container)
                .setHostPath(host)
                .setPermissions("rw")
                .build();
    }

    @Test
    void replicasNameThePhysicalGpuOnce() {
        Allocations a =
                allocations(
                        "l4-x2",
                        Map.of(),
                        "sharing: {timeSlicing: {resources: [{name: gpu, replicas: 4}]}}",
                        0);
        ContainerAllocateResponse r =
                a.allocate(List.of(gpu(1) + "::0", gpu(1) + "::3", gpu(0) + "::2"), ALL_HEALTHY);
        assertThat(r.getEnvsMap()).containsEntry("NVIDIA_VISIBLE_DEVICES", gpu(1) + "," + gpu(0));
    }

    @Test
    void sharedRequestsOverOneFailWhenConfigured() {
        Allocations a =
                allocations(
                        "l4-x2",
                        Map.of(),
                        """
                sharing: {timeSlicing: {failRequestsGreaterThanOne: true, resources: [{name: gpu, replicas: 4}]}}
                """,
                        0);
        assertThatThrownBy(() -> a.allocate(List.of(gpu(1) + "::0", gpu(1) + "::1"), ALL_HEALTHY))
                .isInstanceOf(InvalidRequestException.class)
                .hasMessage(
                        "invalid allocation request for \"nvidia.com/gpu\": invalid request: maximum request size "
                                + "for shared resources is 1; found 2");
        assertThat(a.allocate(List.of(gpu(1) + "::1"), ALL_HEALTHY).getEnvsMap())
                .containsKey("NVIDIA_VISIBLE_DEVICES");
    }

    @Test
    void unknownAndUnhealthyIdsAreRefusedByName() {
        Allocations a = allocations(Map.of());
        assertThatThrownBy(() -> a.allocate(List.of(gpu(0), "GPU-bogus"), ALL_HEALTHY))
                .isInstanceOf(InvalidRequestException.class)
                .hasMessageContaining("unknown device: GPU-bogus");
        assertThatThrownBy(() -> a.allocate(List.of(gpu(0) + "::0"), ALL_HEALTHY))
                .hasMessageContaining("unknown device: " + gpu(0) + "::0");
        assertThatThrownBy(() -> a.allocate(List.of(gpu(0), gpu(4)), d -> !d.uuid().equals(gpu(4))))
                .hasMessageContaining("device " + gpu(4) + " is unhealthy");
        assertThatThrownBy(() -> a.allocate(List.of(), ALL_HEALTHY))
                .hasMessageContaining("no device IDs");
    }
}
