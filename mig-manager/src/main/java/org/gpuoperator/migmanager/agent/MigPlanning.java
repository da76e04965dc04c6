package org.gpuoperator.migmanager.agent;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.gpuoperator.migmanager.config.MigConfigFile;
import org.gpuoperator.migmanager.plan.GpuFacts;
import org.gpuoperator.migmanager.plan.MigPlanner;
import org.gpuoperator.migmanager.reconcile.MigReconciler;
import org.gpuoperator.node.inventory.Gpu;
import org.gpuoperator.node.inventory.MigPartitioner;
import org.gpuoperator.node.inventory.MigPartitioner.Layout;

/**
 * The reconciler's planner: the mig-parted config, read afresh each time, over this node's GPUs.
 */
public final class MigPlanning {

    private MigPlanning() {}

    /**
     * Reads {@code configFile} at every plan, so an edit of the mounted ConfigMap counts at the
     * next change or retry.
     */
    public static MigReconciler.Planner fromFile(
            Path configFile, List<Gpu> gpus, MigPartitioner partitioner) {
        return of(() -> MigConfigFile.read(configFile), gpus, partitioner);
    }

    static MigReconciler.Planner of(
            Supplier<MigConfigFile> config, List<Gpu> gpus, MigPartitioner partitioner) {
        return (name, current) -> {
            List<GpuFacts> facts = new ArrayList<>();
            for (Gpu gpu : gpus) {
                Layout now = current.get(gpu.index());
                Map<String, Gpu.MigAttributes> profiles = partitioner.profiles(gpu.index());
                facts.add(GpuFacts.of(gpu, now, profiles));
            }
            return MigPlanner.plan(config.get(), name, facts).desired();
        };
    }
}
