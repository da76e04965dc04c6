package org.gpuoperator.node.inventory;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Changes the MIG layout of a node's GPUs, as NVML does: MIG mode on or off, then GPU and compute
 * instances destroyed and created. The MIG manager's only way to the GPUs; a simulated node changes
 * its layout through the same interface, and every agent then reads the new layout from its {@link
 * GpuInventory}.
 *
 * <p>Opened by {@link GpuSource#openPartitioner}: real GPUs are partitioned through NVML ({@code
 * nvml.NvmlMigPartitioner}); simulated GPUs keep their layout in files under the host root ({@code
 * simulated.SimulatedMigPartitioner}). Both refuse what the GPU refuses, with a {@link
 * GpuSourceException} naming the GPU and the reason.
 */
public interface MigPartitioner {

    /**
     * The MIG profiles GPU {@code gpuIndex} offers, by name ({@code 1g.5gb}), with what a MIG
     * device of that profile gets; empty when the GPU is not MIG capable.
     */
    Map<String, Gpu.MigAttributes> profiles(int gpuIndex);

    /**
     * GPU {@code gpuIndex}'s layout now, read from the GPU (not remembered from {@link #apply}).
     */
    Layout layout(int gpuIndex);

    /**
     * Brings GPU {@code gpuIndex} to {@code layout}: sets its MIG mode and, when MIG is on,
     * destroys its compute and GPU instances and creates one GPU instance with one compute instance
     * per entry of {@link Layout#devices()}, in that order. Nothing changes when the GPU already
     * has that layout.
     *
     * @throws GpuSourceException naming the GPU and the step that failed
     */
    void apply(int gpuIndex, Layout layout);

    /**
     * A GPU's MIG layout.
     *
     * @param enabled MIG mode
     * @param devices MIG device profiles in creation order (empty when MIG is off)
     */
    record Layout(boolean enabled, List<String> devices) {
        public static final Layout DISABLED = new Layout(false, List.of());

        public Layout {
            devices = List.copyOf(Objects.requireNonNull(devices, "devices"));
            if (!enabled && !devices.isEmpty()) {
                throw new IllegalArgumentException("MIG devices given with MIG mode off");
            }
        }

        /** The layout a GPU has now, as its inventory reports it. */
        public static Layout of(Gpu gpu) {
            return new Layout(
                    gpu.mig().enabled(),
                    gpu.mig().devices().stream().map(Gpu.MigDevice::profile).toList());
        }
    }
}
