package org.gpuoperator.migmanager.plan;

import java.util.Collections;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import org.gpuoperator.migmanager.config.PciDeviceId;
import org.gpuoperator.node.inventory.Gpu;
import org.gpuoperator.node.inventory.MigPartitioner.Layout;

/**
 * What the planner needs to know of one GPU.
 *
 * @param index NVML index
 * @param productName NVML product name, for messages and when the device id is unknown
 * @param pciDeviceId {@code 0xDDDDVVVV}, or null when unknown (simulated GPUs)
 * @param current its layout now
 * @param profiles the MIG profiles it offers, by name; empty when it is not MIG capable
 */
public record GpuFacts(
        int index,
        String productName,
        String pciDeviceId,
        Layout current,
        Map<String, Gpu.MigAttributes> profiles) {

    public GpuFacts {
        Objects.requireNonNull(productName, "productName");
        Objects.requireNonNull(current, "current");
        pciDeviceId = pciDeviceId == null ? null : PciDeviceId.normalize(pciDeviceId);
        // sorted, so that messages list the profiles in one order
        profiles = Collections.unmodifiableSortedMap(new TreeMap<>(profiles));
    }

    /** A GPU of the inventory, its PCI device id unknown. */
    public static GpuFacts of(Gpu gpu, Layout current, Map<String, Gpu.MigAttributes> profiles) {
        return new GpuFacts(gpu.index(), gpu.productName(), null, current, profiles);
    }

    /**
     * The id {@code device-filter} entries are matched against: its own, else the one its product
     * name stands for ({@link ProductDeviceIds}), else none (filtered entries pass it by).
     */
    public Optional<String> deviceId() {
        return pciDeviceId != null
                ? Optional.of(pciDeviceId)
                : ProductDeviceIds.forProduct(productName);
    }

    public boolean migCapable() {
        return !profiles.isEmpty();
    }

    /**
     * GPU-instance slices of the whole GPU: those of its largest profile (7 on A100 and H100, 4 on
     * A30), which always takes the whole GPU.
     */
    public int slices() {
        return profiles.values().stream()
                .mapToInt(Gpu.MigAttributes::gpuInstanceSlices)
                .max()
                .orElse(0);
    }

    /** {@code GPU 2 (NVIDIA A100-SXM4-40GB)}, as messages name it. */
    public String describe() {
        return "GPU " + index + " (" + productName + ")";
    }
}
