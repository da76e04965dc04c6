package org.gpuoperator.api.v1;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import org.gpuoperator.api.common.ComponentSpec;

/** The confidential computing manager operand. Not implemented by this project. */
public class CcManagerSpec extends ComponentSpec {
    @JsonProperty("defaultMode")
    @JsonPropertyDescription(
            "Mode of GPUs on nodes without a nvidia.com/cc.mode label: on, off or devtools.")
    private ConfidentialComputingMode defaultMode;

    public ConfidentialComputingMode getDefaultMode() {
        return defaultMode;
    }

    public void setDefaultMode(ConfidentialComputingMode defaultMode) {
        this.defaultMode = defaultMode;
    }

    /** The confidential computing manager is off unless enabled. */
    @Override
    protected boolean defaultEnabled() {
        return false;
    }
}
