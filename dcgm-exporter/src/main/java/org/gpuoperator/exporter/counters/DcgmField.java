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
