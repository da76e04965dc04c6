package org.gpuoperator.api.v1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Min;

/** The rollout of one operand over the GPU nodes. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class OperandStatus {
    @JsonProperty("name")
    @JsonPropertyDescription(
            "Operand name, e.g. driver, container-toolkit, device-plugin, gpu-feature-discovery, dcgm-exporter.")
    private String name;

    @JsonProperty("enabled")
    @JsonPropertyDescription("Whether the operand is enabled in the effective spec.")
    private Boolean enabled;

    @JsonProperty("desired")
    @JsonPropertyDescription("Nodes that should run the operand.")
    @Min(0)
    private Integer desired;

    @JsonProperty("ready")
    @JsonPropertyDescription("Nodes where the operand is ready.")
    @Min(0)
    private Integer ready;

    @JsonProperty("updated")
    @JsonPropertyDescription("Nodes that run the current operand version.")
    @Min(0)
    private Integer updated;

    @JsonProperty("state")
    @JsonPropertyDescription("ready, notReady or disabled.")
    private State state;

    public String getName() {
        return name;
    }

    public void setName(String name) {
        this.name = name;
    }

    public Boolean getEnabled() {
        return enabled;
    }

    public void setEnabled(Boolean enabled) {
        this.enabled = enabled;
    }

    public Integer getDesired() {
        return desired;
    }

    public void setDesired(Integer desired) {
        this.desired = desired;
    }

    public Integer getReady() {
        return ready;
    }

    public void setReady(Integer ready) {
        this.ready = ready;
    }

    public Integer getUpdated() {
        return updated;
    }

    public void setUpdated(Integer updated) {
        this.updated = updated;
    }

    public State getState() {
        return state;
    }

    public void setState(State state) {
        this.state = state;
    }
}
