package org.gpuoperator.api.common;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;

/**
 * vGPU licensing fields that ClusterPolicy {@code spec.driver.licensingConfig} and an
 * NVIDIADriver's {@code licensingConfig} share; each adds its name for the deprecated ConfigMap
 * ({@code configMapName} and {@code name}, as upstream).
 */
public abstract class LicensingSpec extends UnknownFieldsPreserving {
    @JsonProperty("secretName")
    @JsonPropertyDescription("Secret with the licensing configuration.")
    private String secretName;

    @JsonProperty("nlsEnabled")
    @JsonPropertyDescription("Use the NVIDIA License System.")
    private Boolean nlsEnabled;

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
