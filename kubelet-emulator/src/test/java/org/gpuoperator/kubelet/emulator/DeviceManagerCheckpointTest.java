package org.gpuoperator.kubelet.emulator;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.gpuoperator.kubelet.deviceplugin.v1beta1.ContainerAllocateResponse;
import org.gpuoperator.kubelet.deviceplugin.v1beta1.Device;
import org.gpuoperator.kubelet.deviceplugin.v1beta1.NUMANode;
import org.gpuoperator.kubelet.deviceplugin.v1beta1.TopologyInfo;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DeviceManagerCheckpointTest {

    private static Device device(String id, long... numaNodes) {
        Device.Builder d = Device.newBuilder().setID(id).setHealth("Healthy");
        if (numaNodes.length > 0) {
            TopologyInfo.Builder t = TopologyInfo.newBuilder();
            for (long n : numaNodes) {
                t.addNodes(NUMANode.newBuilder().setID(n));
            }
            d.setTopology(t);
        }
        return d.build();
    }

    @Test
    void deviceIdsAreGroupedByTheirDevicesNumaNodesAndMinusOneWithoutTopology() {
        List<Device> devices =
                List.of(device("GPU-a::0", 1), device("GPU-a::1", 0, 1), device("GPU-b::0"));
        assertThat(
                        DeviceManagerCheckpoint.byNumaNode(
                                List.of("GPU-a::0", "GPU-a::1", "GPU-b::0", "unknown"), devices))
                .isEqualTo(
                        new TreeMap<>(
                                Map.of(
                                        -1L, List.of("GPU-b::0", "unknown"),
                                        0L, List.of("GPU-a::1"),
                                        1L, List.of("GPU-a::0", "GPU-a::1"))));
    }

    @Test
    void theTextHasTheKubeletsFieldsAndAChecksumOfTheData() {
        ContainerAllocateResponse answer =
                ContainerAllocateResponse.newBuilder()
                        .putEnvs("NVIDIA_VISIBLE_DEVICES", "a")
                        .build();
        var entry =
                DeviceManagerCheckpoint.Entry.of(
                        "uid-1",
                        "main",
                        "nvidia.com/gpu",
                        List.of("GPU-a::0"),
                        List.of(device("GPU-a::0")),
                        answer);
        String json =
                DeviceManagerCheckpoint.json(
                        List.of(entry), Map.of("nvidia.com/gpu", List.of("GPU-a::0", "GPU-a::1")));
        String data =
                "{\"PodDeviceEntries\":[{\"PodUID\":\"uid-1\",\"ContainerName\":\"main\","
                        + "\"ResourceName\":\"nvidia.com/gpu\",\"DeviceIDs\":{\"-1\":[\"GPU-a::0\"]},"
                        + "\"AllocResp\":\""
                        + Base64.getEncoder().encodeToString(answer.toByteArray())
                        + "\"}],\"RegisteredDevices\":{\"nvidia.com/gpu\":[\"GPU-a::0\",\"GPU-a::1\"]}}";
        assertThat(json).startsWith("{\"Data\":" + data + ",\"Checksum\":").endsWith("}");
        long checksum = Long.parseLong(json.replaceAll(".*\"Checksum\":(\\d+)}$", "$1"));
        assertThat(checksum).isBetween(0L, 0xffffffffL);
        assertThat(DeviceManagerCheckpoint.json(List.of(), Map.of()))
                .startsWith("{\"Data\":{\"PodDeviceEntries\":[],\"RegisteredDevices\":{}}");
    }

    @Test
    void writeReplacesTheFileAndLeavesNoTempFile(@TempDir Path dir) throws Exception {
        Files.writeString(dir.resolve(KubeletEmulator.CHECKPOINT), "old");
        DeviceManagerCheckpoint.write(dir, List.of(), Map.of());
        assertThat(Files.readString(dir.resolve(KubeletEmulator.CHECKPOINT)))
                .isEqualTo(DeviceManagerCheckpoint.json(List.of(), Map.of()));
        try (var files = Files.list(dir)) {
            assertThat(files).hasSize(1);
        }
    }
}
