package org.gpuoperator.api.common;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import java.util.List;

/**
 * The fields every operand shares: whether it runs, its image, resources, arguments and
 * environment.
 */
public abstract class ComponentSpec extends ImageSpec {
    @JsonProperty("enabled")
    @JsonPropertyDescription("Whether the operand is deployed. The default depends on the operand.")
    private Boolean enabled;

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

    public Boolean getEnabled() {
        return enabled;
    }

    public void setEnabled(Boolean enabled) {
        this.enabled = enabled;
    }

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

    /**
     * Whether this operand runs: the {@code enabled} field, or the operand's default when it is not
     * set.
     *
     * @return true when the operand is enabled
     */
    public boolean isEnabled() {
        return enabled != null ? enabled : defaultEnabled();
    }

    /**
     * The value of {@link #isEnabled()} when {@code enabled} is not set; upstream's default for
     * this operand.
     */
    protected boolean defaultEnabled() {
        return true;
    }
}
