package org.gpuoperator.api.v1;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import org.gpuoperator.api.common.UnknownFieldsPreserving;

/** vGPU device configuration. */
public class VgpuDevicesConfigSpec extends UnknownFieldsPreserving {
    @JsonProperty("name")
    @JsonPropertyDescription("ConfigMap with the vGPU device configurations.")
    private String name;

    @JsonProperty("default")
    @JsonPropertyDescription(
            "Configuration applied to nodes without a nvidia.com/vgpu.config label. Default \"default\".")
    private String defaultConfig;

    public String getName() {
        return name;
    }

    public void setName(String name) {
        this.name = name;
    }

    public String getDefaultConfig() {
        return defaultConfig;
    }

    public void setDefaultConfig(String defaultConfig) {
        this.defaultConfig = defaultConfig;
    }
}
