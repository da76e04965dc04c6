package org.gpuoperator.exporter.podresources;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/**
 * The kubelet's device manager checkpoint ({@value #FILE} in its device-plugins directory): which
 * devices it allocated to which container of which pod, by pod UID. The pod-resources API says the
 * same by pod name and namespace but has no UID, and a process's cgroup has the UID but no name:
 * this file is what joins them ({@link Attribution#compute}).
 *
 * <p>The format is the kubelet's own, not an API; the fields read here ({@code
 * Data.PodDeviceEntries[].PodUID/ContainerName/ResourceName/DeviceIDs}) have kept their names since
 * Kubernetes 1.13. {@code DeviceIDs} is a map from NUMA node to IDs since 1.20 and a plain list
 * before; both are read.
 */
public final class DeviceCheckpoint {

    public static final String FILE = "kubelet_internal_checkpoint";

    /** One container's devices of one resource. */
    public record Entry(
            String podUid, String containerName, String resourceName, List<String> deviceIds) {
        public Entry {
            deviceIds = List.copyOf(deviceIds);
        }
    }

    private DeviceCheckpoint() {}

    /**
     * Reads the checkpoint; an empty list when the file is missing or not understood (then
     * per-process usage is attributed to no pod, and the whole-GPU series stay as they are).
     */
    public static List<Entry> read(Path file) {
        try {
            return parse(Files.readString(file));
        } catch (IOException | RuntimeException e) { // missing: no kubelet here, or not yet
            return List.of();
        }
    }

    /** Pure: the entries of a checkpoint's JSON text; entries missing a field are left out. */
    public static List<Entry> parse(String json) {
        Object root = new Yaml(new SafeConstructor(new LoaderOptions())).load(json);
        List<Entry> out = new ArrayList<>();
        if (!(root instanceof Map<?, ?> r)
                || !(r.get("Data") instanceof Map<?, ?> data)
                || !(data.get("PodDeviceEntries") instanceof List<?> entries)) {
            return out;
        }
        for (Object o : entries) {
            if (o instanceof Map<?, ?> e
                    && e.get("PodUID") instanceof String uid
                    && e.get("ContainerName") instanceof String container
                    && e.get("ResourceName") instanceof String resource) {
                List<String> ids = new ArrayList<>();
                collect(e.get("DeviceIDs"), ids);
                out.add(new Entry(uid, container, resource, ids));
            }
        }
        return out;
    }

    private static void collect(Object deviceIds, List<String> out) {
        if (deviceIds instanceof List<?> l) {
            l.forEach(x -> collect(x, out));
        } else if (deviceIds instanceof Map<?, ?> byNuma) {
            byNuma.values().forEach(x -> collect(x, out));
        } else if (deviceIds instanceof String s) {
            out.add(s);
        }
    }
}
