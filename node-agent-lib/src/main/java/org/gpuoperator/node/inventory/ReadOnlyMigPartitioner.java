package org.gpuoperator.node.inventory;

import java.util.Map;

/**
 * The partitioner of a source that cannot change MIG layouts (NVML, in this version): it reports
 * the layout its inventory reads, and refuses to plan or apply a change with the reason. The MIG
 * manager then reports {@code failed} with that reason on the node instead of crash-looping.
 */
public final class ReadOnlyMigPartitioner implements MigPartitioner {

    private final GpuInventory inventory;
    private final String reason;

    public ReadOnlyMigPartitioner(GpuInventory inventory, String reason) {
        this.inventory = inventory;
        this.reason = reason;
    }

    @Override
    public Map<String, Gpu.MigAttributes> profiles(int gpuIndex) {
        throw new GpuSourceException(reason);
    }

    @Override
    public Layout layout(int gpuIndex) {
        return Layout.of(inventory.gpus().get(gpuIndex));
    }

    @Override
    public void apply(int gpuIndex, Layout layout) {
        throw new GpuSourceException(reason);
    }
}
