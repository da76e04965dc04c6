package org.gpuoperator.exporter.counters;

import java.util.Optional;
import org.gpuoperator.node.inventory.Gpu;
import org.gpuoperator.node.inventory.GpuMetric;
import org.gpuoperator.node.inventory.NodeInfo;

/**
 * The DCGM fields this exporter can read, each mapped to what the shared GPU inventory provides. A
 * DCGM field that is not listed here cannot be read by this project: the counters file loader
 * reports it once and skips it.
 */
public enum DcgmField {
    DCGM_FI_DEV_GPU_UTIL(GpuMetric.GPU_UTIL, false),
    DCGM_FI_DEV_MEM_COPY_UTIL(GpuMetric.MEM_COPY_UTIL, false),
    DCGM_FI_DEV_FB_USED(GpuMetric.FB_USED_MIB, false),
    DCGM_FI_DEV_FB_FREE(GpuMetric.FB_FREE_MIB, false),
    DCGM_FI_DEV_FB_RESERVED(GpuMetric.FB_RESERVED_MIB, false),
    DCGM_FI_DEV_GPU_TEMP(GpuMetric.GPU_TEMP_C, true),
    DCGM_FI_DEV_MEMORY_TEMP(GpuMetric.MEMORY_TEMP_C, true),
    DCGM_FI_DEV_POWER_USAGE(GpuMetric.POWER_USAGE_W, true),
    DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION(GpuMetric.TOTAL_ENERGY_MJ, true),
    DCGM_FI_DEV_SM_CLOCK(GpuMetric.SM_CLOCK_MHZ, true),
    DCGM_FI_DEV_MEM_CLOCK(GpuMetric.MEM_CLOCK_MHZ, true),
    DCGM_FI_DEV_ECC_SBE_VOL_TOTAL(GpuMetric.ECC_SBE_VOLATILE_TOTAL, true),
    DCGM_FI_DEV_ECC_DBE_VOL_TOTAL(GpuMetric.ECC_DBE_VOLATILE_TOTAL, true),
    DCGM_FI_DEV_ECC_SBE_AGG_TOTAL(GpuMetric.ECC_SBE_AGGREGATE_TOTAL, true),
    DCGM_FI_DEV_ECC_DBE_AGG_TOTAL(GpuMetric.ECC_DBE_AGGREGATE_TOTAL, true),
    DCGM_FI_DEV_PCIE_REPLAY_COUNTER(GpuMetric.PCIE_REPLAY_COUNTER, true),
    DCGM_FI_DEV_PCIE_TX_THROUGHPUT(GpuMetric.PCIE_TX_KBPS, true),
    DCGM_FI_DEV_PCIE_RX_THROUGHPUT(GpuMetric.PCIE_RX_KBPS, true),
    DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL(GpuMetric.NVLINK_BANDWIDTH_TOTAL, true),
    DCGM_FI_DEV_XID_ERRORS(GpuMetric.XID_LAST, true),
    DCGM_FI_DEV_ENC_UTIL(GpuMetric.ENC_UTIL, false),
    DCGM_FI_DEV_DEC_UTIL(GpuMetric.DEC_UTIL, false),
    DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS(GpuMetric.CORRECTABLE_REMAPPED_ROWS, true),
    DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS(GpuMetric.UNCORRECTABLE_REMAPPED_ROWS, true),
    DCGM_FI_DEV_ROW_REMAP_FAILURE(GpuMetric.ROW_REMAP_FAILURE, true),
    DCGM_FI_DEV_ROW_REMAP_PENDING(GpuMetric.ROW_REMAP_PENDING, true),
    DCGM_FI_DEV_RETIRED_SBE(GpuMetric.RETIRED_SBE, true),
    DCGM_FI_DEV_RETIRED_DBE(GpuMetric.RETIRED_DBE, true),
    DCGM_FI_DEV_RETIRED_PENDING(GpuMetric.RETIRED_PENDING, true),
    DCGM_FI_DEV_CLOCKS_EVENT_REASONS(GpuMetric.CLOCKS_EVENT_REASONS, true),
    /** DCGM's deprecated name of {@link #DCGM_FI_DEV_CLOCKS_EVENT_REASONS} (same field id). */
    DCGM_FI_DEV_CLOCK_THROTTLE_REASONS(GpuMetric.CLOCKS_EVENT_REASONS, true),
    DCGM_FI_DEV_POWER_VIOLATION(GpuMetric.POWER_VIOLATION_NS, true),
    DCGM_FI_DEV_THERMAL_VIOLATION(GpuMetric.THERMAL_VIOLATION_NS, true),
    DCGM_FI_DEV_SYNC_BOOST_VIOLATION(GpuMetric.SYNC_BOOST_VIOLATION_NS, true),
    DCGM_FI_DEV_BOARD_LIMIT_VIOLATION(GpuMetric.BOARD_LIMIT_VIOLATION_NS, true),
    DCGM_FI_DEV_LOW_UTIL_VIOLATION(GpuMetric.LOW_UTIL_VIOLATION_NS, true),
    DCGM_FI_DEV_RELIABILITY_VIOLATION(GpuMetric.RELIABILITY_VIOLATION_NS, true),

    // Profiling, from NVML's GPM API (Hopper and later) instead of DCGM. Whole GPUs only: NVML
    // samples MIG instances apart, which the shared inventory does not do.
    DCGM_FI_PROF_GR_ENGINE_ACTIVE(GpuMetric.PROF_GR_ENGINE_ACTIVE, false),
    DCGM_FI_PROF_SM_ACTIVE(GpuMetric.PROF_SM_ACTIVE, false),
    DCGM_FI_PROF_SM_OCCUPANCY(GpuMetric.PROF_SM_OCCUPANCY, false),
    DCGM_FI_PROF_PIPE_TENSOR_ACTIVE(GpuMetric.PROF_PIPE_TENSOR_ACTIVE, false),
    DCGM_FI_PROF_DRAM_ACTIVE(GpuMetric.PROF_DRAM_ACTIVE, false),
    DCGM_FI_PROF_PIPE_FP64_ACTIVE(GpuMetric.PROF_PIPE_FP64_ACTIVE, false),
    DCGM_FI_PROF_PIPE_FP32_ACTIVE(GpuMetric.PROF_PIPE_FP32_ACTIVE, false),
    DCGM_FI_PROF_PIPE_FP16_ACTIVE(GpuMetric.PROF_PIPE_FP16_ACTIVE, false),
    DCGM_FI_PROF_PCIE_TX_BYTES(GpuMetric.PROF_PCIE_TX_BYTES, false),
    DCGM_FI_PROF_PCIE_RX_BYTES(GpuMetric.PROF_PCIE_RX_BYTES, false),
    DCGM_FI_PROF_NVLINK_TX_BYTES(GpuMetric.PROF_NVLINK_TX_BYTES, false),
    DCGM_FI_PROF_NVLINK_RX_BYTES(GpuMetric.PROF_NVLINK_RX_BYTES, false),

    // String fields: only usable with type "label".
    DCGM_FI_DRIVER_VERSION(LabelSource.DRIVER_VERSION),
    DCGM_FI_NVML_VERSION(LabelSource.NVML_VERSION),
    DCGM_FI_DEV_NAME(LabelSource.PRODUCT_NAME),
    DCGM_FI_CUDA_DRIVER_VERSION(LabelSource.CUDA_DRIVER_VERSION);

    private final GpuMetric metric;
    private final boolean perMigInstance;
    private final LabelSource labelSource;

    DcgmField(GpuMetric metric, boolean perMigInstance) {
        this.metric = metric;
        this.perMigInstance = perMigInstance;
        this.labelSource = null;
    }

    DcgmField(LabelSource labelSource) {
        this.metric = null;
        this.perMigInstance = true;
        this.labelSource = labelSource;
    }

    /** The numeric reading, empty for string fields. */
    public Optional<GpuMetric> metric() {
        return Optional.ofNullable(metric);
    }

    public boolean isString() {
        return labelSource != null;
    }

    /**
     * Whether a MIG instance series may carry this field. Device-wide readings (clocks,
     * temperature, power, errors) are the same for every instance, as DCGM reports them;
     * utilisation and framebuffer are per instance in DCGM, and the shared inventory samples whole
     * GPUs only, so they are left out for MIG instances rather than misreported.
     */
    public boolean perMigInstance() {
        return perMigInstance;
    }

    /** The value of a string field for one GPU. */
    public String stringValue(NodeInfo node, Gpu gpu) {
        if (labelSource == null) {
            throw new IllegalStateException(name() + " is not a string field");
        }
        return switch (labelSource) {
            case DRIVER_VERSION -> node.driverVersion();
            case NVML_VERSION -> node.nvmlVersion();
            case PRODUCT_NAME -> gpu.productName();
            case CUDA_DRIVER_VERSION -> Integer.toString(node.cudaDriverVersion());
        };
    }

    public static Optional<DcgmField> byName(String name) {
        for (DcgmField f : values()) {
            if (f.name().equals(name)) {
                return Optional.of(f);
            }
        }
        return Optional.empty();
    }

    private enum LabelSource {
        DRIVER_VERSION,
        NVML_VERSION,
        PRODUCT_NAME,
        CUDA_DRIVER_VERSION
    }
}
