package org.gpuoperator.api.common;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import java.util.List;

/**
 * The container of an operand pod: its image, resources, arguments and environment. Shared by the
 * ClusterPolicy operands ({@link ComponentSpec}) and the NVIDIADriver spec, which re-describes
 * these fields for its driver pods by overriding the getters (the CRD generator takes a getter's
 * {@code @JsonPropertyDescription} over the field's).
 */
public abstract class ContainerSpec extends ImageSpec {
    @JsonProperty("resources")
    @JsonPropertyDescription("Compute resources of the operand container.")
    private ResourceRequirements resources;

    @JsonProperty("args")
    @JsonPropertyDescription("Extra arguments of the operand container.")
    private List<String> args;

    @JsonProperty("env")
    @JsonPropertyDescription("Extra environment variables of the operand container.")
    private List<EnvVar> env;

    @JsonProperty("hostNetwork")
    @JsonPropertyDescription("Run the operand pod in the host network namespace.")
    private Boolean hostNetwork;

    public ResourceRequirements getResources() {
        return resources;
    }

    public void setResources(ResourceRequirements resources) {
        this.resources = resources;
    }

    public List<String> getArgs() {
        return args;
    }

    public void setArgs(List<String> args) {
        this.args = args;
    }

    public List<EnvVar> getEnv() {
        return env;
    }

    public void setEnv(List<EnvVar> env) {
        this.env = env;
    }

    public Boolean getHostNetwork() {
        return hostNetwork;
    }

    public void setHostNetwork(Boolean hostNetwork) {
        this.hostNetwork = hostNetwork;
    }
}
