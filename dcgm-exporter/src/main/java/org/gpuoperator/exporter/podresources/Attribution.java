package org.gpuoperator.exporter.podresources;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.gpuoperator.exporter.entity.GpuEntity;

/**
 * Which containers hold which GPU entity. Built by a pure function from the node's entities and a
 * pod-resources answer; replaced as a whole on every refresh, so a pod that is gone leaves no
 * trace.
 *
 * @param holders entity key ({@link GpuEntity#key()}) to the containers holding it, sorted
 * @param mapped device IDs that matched a GPU or MIG instance of this node
 * @param unmapped device IDs of NVIDIA resources that matched nothing here
 */
public record Attribution(Map<String, List<ContainerRef>> holders, int mapped, int unmapped) {

    public static final Attribution NONE = new Attribution(Map.of(), 0, 0);

    /**
     * Resources whose devices are GPUs: {@code nvidia.com/gpu}, {@code nvidia.com/mig-*},
     * renamed/shared ones.
     */
    static final String NVIDIA_RESOURCE_PREFIX = "nvidia.com/";

    /** Time-slicing replicas are advertised as {@code <id>::<replica>}. */
    static final String REPLICA_SEPARATOR = "::";

    public Attribution {
        holders = Map.copyOf(holders);
    }

    public List<ContainerRef> holdersOf(GpuEntity entity) {
        return holders.getOrDefault(entity.key(), List.of());
    }

    /**
     * Matches every device ID of an NVIDIA resource to a GPU (by GPU UUID) or MIG instance (by MIG
     * UUID), after stripping a time-slicing {@code ::<n>} suffix. Several containers may hold one
     * entity (time-slicing); a container holding several replicas of one GPU is listed once.
     */
    public static Attribution compute(
            List<GpuEntity> entities, List<ContainerDevices> assignments) {
        Map<String, GpuEntity> byUuid = new HashMap<>();
        for (GpuEntity e : entities) {
            byUuid.put(e.isMig() ? e.migInstance().uuid() : e.gpu().uuid(), e);
        }
        Map<String, TreeSet<ContainerRef>> holders = new HashMap<>();
        int mapped = 0;
        int unmapped = 0;
        for (ContainerDevices cd : assignments) {
            if (!cd.resourceName().startsWith(NVIDIA_RESOURCE_PREFIX)) {
                continue;
            }
            ContainerRef ref = new ContainerRef(cd.pod(), cd.namespace(), cd.container());
            for (String id : cd.deviceIds()) {
                GpuEntity e = byUuid.get(baseId(id));
                if (e == null) {
                    unmapped++;
                    continue;
                }
                mapped++;
                holders.computeIfAbsent(e.key(), k -> new TreeSet<>()).add(ref);
            }
        }
        Map<String, List<ContainerRef>> out = new HashMap<>();
        holders.forEach((k, v) -> out.put(k, List.copyOf(new ArrayList<>(v))));
        return new Attribution(out, mapped, unmapped);
    }

    /** {@code GPU-x::3} → {@code GPU-x}; other IDs unchanged. */
    static String baseId(String deviceId) {
        int sep = deviceId.indexOf(REPLICA_SEPARATOR);
        return sep < 0 ? deviceId : deviceId.substring(0, sep);
    }
}
