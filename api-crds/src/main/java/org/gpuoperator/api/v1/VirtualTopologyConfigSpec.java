package org.gpuoperator.api.v1;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import org.gpuoperator.api.common.UnknownFieldsPreserving;

/** vGPU virtual topology configuration. */
public class VirtualTopologyConfigSpec extends UnknownFieldsPreserving {
    @JsonProperty("config")
    @JsonPropertyDescription("ConfigMap with the virtual topology configuration.")
    private String config;

    public String getConfig() {
        return config;
    }

    public void setConfig(String config) {
        this.config = config;
    }
}
