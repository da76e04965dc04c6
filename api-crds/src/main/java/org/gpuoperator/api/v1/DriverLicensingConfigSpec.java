package org.gpuoperator.api.v1;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import org.gpuoperator.api.common.LicensingSpec;

/** vGPU licensing configuration. */
public class DriverLicensingConfigSpec extends LicensingSpec {
    @JsonProperty("configMapName")
    @JsonPropertyDescription(
            "Deprecated: ConfigMap with the licensing configuration; use secretName.")
    private String configMapName;

    public String getConfigMapName() {
        return configMapName;
    }

    public void setConfigMapName(String configMapName) {
        this.configMapName = configMapName;
    }
}
