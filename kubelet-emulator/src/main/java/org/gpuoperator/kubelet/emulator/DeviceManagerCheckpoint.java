package org.gpuoperator.kubelet.emulator;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.gpuoperator.kubelet.deviceplugin.v1beta1.ContainerAllocateResponse;
import org.gpuoperator.kubelet.deviceplugin.v1beta1.Device;
import org.gpuoperator.kubelet.deviceplugin.v1beta1.NUMANode;

/**
 * The kubelet device manager's checkpoint, {@value KubeletEmulator#CHECKPOINT} in its
 * device-plugins directory, in the kubelet's JSON shape: {@code
 * {"Data":{"PodDeviceEntries":[{"PodUID","ContainerName","ResourceName","DeviceIDs":{"<NUMA
 * node>":[ids]},"AllocResp":"<base64>"}],"RegisteredDevices":{"<resource>":[ids]}},"Checksum":n}}.
 * Readers such as the exporter take the pod UID of each device holder from it.
 *
 * <p>{@code Checksum} is FNV-1a (32 bit) of the {@code Data} JSON: the kubelet hashes its Go struct
 * as printed by Go, which only a kubelet checks, on its own restore; nothing here restores from it.
 */
public final class DeviceManagerCheckpoint {

    /** The kubelet's NUMA node for a device without topology. */
    public static final long NO_NUMA_NODE = -1;

    /**
     * One container's devices of one resource, by NUMA node.
     *
     * @param allocResp the plugin's Allocate answer for the container, base64 of its protobuf
     */
    public record Entry(
            String podUid,
            String containerName,
            String resourceName,
            SortedMap<Long, List<String>> deviceIds,
            String allocResp) {
        public Entry {
            deviceIds = new TreeMap<>(deviceIds);
        }

        /** As the kubelet records an allocation: the IDs by the NUMA nodes of their devices. */
        public static Entry of(
                String podUid,
                String containerName,
                String resourceName,
                List<String> ids,
                List<Device> devices,
                ContainerAllocateResponse response) {
            return new Entry(
                    podUid,
                    containerName,
                    resourceName,
                    byNumaNode(ids, devices),
                    Base64.getEncoder().encodeToString(response.toByteArray()));
        }
    }

    private DeviceManagerCheckpoint() {}

    /**
     * Pure: {@code ids} grouped by the NUMA nodes the plugin gave their devices ({@link
     * #NO_NUMA_NODE} for one without topology or not among {@code devices}); a device on several
     * nodes is listed under each, as the kubelet does.
     */
    public static SortedMap<Long, List<String>> byNumaNode(List<String> ids, List<Device> devices) {
        Map<String, Device> byId =
                devices.stream().collect(Collectors.toMap(Device::getID, d -> d, (a, b) -> a));
        SortedMap<Long, List<String>> out = new TreeMap<>();
        for (String id : ids) {
            Device d = byId.get(id);
            List<NUMANode> nodes =
                    d == null || !d.hasTopology() ? List.of() : d.getTopology().getNodesList();
            if (nodes.isEmpty()) {
                out.computeIfAbsent(NO_NUMA_NODE, k -> new ArrayList<>()).add(id);
            }
            for (NUMANode n : nodes) {
                out.computeIfAbsent(n.getID(), k -> new ArrayList<>()).add(id);
            }
        }
        return out;
    }

    /** Pure: the checkpoint's text; {@code registered} is each resource's healthy device IDs. */
    public static String json(List<Entry> entries, Map<String, List<String>> registered) {
        StringBuilder data = new StringBuilder("{\"PodDeviceEntries\":[");
        for (int i = 0; i < entries.size(); i++) {
            Entry e = entries.get(i);
            data.append(i == 0 ? "" : ",")
                    .append("{\"PodUID\":")
                    .append(quote(e.podUid()))
                    .append(",\"ContainerName\":")
                    .append(quote(e.containerName()))
                    .append(",\"ResourceName\":")
                    .append(quote(e.resourceName()))
                    .append(",\"DeviceIDs\":{");
            String sep = "";
            for (Map.Entry<Long, List<String>> n : e.deviceIds().entrySet()) {
                data.append(sep).append(quote(Long.toString(n.getKey()))).append(':');
                data.append(list(n.getValue()));
                sep = ",";
            }
            data.append("},\"AllocResp\":").append(quote(e.allocResp())).append('}');
        }
        data.append("],\"RegisteredDevices\":{");
        String sep = "";
        for (Map.Entry<String, List<String>> r : new TreeMap<>(registered).entrySet()) {
            data.append(sep).append(quote(r.getKey())).append(':').append(list(r.getValue()));
            sep = ",";
        }
        data.append("}}");
        return "{\"Data\":" + data + ",\"Checksum\":" + fnv1a32(data.toString()) + "}";
    }

    /**
     * Replaces {@code <dir>/}{@value KubeletEmulator#CHECKPOINT} at once (temp file, rename), so a
     * reader never sees half a file.
     */
    public static void write(Path dir, List<Entry> entries, Map<String, List<String>> registered)
            throws IOException {
        Path tmp = Files.createTempFile(dir, ".checkpoint-", ".tmp");
        try {
            Files.writeString(tmp, json(entries, registered));
            Files.move(
                    tmp,
                    dir.resolve(KubeletEmulator.CHECKPOINT),
                    StandardCopyOption.ATOMIC_MOVE,
                    StandardCopyOption.REPLACE_EXISTING);
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    private static String list(List<String> ids) {
        return ids.stream()
                .map(DeviceManagerCheckpoint::quote)
                .collect(Collectors.joining(",", "[", "]"));
    }

    private static String quote(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                default -> {
                    if (c < 0x20) {
                        b.append(String.format("\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        return b.append('"').toString();
    }

    private static long fnv1a32(String s) {
        int h = 0x811c9dc5;
        for (byte x : s.getBytes(StandardCharsets.UTF_8)) {
            h ^= x & 0xff;
            h *= 0x01000193;
        }
        return Integer.toUnsignedLong(h);
    }
}
