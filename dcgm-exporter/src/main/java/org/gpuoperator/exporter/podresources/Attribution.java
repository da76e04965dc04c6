package org.gpuoperator.exporter.podresources;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.gpuoperator.exporter.entity.GpuEntity;
import org.gpuoperator.node.deviceconfig.MigStrategy;

/**
 * Which containers hold which GPU entity. Built by a pure function from the node's entities and a
 * pod-resources answer; replaced as a whole on every refresh, so a pod that is gone leaves no
 * trace.
 *
 * @param holders entity key ({@link GpuEntity#key()}) to the containers holding it, sorted
 * @param mapped device IDs that matched a GPU or MIG instance of this node
 * @param unmapped device IDs of NVIDIA resources that matched nothing here
 * @param shared keys of the entities held as time-slicing or MPS replicas ({@code <id>::<n>})
 * @param pods pod UID to the holders in that pod, from joining the kubelet's device checkpoint with
 *     pod-resources ({@link #compute(List, List, List, MigStrategy)})
 */
public record Attribution(
        Map<String, List<ContainerRef>> holders,
        int mapped,
        int unmapped,
        Set<String> shared,
        Map<String, List<ContainerRef>> pods) {

    public static final Attribution NONE = new Attribution(Map.of(), 0, 0, Set.of(), Map.of());

    /**
     * Whole GPUs (strategies none and mixed) or MIG devices (single), as the device plugin says.
     */
    static final String GPU_RESOURCE = "nvidia.com/gpu";

    /** MIG devices under strategy mixed: {@code nvidia.com/mig-<profile>}. */
    static final String MIG_RESOURCE_PREFIX = "nvidia.com/mig-";

    /** Time-slicing's {@code renameByDefault} advertises {@code <name>.shared}. */
    static final String SHARED_SUFFIX = ".shared";

    /** Time-slicing replicas are advertised as {@code <id>::<replica>}. */
    static final String REPLICA_SEPARATOR = "::";

    public Attribution {
        holders = Map.copyOf(holders);
        shared = Set.copyOf(shared);
        pods = Map.copyOf(pods);
    }

    /**
     * The container of pod {@code podUid} that holds {@code entity}; empty when the pod holds it in
     * no container or in several (pod-resources has no container IDs to tell them apart).
     */
    public Optional<ContainerRef> holderInPod(GpuEntity entity, String podUid) {
        List<ContainerRef> inPod = pods.getOrDefault(podUid, List.of());
        List<ContainerRef> both =
                holdersOf(entity).stream().filter(inPod::contains).limit(2).toList();
        return both.size() == 1 ? Optional.of(both.getFirst()) : Optional.empty();
    }

    public List<ContainerRef> holdersOf(GpuEntity entity) {
        return holders.getOrDefault(entity.key(), List.of());
    }

    /**
     * Matches every device ID of a resource that holds GPUs under {@code strategy} ({@link
     * #holdsGpus}) to a GPU (by GPU UUID) or MIG instance (by MIG UUID), after stripping a
     * time-slicing {@code ::<n>} suffix. A whole GPU in MIG mode (strategy none advertises it so)
     * is held with each of its instances. Several containers may hold one entity (time-slicing); a
     * container holding several replicas of one GPU is listed once.
     */
    public static Attribution compute(
            List<GpuEntity> entities, List<ContainerDevices> assignments, MigStrategy strategy) {
        return compute(entities, assignments, List.of(), strategy);
    }

    /**
     * As {@link #compute(List, List, MigStrategy)}, and also which pod UID each holder belongs to.
     * A checkpoint entry and a pod-resources entry are the same container when they have the same
     * resource and container name and share a device ID: the kubelet gives each device ID (a
     * time-slicing replica {@code <uuid>::<n>} included) to one container at a time.
     */
    public static Attribution compute(
            List<GpuEntity> entities,
            List<ContainerDevices> assignments,
            List<DeviceCheckpoint.Entry> checkpoint,
            MigStrategy strategy) {
        Map<String, List<GpuEntity>> byUuid = new HashMap<>();
        for (GpuEntity e : entities) {
            byUuid.computeIfAbsent(e.gpu().uuid(), k -> new ArrayList<>()).add(e);
            if (e.isMig()) {
                byUuid.put(e.migInstance().uuid(), List.of(e));
            }
        }
        Map<String, TreeSet<ContainerRef>> holders = new HashMap<>();
        Set<String> shared = new HashSet<>();
        Map<String, TreeSet<ContainerRef>> pods = new HashMap<>();
        int mapped = 0;
        int unmapped = 0;
        for (ContainerDevices cd : assignments) {
            if (!holdsGpus(strategy, cd.resourceName())) {
                continue;
            }
            ContainerRef ref = new ContainerRef(cd.pod(), cd.namespace(), cd.container());
            for (DeviceCheckpoint.Entry e : checkpoint) {
                if (e.resourceName().equals(cd.resourceName())
                        && e.containerName().equals(cd.container())
                        && e.deviceIds().stream().anyMatch(cd.deviceIds()::contains)) {
                    pods.computeIfAbsent(e.podUid(), k -> new TreeSet<>()).add(ref);
                }
            }
            for (String id : cd.deviceIds()) {
                List<GpuEntity> held = byUuid.get(baseId(id));
                if (held == null) {
                    unmapped++;
                    continue;
                }
                mapped++;
                for (GpuEntity e : held) {
                    holders.computeIfAbsent(e.key(), k -> new TreeSet<>()).add(ref);
                    if (id.contains(REPLICA_SEPARATOR)) {
                        shared.add(e.key());
                    }
                }
            }
        }
        return new Attribution(sorted(holders), mapped, unmapped, shared, sorted(pods));
    }

    private static Map<String, List<ContainerRef>> sorted(Map<String, TreeSet<ContainerRef>> m) {
        Map<String, List<ContainerRef>> out = new HashMap<>();
        m.forEach((k, v) -> out.put(k, List.copyOf(v)));
        return out;
    }

    /**
     * Whether the device plugin advertises this node's GPUs or MIG devices under {@code
     * resourceName} with this MIG strategy: {@code nvidia.com/gpu} always (whole GPUs with none,
     * MIG devices with single), {@code nvidia.com/mig-<profile>} only with mixed; each also as
     * time-slicing's {@code <name>.shared}.
     */
    static boolean holdsGpus(MigStrategy strategy, String resourceName) {
        String name =
                resourceName.endsWith(SHARED_SUFFIX)
                        ? resourceName.substring(0, resourceName.length() - SHARED_SUFFIX.length())
                        : resourceName;
        return name.equals(GPU_RESOURCE)
                || (strategy == MigStrategy.MIXED && name.startsWith(MIG_RESOURCE_PREFIX));
    }

    /** {@code GPU-x::3} → {@code GPU-x}; other IDs unchanged. */
    static String baseId(String deviceId) {
        int sep = deviceId.indexOf(REPLICA_SEPARATOR);
        return sep < 0 ? deviceId : deviceId.substring(0, sep);
    }
}
