package org.gpuoperator.api.common;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;

/** GPUDirect RDMA (nvidia-peermem). */
public class GpuDirectRdmaSpec extends UnknownFieldsPreserving {
    @JsonProperty("enabled")
    @JsonPropertyDescription("Load nvidia-peermem for GPUDirect RDMA. Default false.")
    private Boolean enabled;

    @JsonProperty("useHostMofed")
    @JsonPropertyDescription(
            "The MLNX_OFED driver is installed on the host rather than by the network operator. Default false.")
    private Boolean useHostMofed;

    public Boolean getEnabled() {
        return enabled;
    }

    public void setEnabled(Boolean enabled) {
        this.enabled = enabled;
    }

    public Boolean getUseHostMofed() {
        return useHostMofed;
    }

    public void setUseHostMofed(Boolean useHostMofed) {
        this.useHostMofed = useHostMofed;
    }
}
