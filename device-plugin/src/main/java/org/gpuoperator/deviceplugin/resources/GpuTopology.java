package org.gpuoperator.deviceplugin.resources;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.gpuoperator.node.inventory.Gpu;
import org.gpuoperator.node.inventory.GpuLink;

/**
 * How the node's GPUs connect: NUMA node per GPU and the link of each pair. Pure data for
 * allocation choices.
 */
public final class GpuTopology {

    private final Map<Integer, Integer> numa = new HashMap<>();
    private final Map<Long, GpuLink> links = new HashMap<>();

    public GpuTopology(List<Gpu> gpus, List<GpuLink> links) {
        gpus.forEach(g -> numa.put(g.index(), g.numaNode()));
        links.forEach(l -> this.links.put(key(l.a(), l.b()), l));
    }

    public int numaNode(int gpu) {
        return numa.getOrDefault(gpu, -1);
    }

    /** The link between two GPUs; an unknown pair counts as crossing the system interconnect. */
    public GpuLink link(int a, int b) {
        int lo = Math.min(a, b);
        int hi = Math.max(a, b);
        GpuLink l = links.get(key(lo, hi));
        return l != null ? l : new GpuLink(lo, hi, GpuLink.Level.SYSTEM, 0);
    }

    private static long key(int a, int b) {
        return ((long) a << 32) | (b & 0xffffffffL);
    }
}
