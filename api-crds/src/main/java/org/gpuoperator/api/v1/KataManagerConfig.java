package org.gpuoperator.api.v1;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import java.util.List;
import org.gpuoperator.api.common.UnknownFieldsPreserving;

/** Configuration of the Kata manager. */
public class KataManagerConfig extends UnknownFieldsPreserving {
    @JsonProperty("artifactsDir")
    @JsonPropertyDescription("Host directory for the Kata artifacts.")
    private String artifactsDir;

    @JsonProperty("runtimeClasses")
    @JsonPropertyDescription("Runtime classes to create.")
    private List<KataRuntimeClassSpec> runtimeClasses;

    public String getArtifactsDir() {
        return artifactsDir;
    }

    public void setArtifactsDir(String artifactsDir) {
        this.artifactsDir = artifactsDir;
    }

    public List<KataRuntimeClassSpec> getRuntimeClasses() {
        return runtimeClasses;
    }

    public void setRuntimeClasses(List<KataRuntimeClassSpec> runtimeClasses) {
        this.runtimeClasses = runtimeClasses;
    }
}
