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
     * @param slot NVML's MIG device index on the parent ({@code
     *     nvmlDeviceGetMigDeviceHandleByIndex}): the {@code <gpu>:<slot>} of {@code
     *     NVIDIA_VISIBLE_DEVICES} and of the CDI spec's device names
     * @param gpuInstanceId GI id
     * @param computeInstanceId CI id
     * @param uuid {@code MIG-xxxxxxxx-...}
     * @param profile profile name as in resource names, e.g. {@code 1g.10gb}
     * @param attributes its share of the GPU, as NVML reports it
     */
    public record MigDevice(
            int parentIndex,
            int slot,
            int gpuInstanceId,
            int computeInstanceId,
            String uuid,
            String profile,
            MigAttributes attributes) {

        public MigDevice {
            Objects.requireNonNull(uuid, "uuid");
            Objects.requireNonNull(profile, "profile");
            Objects.requireNonNull(attributes, "attributes");
        }

        /** {@code <gpu index>:<slot>}, as {@code NVIDIA_VISIBLE_DEVICES} and CDI name it. */
        public String index() {
            return parentIndex + ":" + slot;
        }

        public long memoryMiB() {
            return attributes.memoryMiB();
        }

        public int multiprocessors() {
            return attributes.multiprocessors();
        }
    }

    /**
     * A MIG device's share of its GPU: NVML's {@code nvmlDeviceAttributes_t} of the MIG device.
     *
     * @param memoryMiB memory in MiB
     * @param multiprocessors SM count
     * @param gpuInstanceSlices slices of its GPU instance, e.g. 3 for {@code 3g.20gb}
     * @param computeInstanceSlices slices of its compute instance (1 for {@code 1c.3g.20gb})
     * @param engines the engines its GPU instance holds
     */
    public record MigAttributes(
            long memoryMiB,
            int multiprocessors,
            int gpuInstanceSlices,
            int computeInstanceSlices,
            Engines engines) {
        public MigAttributes {
            Objects.requireNonNull(engines, "engines");
        }
    }

    /** Engine counts of a GPU instance ({@code shared*Count} in NVML's attributes). */
    public record Engines(int copy, int decoder, int encoder, int jpeg, int ofa) {}
}
