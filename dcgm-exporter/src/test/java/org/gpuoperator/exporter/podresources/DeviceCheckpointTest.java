package org.gpuoperator.exporter.podresources;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.gpuoperator.kubelet.emulator.DeviceManagerCheckpoint;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DeviceCheckpointTest {

    /** As kubelet 1.20+ writes it: device IDs by NUMA node. */
    static final String CURRENT =
            """
            {"Data":{"PodDeviceEntries":[
              {"PodUID":"uid-a","ContainerName":"jupyter","ResourceName":"nvidia.com/gpu",
               "DeviceIDs":{"0":["GPU-5::0"],"1":["GPU-5::2"]},"AllocResp":"CgQKAkE="},
              {"PodUID":"uid-b","ContainerName":"jupyter","ResourceName":"nvidia.com/gpu",
               "DeviceIDs":{"-1":["GPU-5::3"]},"AllocResp":"CgQKAkE="},
              {"PodUID":"uid-c","ResourceName":"nvidia.com/gpu","DeviceIDs":{"-1":["GPU-6"]}}],
             "RegisteredDevices":{"nvidia.com/gpu":["GPU-5::0","GPU-5::1","GPU-5::2","GPU-5::3"]}},
             "Checksum":1234567}
            """;

    @Test
    void readsEntriesWithDeviceIdsByNumaNodeAndLeavesOutIncompleteOnes() {
        assertThat(DeviceCheckpoint.parse(CURRENT))
                .containsExactly(
                        new DeviceCheckpoint.Entry(
                                "uid-a",
                                "jupyter",
                                "nvidia.com/gpu",
                                List.of("GPU-5::0", "GPU-5::2")),
                        new DeviceCheckpoint.Entry(
                                "uid-b", "jupyter", "nvidia.com/gpu", List.of("GPU-5::3")));
    }

    /** What the simulated cluster's kubelet writes (kubelet-emulator's writer) reads back. */
    @Test
    void readsTheCheckpointTheKubeletEmulatorWrites() {
        String json =
                DeviceManagerCheckpoint.json(
                        List.of(
                                new DeviceManagerCheckpoint.Entry(
                                        "uid-a",
                                        "main",
                                        "nvidia.com/gpu",
                                        new TreeMap<>(
                                                Map.of(
                                                        -1L, List.of("GPU-5::0"),
                                                        1L, List.of("GPU-5::2"))),
                                        "CgQKAkE=")),
                        Map.of("nvidia.com/gpu", List.of("GPU-5::0", "GPU-5::2")));
        assertThat(DeviceCheckpoint.parse(json))
                .containsExactly(
                        new DeviceCheckpoint.Entry(
                                "uid-a",
                                "main",
                                "nvidia.com/gpu",
                                List.of("GPU-5::0", "GPU-5::2")));
    }

    @Test
    void readsThePre120ListForm() {
        assertThat(
                        DeviceCheckpoint.parse(
                                "{\"Data\":{\"PodDeviceEntries\":[{\"PodUID\":\"u\",\"ContainerName\":\"c\","
                                        + "\"ResourceName\":\"nvidia.com/gpu\",\"DeviceIDs\":[\"GPU-1\"]}]}}"))
                .containsExactly(
                        new DeviceCheckpoint.Entry("u", "c", "nvidia.com/gpu", List.of("GPU-1")));
    }

    @Test
    void aMissingOrUnreadableFileHasNoEntries(@TempDir Path dir) throws Exception {
        assertThat(DeviceCheckpoint.read(dir.resolve(DeviceCheckpoint.FILE))).isEmpty();
        Files.writeString(dir.resolve("garbage"), "{not json");
        assertThat(DeviceCheckpoint.read(dir.resolve("garbage"))).isEmpty();
        assertThat(DeviceCheckpoint.parse("[]")).isEmpty();
        Files.writeString(dir.resolve(DeviceCheckpoint.FILE), CURRENT);
        assertThat(DeviceCheckpoint.read(dir.resolve(DeviceCheckpoint.FILE))).hasSize(2);
    }
}
