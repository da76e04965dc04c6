package org.gpuoperator.node.inventory;

import java.util.List;
import java.util.Objects;

/**
 * One physical GPU as the node sees it. Pure data: every source (NVML, simulation) produces the
 * same shape.
 *
 * @param index NVML index, 0-based
 * @param minorNumber minor number of {@code /dev/nvidia<minor>}
 * @param uuid {@code GPU-xxxxxxxx-...}
 * @param productName NVML product name, e.g. {@code NVIDIA H100 80GB HBM3}
 * @param memoryMiB total framebuffer memory in MiB
 * @param pciBusId {@code 00000000:17:00.0} (NVML's 8-digit domain form)
 * @param numaNode NUMA node of the GPU's PCI root, or -1 when unknown
 * @param compute CUDA compute capability
 * @param mig MIG capability, mode and devices
 */
public record Gpu(
        int index,
        int minorNumber,
        String uuid,
        String productName,
        long memoryMiB,
        String pciBusId,
        int numaNode,
        ComputeCapability compute,
        Mig mig) {

    public Gpu {
        Objects.requireNonNull(uuid, "uuid");
        Objects.requireNonNull(productName, "productName");
        Objects.requireNonNull(pciBusId, "pciBusId");
        Objects.requireNonNull(compute, "compute");
        mig = mig == null ? Mig.NOT_CAPABLE : mig;
    }

    /** {@code /dev/nvidia<minor>}, the device node a container needs for this GPU. */
    public String devicePath() {
        return "/dev/nvidia" + minorNumber;
    }

    /** CUDA compute capability, e.g. 9.0 for Hopper. */
    public record ComputeCapability(int major, int minor) {
        @Override
        public String toString() {
            return major + "." + minor;
        }
    }

    /**
     * MIG state of one GPU.
     *
     * @param capable whether the GPU supports MIG at all
     * @param enabled whether MIG mode is currently on
     * @param devices the MIG devices when enabled (empty otherwise)
     */
    public record Mig(boolean capable, boolean enabled, List<MigDevice> devices) {
        public static final Mig NOT_CAPABLE = new Mig(false, false, List.of());

        public Mig {
            devices = List.copyOf(devices);
        }
    }

    /**
     * One MIG device (a GPU instance with one compute instance).
     *
     * @param parentIndex index of the parent GPU
     * @param gpuInstanceId GI id
     * @param computeInstanceId CI id
     * @param uuid {@code MIG-xxxxxxxx-...}
     * @param profile profile name as in resource names, e.g. {@code 1g.10gb}
     * @param memoryMiB memory of this instance in MiB
     * @param multiprocessors SM count of this instance
     */
    public record MigDevice(
            int parentIndex,
            int gpuInstanceId,
            int computeInstanceId,
            String uuid,
            String profile,
            long memoryMiB,
            int multiprocessors) {}
}
