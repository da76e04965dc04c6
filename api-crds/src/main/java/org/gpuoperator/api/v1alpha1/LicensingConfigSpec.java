package org.gpuoperator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import org.gpuoperator.api.common.LicensingSpec;

/** vGPU licensing configuration. */
public class LicensingConfigSpec extends LicensingSpec {
    @JsonProperty("name")
    @JsonPropertyDescription(
            "Deprecated: ConfigMap with the licensing configuration; use secretName.")
    private String name;

    public String getName() {
        return name;
    }

    public void setName(String name) {
        this.name = name;
    }
}
