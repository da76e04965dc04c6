package org.gpuoperator.api.v1;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import org.gpuoperator.api.common.UnknownFieldsPreserving;

/** Custom certificates for the driver container. */
public class DriverCertConfigSpec extends UnknownFieldsPreserving {
    @JsonProperty("name")
    @JsonPropertyDescription("ConfigMap with the certificates.")
    private String name;

    public String getName() {
        return name;
    }

    public void setName(String name) {
        this.name = name;
    }
}
