package org.gpuoperator.api.v1;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import org.gpuoperator.api.common.UnknownFieldsPreserving;

/** Device plugin configuration from a ConfigMap shared with GPU feature discovery. */
public class DevicePluginConfig extends UnknownFieldsPreserving {
    @JsonProperty("name")
    @JsonPropertyDescription("ConfigMap holding one configuration per key.")
    private String name;

    @JsonProperty("default")
    @JsonPropertyDescription(
            "Key of the configuration used when a node has no nvidia.com/device-plugin.config label.")
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
