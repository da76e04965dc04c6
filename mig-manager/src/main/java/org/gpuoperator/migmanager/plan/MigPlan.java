package org.gpuoperator.migmanager.plan;

import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.gpuoperator.node.inventory.MigPartitioner.Layout;

/**
 * A named config planned for one node: each GPU's desired layout.
 *
 * @param configName the config planned
 * @param gpus one plan per GPU of the node, by index
 */
public record MigPlan(String configName, List<GpuPlan> gpus) {

    public MigPlan {
        gpus = List.copyOf(gpus);
    }

    /** Every GPU's desired layout, by index. */
    public Map<Integer, Layout> desired() {
        Map<Integer, Layout> out = new TreeMap<>();
        gpus.forEach(g -> out.put(g.index(), g.desired()));
        return Collections.unmodifiableMap(out);
    }

    /** The layouts of the GPUs that must be repartitioned, by index. */
    public Map<Integer, Layout> changes() {
        Map<Integer, Layout> out = new TreeMap<>();
        gpus.stream().filter(GpuPlan::changed).forEach(g -> out.put(g.index(), g.desired()));
        return Collections.unmodifiableMap(out);
    }

    /** Whether any GPU must be repartitioned. */
    public boolean changed() {
        return gpus.stream().anyMatch(GpuPlan::changed);
    }
}
