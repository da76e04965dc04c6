package org.gpuoperator.api.v1;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Pattern;
import org.gpuoperator.api.common.UnknownFieldsPreserving;

/** MIG partitioning configuration. */
public class MigManagerConfig extends UnknownFieldsPreserving {
    @JsonProperty("name")
    @JsonPropertyDescription("ConfigMap with the MIG partitionings.")
    private String name;

    @JsonProperty("default")
    @JsonPropertyDescription(
            "Partitioning applied to nodes without a nvidia.com/mig.config label: all-disabled or empty.")
    @Pattern("^(all-disabled)?$")
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
