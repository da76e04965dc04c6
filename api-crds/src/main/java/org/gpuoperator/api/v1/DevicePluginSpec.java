package org.gpuoperator.api.v1;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import org.gpuoperator.api.common.ComponentSpec;

/** The device plugin operand: advertises nvidia.com/gpu to the kubelet. Enabled by default. */
public class DevicePluginSpec extends ComponentSpec {
    @JsonProperty("config")
    @JsonPropertyDescription("Configuration from a ConfigMap.")
    private DevicePluginConfig config;

    @JsonProperty("mps")
    @JsonPropertyDescription("CUDA MPS sharing.")
    private MpsSpec mps;

    public DevicePluginConfig getConfig() {
        return config;
    }

    public void setConfig(DevicePluginConfig config) {
        this.config = config;
    }

    public MpsSpec getMps() {
        return mps;
    }

    public void setMps(MpsSpec mps) {
        this.mps = mps;
    }
}
