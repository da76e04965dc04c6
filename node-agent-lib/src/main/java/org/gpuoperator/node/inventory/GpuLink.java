package org.gpuoperator.node.inventory;

/**
 * How two GPUs are connected, for topology-aware allocation. Stored once per unordered pair with
 * {@code a < b}.
 *
 * @param a lower GPU index
 * @param b higher GPU index
 * @param level the closest common path between the two
 * @param nvlinks number of NVLink lanes between them (0 when not NVLink)
 */
public record GpuLink(int a, int b, Level level, int nvlinks) {

    /** Closest connection first; the order is used as a cost (lower is better). */
    public enum Level {
        NVLINK,
        /** same PCIe switch */
        PCIE_SINGLE_SWITCH,
        PCIE_MULTIPLE_SWITCHES,
        PCIE_HOST_BRIDGE,
        /** same NUMA node, across host bridges */
        NUMA_NODE,
        /** across NUMA nodes (SMP interconnect) */
        SYSTEM
    }

    public GpuLink {
        if (a >= b) {
            throw new IllegalArgumentException("a link is stored with a < b, got " + a + "," + b);
        }
    }
}
