package org.gpuoperator.api.common;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.Map;

/** Compute resources of an operand container. */
public class ResourceRequirements extends UnknownFieldsPreserving {
    @JsonProperty("limits")
    @JsonPropertyDescription(
            "Maximum amount of compute resources allowed, e.g. cpu: 500m, memory: 350Mi.")
    private Map<String, Quantity> limits;

    @JsonProperty("requests")
    @JsonPropertyDescription("Minimum amount of compute resources required.")
    private Map<String, Quantity> requests;

    public Map<String, Quantity> getLimits() {
        return limits;
    }

    public void setLimits(Map<String, Quantity> limits) {
        this.limits = limits;
    }

    public Map<String, Quantity> getRequests() {
        return requests;
    }

    public void setRequests(Map<String, Quantity> requests) {
        this.requests = requests;
    }
}
