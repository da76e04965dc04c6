package org.gpuoperator.api.v1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;

/** A GPU node that has not reached the end of the pipeline. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class StuckNode {
    @JsonProperty("node")
    @JsonPropertyDescription("Node name.")
    private String node;

    @JsonProperty("step")
    @JsonPropertyDescription("The pipeline step (operand) the node waits at, e.g. driver.")
    private String step;

    @JsonProperty("reason")
    @JsonPropertyDescription("Why the node waits, in plain words.")
    private String reason;

    public String getNode() {
        return node;
    }

    public void setNode(String node) {
        this.node = node;
    }

    public String getStep() {
        return step;
    }

    public void setStep(String step) {
        this.step = step;
    }

    public String getReason() {
        return reason;
    }

    public void setReason(String reason) {
        this.reason = reason;
    }

    public StuckNode() {}

    public StuckNode(String node, String step, String reason) {
        this.node = node;
        this.step = step;
        this.reason = reason;
    }
}
