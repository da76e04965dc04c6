package org.gpuoperator.toolkit.simulated;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.gpuoperator.node.inventory.Gpu;

/**
 * The node's GPUs a container gets, resolved from {@link VisibleDevices} against the node's
 * inventory the way nvidia-container-cli matches ids: by index, {@code GPU-} UUID, {@code MIG-}
 * UUID or {@code <gpu>:<mig>}. Pure.
 *
 * @param gpus the visible GPUs in host index order (the container numbers them from 0 in this
 *     order), each with its visible MIG devices
 */
public record VisibleGpus(List<Visible> gpus) {

    /** One visible GPU; {@code migDevices} empty = the GPU itself (or a GPU with MIG off). */
    public record Visible(Gpu gpu, List<Gpu.MigDevice> migDevices) {
        public Visible {
            migDevices = List.copyOf(migDevices);
        }
    }

    public VisibleGpus {
        gpus = List.copyOf(gpus);
    }

    /**
     * @param lostGpus host indices of GPUs that fell off the bus: NVML enumeration fails on them,
     *     so the real cli refuses every GPU container on the node, not only those that asked for
     *     the lost GPU
     */
    public static VisibleGpus resolve(VisibleDevices request, List<Gpu> node, Set<Integer> lostGpus)
            throws RuntimeRefusal {
        if (!request.requested()) {
            return new VisibleGpus(List.of());
        }
        if (!lostGpus.isEmpty()) {
            throw RuntimeRefusal.gpuLost();
        }
        // host index -> MIG devices asked for (empty set = the whole GPU)
        Map<Integer, Set<Gpu.MigDevice>> chosen = new TreeMap<>();
        switch (request.kind()) {
            case NONE -> {}
            case ALL ->
                    node.forEach(
                            g -> chosen.put(g.index(), new LinkedHashSet<>(g.mig().devices())));
            case LIST -> {
                for (String id : request.ids()) {
                    select(id, node, chosen);
                }
            }
            case NOT_REQUESTED -> throw new IllegalStateException("not requested");
        }
        List<Visible> out = new ArrayList<>();
        chosen.forEach(
                (index, migs) -> {
                    Gpu g = node.get(index);
                    // keep the parent's MIG order, whatever order they were asked in
                    out.add(
                            new Visible(
                                    g, g.mig().devices().stream().filter(migs::contains).toList()));
                });
        return new VisibleGpus(out);
    }

    private static void select(String id, List<Gpu> node, Map<Integer, Set<Gpu.MigDevice>> chosen)
            throws RuntimeRefusal {
        if (id.matches("\\d+")) {
            Gpu g = byIndex(node, Integer.parseInt(id), id);
            chosen.computeIfAbsent(g.index(), k -> new LinkedHashSet<>()).addAll(g.mig().devices());
            return;
        }
        if (id.matches("\\d+:\\d+")) {
            String[] p = id.split(":");
            Gpu g = byIndex(node, Integer.parseInt(p[0]), id);
            // <gpu>:<slot>, NVML's MIG device index (slots may have gaps)
            int slot = Integer.parseInt(p[1]);
            Gpu.MigDevice m =
                    g.mig().enabled()
                            ? g.mig().devices().stream()
                                    .filter(d -> d.slot() == slot)
                                    .findFirst()
                                    .orElse(null)
                            : null;
            if (m == null) {
                throw RuntimeRefusal.unknownDevice(id);
            }
            chosen.computeIfAbsent(g.index(), k -> new LinkedHashSet<>()).add(m);
            return;
        }
        for (Gpu g : node) {
            if (g.uuid().equalsIgnoreCase(id)) {
                chosen.computeIfAbsent(g.index(), k -> new LinkedHashSet<>())
                        .addAll(g.mig().devices());
                return;
            }
            for (Gpu.MigDevice d : g.mig().devices()) {
                if (d.uuid().equalsIgnoreCase(id)) {
                    chosen.computeIfAbsent(g.index(), k -> new LinkedHashSet<>()).add(d);
                    return;
                }
            }
        }
        throw RuntimeRefusal.unknownDevice(id);
    }

    private static Gpu byIndex(List<Gpu> node, int index, String id) throws RuntimeRefusal {
        if (index < 0 || index >= node.size()) {
            throw RuntimeRefusal.unknownDevice(id);
        }
        return node.get(index);
    }
}
