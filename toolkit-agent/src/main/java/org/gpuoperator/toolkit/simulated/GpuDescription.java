package org.gpuoperator.toolkit.simulated;

import java.util.List;
import org.gpuoperator.node.inventory.Gpu;
import org.gpuoperator.node.inventory.NodeInfo;
import org.gpuoperator.node.inventory.simulated.SimulatedProfile;

/**
 * The per-container file the simulated {@code nvidia-smi} reads: one tab-separated line per fact,
 * so a busybox awk script can print it. It holds only per-GPU constants; the script computes the
 * moving metrics from the clock with {@code SimulatedGpuInventory.sample}'s formula. Pure.
 *
 * <pre>
 * driver  550.54.15
 * cuda    12.4
 * gpu     &lt;index in container&gt; &lt;uuid&gt; &lt;name&gt; &lt;memory MiB&gt; &lt;bus id&gt; &lt;phase key&gt; &lt;idle W&gt; &lt;max W&gt; &lt;MIG mode&gt;
 * mig     &lt;GPU index in container&gt; &lt;MIG index&gt; &lt;uuid&gt; &lt;profile&gt;
 * </pre>
 */
public final class GpuDescription {

    /** Where the container sees the file (bind-mounted read-only); the script's default. */
    public static final String CONTAINER_PATH = "/run/nvidia-simulated-gpus";

    private GpuDescription() {}

    /**
     * The phase of a GPU's wave, as {@code SimulatedGpuInventory.sample} derives it: {@code key /
     * 65536 * 2 * PI}. Written as the integer so that awk repeats the same double operations.
     */
    public static int phaseKey(String gpuUuid) {
        return gpuUuid.hashCode() & 0xffff;
    }

    public static String render(
            String containerId, NodeInfo node, SimulatedProfile profile, VisibleGpus visible) {
        StringBuilder sb = new StringBuilder();
        sb.append("# simulated GPUs visible to container ")
                .append(containerId)
                .append(
                        " (toolkit-agent simulated nvidia-container-runtime); read by /usr/bin/nvidia-smi\n");
        sb.append("driver\t").append(node.driverVersion()).append('\n');
        sb.append("cuda\t")
                .append(node.cudaMajor())
                .append('.')
                .append(node.cudaMinor())
                .append('\n');
        List<VisibleGpus.Visible> gpus = visible.gpus();
        for (int i = 0; i < gpus.size(); i++) {
            Gpu g = gpus.get(i).gpu();
            sb.append("gpu\t")
                    .append(i)
                    .append('\t')
                    .append(g.uuid())
                    .append('\t')
                    .append(clean(g.productName()))
                    .append('\t')
                    .append(g.memoryMiB())
                    .append('\t')
                    .append(g.pciBusId())
                    .append('\t')
                    .append(phaseKey(g.uuid()))
                    .append('\t')
                    .append(profile.powerIdleW())
                    .append('\t')
                    .append(profile.powerMaxW())
                    .append('\t')
                    .append(migMode(g.mig()))
                    .append('\n');
            List<Gpu.MigDevice> migs = gpus.get(i).migDevices();
            for (int m = 0; m < migs.size(); m++) {
                sb.append("mig\t")
                        .append(i)
                        .append('\t')
                        .append(m)
                        .append('\t')
                        .append(migs.get(m).uuid())
                        .append('\t')
                        .append(clean(migs.get(m).profile()))
                        .append('\n');
            }
        }
        return sb.toString();
    }

    private static String migMode(Gpu.Mig mig) {
        return mig.enabled() ? "Enabled" : mig.capable() ? "Disabled" : "N/A";
    }

    private static String clean(String s) {
        return s.replace('\t', ' ').replace('\n', ' ');
    }
}
