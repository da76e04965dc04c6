package org.gpuoperator.node.inventory;

import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.stream.Collectors;

/**
 * Plain-text rendering of an inventory and its samples, for people (the real-GPU check, support
 * bundles).
 */
public final class InventoryReport {

    private InventoryReport() {}

    /** The static facts: node, GPUs, MIG devices, links. Pure. */
    public static String describe(
            String source, NodeInfo node, List<Gpu> gpus, List<GpuLink> links) {
        StringBuilder b = new StringBuilder();
        b.append("source: ").append(source).append('\n');
        b.append(
                String.format(
                        Locale.ROOT,
                        "driver: %s  cuda: %d.%d (%d)  nvml: %s%n",
                        node.driverVersion(),
                        node.cudaMajor(),
                        node.cudaMinor(),
                        node.cudaDriverVersion(),
                        node.nvmlVersion()));
        b.append("gpus: ").append(gpus.size()).append('\n');
        for (Gpu g : gpus) {
            b.append(
                    String.format(
                            Locale.ROOT,
                            "gpu %d: %s  uuid=%s  memory=%dMiB  bus=%s  minor=%d  numa=%d  compute=%s  mig=%s%n",
                            g.index(),
                            g.productName(),
                            g.uuid(),
                            g.memoryMiB(),
                            g.pciBusId(),
                            g.minorNumber(),
                            g.numaNode(),
                            g.compute(),
                            !g.mig().capable()
                                    ? "not-capable"
                                    : g.mig().enabled()
                                            ? "enabled(" + g.mig().devices().size() + " devices)"
                                            : "disabled"));
            for (Gpu.MigDevice m : g.mig().devices()) {
                b.append(
                        String.format(
                                Locale.ROOT,
                                "  mig gi=%d ci=%d: %s  uuid=%s  memory=%dMiB  sms=%d%n",
                                m.gpuInstanceId(),
                                m.computeInstanceId(),
                                m.profile(),
                                m.uuid(),
                                m.memoryMiB(),
                                m.multiprocessors()));
            }
        }
        b.append("links: ").append(links.size()).append('\n');
        for (GpuLink l : links) {
            b.append(
                    String.format(
                            Locale.ROOT,
                            "  %d-%d %s%s%n",
                            l.a(),
                            l.b(),
                            l.level(),
                            l.nvlinks() > 0 ? " x" + l.nvlinks() : ""));
        }
        return b.toString();
    }

    /** One sample as one line, metrics in their declared order. Pure. */
    public static String sampleLine(GpuSample s) {
        return "sample gpu "
                + s.gpuIndex()
                + ": "
                + s.values().entrySet().stream()
                        .map(InventoryReport::metric)
                        .collect(Collectors.joining(" "));
    }

    /**
     * A GPU's processes as one line: {@code processes gpu 0: 2 pid=4242 mem=1024MiB sm=35% mem=12%
     * enc=0% dec=3%; ...}, {@code none}, or {@code unavailable} when the source cannot tell. Pure.
     */
    public static String processesLine(int gpuIndex, Optional<List<GpuProcess>> processes) {
        String head = "processes gpu " + gpuIndex + ": ";
        if (processes.isEmpty()) {
            return head + "unavailable";
        }
        if (processes.get().isEmpty()) {
            return head + "none";
        }
        return head
                + processes.get().size()
                + " "
                + processes.get().stream()
                        .map(InventoryReport::process)
                        .collect(Collectors.joining("; "));
    }

    private static String process(GpuProcess p) {
        return "pid="
                + p.pid()
                + " fb="
                + (p.usedMemoryBytes().isPresent()
                        ? (p.usedMemoryBytes().getAsLong() / (1024 * 1024)) + "MiB"
                        : "?")
                + " sm="
                + percent(p.smUtil())
                + " mem="
                + percent(p.memUtil())
                + " enc="
                + percent(p.encUtil())
                + " dec="
                + percent(p.decUtil());
    }

    private static String percent(OptionalInt v) {
        return v.isPresent() ? v.getAsInt() + "%" : "?";
    }

    private static String metric(Map.Entry<GpuMetric, Double> e) {
        double v = e.getValue();
        String text =
                v == Math.rint(v) && Math.abs(v) < 1e15
                        ? Long.toString((long) v)
                        : String.format(Locale.ROOT, "%.3f", v);
        return e.getKey().name() + "=" + text;
    }
}
