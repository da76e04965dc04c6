package org.gpuoperator.exporter.entity;

import java.util.ArrayList;
import java.util.List;
import org.gpuoperator.node.inventory.Gpu;

/**
 * What one series describes: a whole GPU, or one MIG instance of a GPU in MIG mode (as DCGM's GPU_I
 * entities).
 *
 * @param gpu the physical GPU
 * @param migInstance the MIG instance, or null for a whole GPU
 */
public record GpuEntity(Gpu gpu, Gpu.MigDevice migInstance) {

    /**
     * The entities to export for these GPUs: each MIG instance of a GPU in MIG mode, else the GPU
     * itself.
     */
    public static List<GpuEntity> of(List<Gpu> gpus) {
        List<GpuEntity> out = new ArrayList<>();
        for (Gpu g : gpus) {
            if (g.mig().enabled() && !g.mig().devices().isEmpty()) {
                for (Gpu.MigDevice m : g.mig().devices()) {
                    out.add(new GpuEntity(g, m));
                }
            } else {
                out.add(new GpuEntity(g, null));
            }
        }
        return List.copyOf(out);
    }

    public boolean isMig() {
        return migInstance != null;
    }

    public int gpuIndex() {
        return gpu.index();
    }

    /**
     * The key that pod attribution uses: {@code <gpu>} or {@code <gpu>-<gpu instance id>}, as
     * upstream does.
     */
    public String key() {
        return isMig()
                ? gpu.index() + "-" + migInstance.gpuInstanceId()
                : Integer.toString(gpu.index());
    }
}
