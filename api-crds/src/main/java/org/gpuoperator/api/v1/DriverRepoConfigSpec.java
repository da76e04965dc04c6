package org.gpuoperator.api.v1;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import org.gpuoperator.api.common.UnknownFieldsPreserving;

/** Custom package repository configuration for the driver container. */
public class DriverRepoConfigSpec extends UnknownFieldsPreserving {
    @JsonProperty("configMapName")
    @JsonPropertyDescription("ConfigMap with the repository files.")
    private String configMapName;

    public String getConfigMapName() {
        return configMapName;
    }

    public void setConfigMapName(String configMapName) {
        this.configMapName = configMapName;
    }
}
