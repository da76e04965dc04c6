package org.gpuoperator.api.v1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Size;
import java.util.List;

/** Summary of the GPU nodes. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class NodesStatus {
    @JsonProperty("gpuNodes")
    @JsonPropertyDescription("GPU nodes (detected or simulated) the policy applies to.")
    @Min(0)
    private Integer gpuNodes;

    @JsonProperty("readyNodes")
    @JsonPropertyDescription("GPU nodes where every enabled operand is ready.")
    @Min(0)
    private Integer readyNodes;

    @JsonProperty("stuckNodes")
    @JsonPropertyDescription(
            "Nodes that are not ready, with the step they wait at; at most 20 entries (MAX_STUCK_NODES).")
    @Size(max = NodesStatus.MAX_STUCK_NODES)
    private List<StuckNode> stuckNodes;

    @JsonProperty("stuckNodesOmitted")
    @JsonPropertyDescription("Nodes not ready but left out of stuckNodes to keep the status small.")
    @Min(0)
    private Integer stuckNodesOmitted;

    public Integer getGpuNodes() {
        return gpuNodes;
    }

    public void setGpuNodes(Integer gpuNodes) {
        this.gpuNodes = gpuNodes;
    }

    public Integer getReadyNodes() {
        return readyNodes;
    }

    public void setReadyNodes(Integer readyNodes) {
        this.readyNodes = readyNodes;
    }

    public List<StuckNode> getStuckNodes() {
        return stuckNodes;
    }

    public void setStuckNodes(List<StuckNode> stuckNodes) {
        this.stuckNodes = stuckNodes;
    }

    public Integer getStuckNodesOmitted() {
        return stuckNodesOmitted;
    }

    public void setStuckNodesOmitted(Integer stuckNodesOmitted) {
        this.stuckNodesOmitted = stuckNodesOmitted;
    }

    /** Upper bound of {@code stuckNodes}, so that the status of a large cluster stays small. */
    public static final int MAX_STUCK_NODES = 20;
}
