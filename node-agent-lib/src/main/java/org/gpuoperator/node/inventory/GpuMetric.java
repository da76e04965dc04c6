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
    XID_LAST,
    /** percent of time the video encoder was busy */
    ENC_UTIL,
    /** percent of time the video decoder was busy */
    DEC_UTIL,
    /** rows remapped for correctable errors (monotonic) */
    CORRECTABLE_REMAPPED_ROWS,
    /** rows remapped for uncorrectable errors (monotonic) */
    UNCORRECTABLE_REMAPPED_ROWS,
    /** 1 when a row remapping failed, else 0 */
    ROW_REMAP_FAILURE,
    /** 1 when a row remapping waits for a GPU reset, else 0 */
    ROW_REMAP_PENDING,
    /** pages retired for multiple single-bit ECC errors */
    RETIRED_SBE,
    /** pages retired for a double-bit ECC error */
    RETIRED_DBE,
    /** 1 when pages wait to be retired (at the next driver load), else 0 */
    RETIRED_PENDING,
    /** bitmask of the current clock event (throttle) reasons, NVML's nvmlClocksEventReason* bits */
    CLOCKS_EVENT_REASONS,
    /** time clocks were held below their target for each reason, ns since the driver loaded */
    POWER_VIOLATION_NS,
    THERMAL_VIOLATION_NS,
    SYNC_BOOST_VIOLATION_NS,
    BOARD_LIMIT_VIOLATION_NS,
    LOW_UTIL_VIOLATION_NS,
    RELIABILITY_VIOLATION_NS,
    // Profiling (NVML GPM, Hopper and later): averages over the time between two GPM samples.
    /** ratio 0..1 of time the graphics or compute engine was active */
    PROF_GR_ENGINE_ACTIVE,
    /** ratio 0..1 of cycles an SM had at least one warp assigned */
    PROF_SM_ACTIVE,
    /** ratio 0..1 of warps resident on an SM to the maximum */
    PROF_SM_OCCUPANCY,
    /** ratio 0..1 of cycles any tensor pipe was active */
    PROF_PIPE_TENSOR_ACTIVE,
    PROF_PIPE_FP64_ACTIVE,
    PROF_PIPE_FP32_ACTIVE,
    PROF_PIPE_FP16_ACTIVE,
    /** ratio 0..1 of cycles the device memory interface was busy */
    PROF_DRAM_ACTIVE,
    /** bytes per second over PCIe, protocol headers included */
    PROF_PCIE_TX_BYTES,
    PROF_PCIE_RX_BYTES,
    /** bytes per second over all NVLinks */
    PROF_NVLINK_TX_BYTES,
    PROF_NVLINK_RX_BYTES;

    /** Whether this is a profiling metric (NVML GPM), which only some GPUs report. */
    public boolean isProfiling() {
        return name().startsWith("PROF_");
    }
}
