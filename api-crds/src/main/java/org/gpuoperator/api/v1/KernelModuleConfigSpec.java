package org.gpuoperator.api.v1;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import org.gpuoperator.api.common.UnknownFieldsPreserving;

/** Kernel module parameters of the driver. */
public class KernelModuleConfigSpec extends UnknownFieldsPreserving {
    @JsonProperty("name")
    @JsonPropertyDescription("ConfigMap with the module parameter files.")
    private String name;

    public String getName() {
        return name;
    }

    public void setName(String name) {
        this.name = name;
    }
}
