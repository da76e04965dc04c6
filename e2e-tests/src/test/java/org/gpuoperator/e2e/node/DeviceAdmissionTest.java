package org.gpuoperator.e2e.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.List;
import java.util.Map;
import org.gpuoperator.kubelet.deviceplugin.v1beta1.ContainerAllocateResponse;
import org.gpuoperator.kubelet.deviceplugin.v1beta1.DeviceSpec;
import org.gpuoperator.kubelet.deviceplugin.v1beta1.Mount;
import org.junit.jupiter.api.Test;

class DeviceAdmissionTest {

    static Container container(
            String name, Map<String, String> limits, Map<String, String> requests) {
        ContainerBuilder b =
                new ContainerBuilder()
                        .withName(name)
                        .withImage("i")
                        .withNewResources()
                        .endResources();
        limits.forEach((k, v) -> b.editResources().addToLimits(k, new Quantity(v)).endResources());
        requests.forEach(
                (k, v) -> b.editResources().addToRequests(k, new Quantity(v)).endResources());
        return b.build();
    }

    @Test
    void aLimitIsTheRequestForDevicesAndOtherResourcesAreNotOurs() {
        assertThat(
                        DeviceAdmission.deviceRequests(
                                container(
                                        "a", Map.of("nvidia.com/gpu", "2", "cpu", "1"), Map.of())))
                .containsExactly(Map.entry("nvidia.com/gpu", 2));
        assertThat(
                        DeviceAdmission.deviceRequests(
                                container("a", Map.of(), Map.of("nvidia.com/mig-1g.10gb", "1"))))
                .containsExactly(Map.entry("nvidia.com/mig-1g.10gb", 1));
        assertThat(
                        DeviceAdmission.deviceRequests(
                                container("a", Map.of("memory", "1Gi"), Map.of())))
                .isEmpty();
        assertThat(DeviceAdmission.deviceRequests(new ContainerBuilder().withName("x").build()))
                .isEmpty();
        assertThat(
                        DeviceAdmission.deviceRequests(
                                container("a", Map.of("nvidia.com/gpu", "0"), Map.of())))
                .isEmpty();
    }

    @Test
    void aPodAsksForTheSumOfItsContainers() {
        Pod pod =
                new PodBuilder()
                        .withNewMetadata()
                        .withName("p")
                        .endMetadata()
                        .withNewSpec()
                        .withInitContainers(
                                container("init", Map.of("nvidia.com/gpu", "1"), Map.of()))
                        .withContainers(
                                container("a", Map.of("nvidia.com/gpu", "2"), Map.of()),
                                container(
                                        "b",
                                        Map.of("nvidia.com/gpu", "1", "nvidia.com/x", "3"),
                                        Map.of()),
                                container("c", Map.of(), Map.of()))
                        .endSpec()
                        .build();
        assertThat(DeviceAdmission.deviceRequests(pod))
                .containsExactly(Map.entry("nvidia.com/gpu", 4), Map.entry("nvidia.com/x", 3));
    }

    @Test
    void answersForSeveralResourcesMergeIntoOneContainersDevices() {
        ContainerAllocateResponse gpu =
                ContainerAllocateResponse.newBuilder()
                        .putEnvs("NVIDIA_VISIBLE_DEVICES", "GPU-1")
                        .putEnvs("B", "1")
                        .addMounts(
                                Mount.newBuilder()
                                        .setContainerPath("/c")
                                        .setHostPath("/h")
                                        .setReadOnly(true))
                        .addDevices(
                                DeviceSpec.newBuilder()
                                        .setContainerPath("/dev/nvidia0")
                                        .setHostPath("/dev/nvidia0"))
                        .putAnnotations("k", "v")
                        .build();
        ContainerAllocateResponse other =
                ContainerAllocateResponse.newBuilder()
                        .putEnvs("B", "2")
                        .addDevices(
                                DeviceSpec.newBuilder()
                                        .setContainerPath("/dev/x")
                                        .setHostPath("/dev/y")
                                        .setPermissions("r"))
                        .build();
        DeviceAdmission.ContainerDevices d = DeviceAdmissions.merge(List.of(gpu, other));
        assertThat(d.envs())
                .containsExactly(Map.entry("B", "2"), Map.entry("NVIDIA_VISIBLE_DEVICES", "GPU-1"));
        assertThat(d.mounts()).containsExactly(new DeviceAdmission.HostMount("/c", "/h", true));
        assertThat(d.devices())
                .containsExactly(
                        new DeviceAdmission.HostDevice("/dev/nvidia0", "/dev/nvidia0", "rwm"),
                        new DeviceAdmission.HostDevice("/dev/x", "/dev/y", "r"));
        assertThat(d.annotations()).containsExactly(Map.entry("k", "v"));
    }

    @Test
    void withoutADeviceManagerAPodAskingForDevicesIsRejected() throws Exception {
        Pod asks =
                new PodBuilder()
                        .withNewMetadata()
                        .withName("p")
                        .endMetadata()
                        .withNewSpec()
                        .withContainers(container("a", Map.of("nvidia.com/gpu", "1"), Map.of()))
                        .endSpec()
                        .build();
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> DeviceAdmission.NONE.admit(asks))
                .isInstanceOf(DeviceAdmission.Rejected.class)
                .hasMessageContaining("nvidia.com/gpu");
        Pod plain =
                new PodBuilder()
                        .withNewMetadata()
                        .withName("p")
                        .endMetadata()
                        .withNewSpec()
                        .withContainers(container("a", Map.of(), Map.of()))
                        .endSpec()
                        .build();
        assertThat(DeviceAdmission.NONE.admit(plain)).isEmpty();
    }
}
