package org.gpuoperator.api.v1;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import org.gpuoperator.api.common.UnknownFieldsPreserving;

/** vGPU licensing configuration. */
public class DriverLicensingConfigSpec extends UnknownFieldsPreserving {
    @JsonProperty("configMapName")
    @JsonPropertyDescription(
            "Deprecated: ConfigMap with the licensing configuration; use secretName.")
    private String configMapName;

    @JsonProperty("secretName")
    @JsonPropertyDescription("Secret with the licensing configuration.")
    private String secretName;

    @JsonProperty("nlsEnabled")
    @JsonPropertyDescription("Use the NVIDIA License System.")
    private Boolean nlsEnabled;

    public String getConfigMapName() {
        return configMapName;
    }

    public void setConfigMapName(String configMapName) {
        this.configMapName = configMapName;
    }

    public String getSecretName() {
        return secretName;
    }

    public void setSecretName(String secretName) {
        this.secretName = secretName;
    }

    public Boolean getNlsEnabled() {
        return nlsEnabled;
    }

    public void setNlsEnabled(Boolean nlsEnabled) {
        this.nlsEnabled = nlsEnabled;
    }
}
