package org.gpuoperator.node.inventory;

/**
 * The per-GPU readings a sample may hold. A source leaves out what the GPU does not support, so
 * consumers never mistake "not supported" for zero.
 */
public enum GpuMetric {
    /** percent of time a kernel was running */
    GPU_UTIL,
    /** percent of time device memory was read or written */
    MEM_COPY_UTIL,
    FB_USED_MIB,
    FB_FREE_MIB,
    FB_RESERVED_MIB,
    GPU_TEMP_C,
    MEMORY_TEMP_C,
    POWER_USAGE_W,
    /** energy since the driver loaded, millijoules (monotonic) */
    TOTAL_ENERGY_MJ,
    SM_CLOCK_MHZ,
    MEM_CLOCK_MHZ,
    ECC_SBE_VOLATILE_TOTAL,
    ECC_DBE_VOLATILE_TOTAL,
    ECC_SBE_AGGREGATE_TOTAL,
    ECC_DBE_AGGREGATE_TOTAL,
    PCIE_REPLAY_COUNTER,
    /** PCIe throughput, KB/s as NVML reports it */
    PCIE_TX_KBPS,
    PCIE_RX_KBPS,
    /** total NVLink bandwidth counter */
    NVLINK_BANDWIDTH_TOTAL,
    /** the last XID error seen on this GPU, 0 for none */
    XID_LAST
}
