package org.gpuoperator.api.v1;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Pattern;
import org.gpuoperator.api.common.UnknownFieldsPreserving;

/**
 * Simulated GPUs; a field of this project, not of the upstream operator. Nodes labelled {@code
 * <nodeLabel>=true} are GPU nodes with the simulated GPU profile: every operand runs its real code
 * path over a simulated GPU inventory, so the whole stack runs on machines without GPUs (tests,
 * kind).
 */
public class SimulationSpec extends UnknownFieldsPreserving {
    @JsonProperty("enabled")
    @JsonPropertyDescription(
            "Treat nodes labelled <nodeLabel>=true as simulated GPU nodes. Default false.")
    private Boolean enabled;

    @JsonProperty("profile")
    @JsonPropertyDescription(
            "Simulated GPU profile every simulated node gets, e.g. h100-80gb-x8, a100-40gb-x8, a100-40gb-x8-mig-mixed, t4-x1, l4-x2. Default h100-80gb-x8.")
    @Pattern("^[a-z0-9]([a-z0-9.-]*[a-z0-9])?$")
    private String profile;

    @JsonProperty("nodeLabel")
    @JsonPropertyDescription(
            "Label key marking simulated GPU nodes (value \"true\"). Default gpuoperator.org/simulated-gpu.")
    private String nodeLabel;

    public Boolean getEnabled() {
        return enabled;
    }

    public void setEnabled(Boolean enabled) {
        this.enabled = enabled;
    }

    public String getProfile() {
        return profile;
    }

    public void setProfile(String profile) {
        this.profile = profile;
    }

    public String getNodeLabel() {
        return nodeLabel;
    }

    public void setNodeLabel(String nodeLabel) {
        this.nodeLabel = nodeLabel;
    }

    /** Whether simulation is on; default false. */
    public boolean isEnabled() {
        return enabled != null && enabled;
    }
}
