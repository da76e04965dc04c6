package org.gpuoperator.migmanager.plan;

import java.util.Objects;
import java.util.OptionalInt;
import org.gpuoperator.node.inventory.MigPartitioner.Layout;

/**
 * One GPU's part of a plan.
 *
 * @param index NVML index
 * @param current its layout now
 * @param desired the layout the config asks for; {@code current} itself when the config asks for
 *     the same MIG mode and the same devices in another order (re-creating them would only drop the
 *     devices of running pods), or when no entry selects the GPU
 * @param entry the position, in the config's list, of the last entry that selected the GPU (later
 *     entries override earlier ones, as mig-parted applies them in order); empty when none did
 */
public record GpuPlan(int index, Layout current, Layout desired, OptionalInt entry) {

    public GpuPlan {
        Objects.requireNonNull(current, "current");
        Objects.requireNonNull(desired, "desired");
        Objects.requireNonNull(entry, "entry");
    }

    /** Whether the GPU must be repartitioned. */
    public boolean changed() {
        return !desired.equals(current);
    }
}
