package org.gpuoperator.api.v1;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import org.gpuoperator.api.common.ComponentSpec;

/** The vGPU device manager operand. Not implemented by this project. */
public class VgpuDeviceManagerSpec extends ComponentSpec {
    @JsonProperty("config")
    @JsonPropertyDescription("vGPU device configuration.")
    private VgpuDevicesConfigSpec config;

    public VgpuDevicesConfigSpec getConfig() {
        return config;
    }

    public void setConfig(VgpuDevicesConfigSpec config) {
        this.config = config;
    }

    /** The vGPU device manager is off unless enabled. */
    @Override
    protected boolean defaultEnabled() {
        return false;
    }
}
