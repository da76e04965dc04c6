package org.gpuoperator.api.v1;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import org.gpuoperator.api.common.UnknownFieldsPreserving;

/** Deprecated: PodSecurityPolicies no longer exist in Kubernetes; ignored. */
public class PspSpec extends UnknownFieldsPreserving {
    @JsonProperty("enabled")
    @JsonPropertyDescription("Ignored.")
    private Boolean enabled;

    public Boolean getEnabled() {
        return enabled;
    }

    public void setEnabled(Boolean enabled) {
        this.enabled = enabled;
    }
}
