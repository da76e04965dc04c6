package org.gpuoperator.api.v1;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import java.util.Map;
import org.gpuoperator.api.common.UnknownFieldsPreserving;

/** A Kata runtime class the Kata manager creates. */
public class KataRuntimeClassSpec extends UnknownFieldsPreserving {
    @JsonProperty("name")
    @JsonPropertyDescription("Name of the RuntimeClass.")
    private String name;

    @JsonProperty("nodeSelector")
    @JsonPropertyDescription("Nodes the runtime class is available on.")
    private Map<String, String> nodeSelector;

    @JsonProperty("artifacts")
    @JsonPropertyDescription("Artifacts of the runtime class.")
    private KataArtifactsSpec artifacts;

    public String getName() {
        return name;
    }

    public void setName(String name) {
        this.name = name;
    }

    public Map<String, String> getNodeSelector() {
        return nodeSelector;
    }

    public void setNodeSelector(Map<String, String> nodeSelector) {
        this.nodeSelector = nodeSelector;
    }

    public KataArtifactsSpec getArtifacts() {
        return artifacts;
    }

    public void setArtifacts(KataArtifactsSpec artifacts) {
        this.artifacts = artifacts;
    }
}
