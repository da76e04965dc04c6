package org.gpuoperator.deviceplugin.mps;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.gpuoperator.node.inventory.Gpu;

/**
 * The limits of one MPS-shared resource, as upstream's control daemon sets them: each of {@code
 * replicas} clients gets {@code 100 / replicas} percent of the threads and {@code memory /
 * replicas} MiB of pinned memory per GPU. Pure.
 *
 * @param resource the shared resource as the config names it ({@code nvidia.com/gpu})
 * @param replicas clients per GPU
 * @param activeThreadPercentage {@code CUDA_MPS_ACTIVE_THREAD_PERCENTAGE} of each client
 * @param pinnedMemoryMiB the pinned device memory limit per client, by GPU index
 */
public record MpsShare(
        String resource,
        int replicas,
        int activeThreadPercentage,
        Map<Integer, Long> pinnedMemoryMiB) {

    public MpsShare {
        pinnedMemoryMiB = Map.copyOf(pinnedMemoryMiB);
    }

    public static MpsShare of(String resource, int replicas, List<Gpu> gpus) {
        Map<Integer, Long> pinned = new TreeMap<>();
        gpus.forEach(g -> pinned.put(g.index(), g.memoryMiB() / replicas));
        return new MpsShare(resource, replicas, 100 / replicas, pinned);
    }

    /**
     * {@code CUDA_MPS_PINNED_DEVICE_MEM_LIMIT} for a container given these GPUs: {@code <n>=<MiB>M}
     * per GPU, numbered as the container sees them (in GPU index order).
     */
    public String pinnedLimitEnv(List<Integer> gpuIndexes) {
        StringBuilder b = new StringBuilder();
        List<Integer> sorted = gpuIndexes.stream().distinct().sorted().toList();
        for (int i = 0; i < sorted.size(); i++) {
            if (i > 0) {
                b.append(',');
            }
            b.append(i)
                    .append('=')
                    .append(pinnedMemoryMiB.getOrDefault(sorted.get(i), 0L))
                    .append('M');
        }
        return b.toString();
    }
}
