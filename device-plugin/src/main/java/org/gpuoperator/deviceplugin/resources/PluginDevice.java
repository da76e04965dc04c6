package org.gpuoperator.deviceplugin.resources;

import java.util.List;

/**
 * One device as advertised to the kubelet: a whole GPU, a MIG device, or one replica of either.
 *
 * @param id the ID in ListAndWatch: the UUID, or {@code <uuid>::<n>} for a replica
 * @param uuid UUID of the GPU or MIG device (the ID without the replica suffix)
 * @param index NVML-style index: {@code 3} for a GPU, {@code 3:1} for the second MIG device of GPU
 *     3
 * @param gpuIndex index of the physical GPU (the parent of a MIG device)
 * @param numaNode NUMA node of the physical GPU, or -1 when unknown
 * @param paths device nodes the container needs, e.g. {@code /dev/nvidia3} (+ MIG capability nodes)
 * @param replica the replica number, or -1 when the device is not shared
 * @param mig whether this is a MIG device
 */
public record PluginDevice(
        String id,
        String uuid,
        String index,
        int gpuIndex,
        int numaNode,
        List<String> paths,
        int replica,
        boolean mig) {

    public static final String REPLICA_SEPARATOR = "::";

    public PluginDevice {
        paths = List.copyOf(paths);
    }

    public PluginDevice withReplica(int n) {
        return new PluginDevice(
                uuid + REPLICA_SEPARATOR + n, uuid, index, gpuIndex, numaNode, paths, n, mig);
    }
}
