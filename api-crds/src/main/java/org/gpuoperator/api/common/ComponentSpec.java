package org.gpuoperator.api.common;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;

/**
 * The fields every operand shares: whether it runs, and its container (image, resources, arguments
 * and environment).
 */
public abstract class ComponentSpec extends ContainerSpec {
    @JsonProperty("enabled")
    @JsonPropertyDescription("Whether the operand is deployed. The default depends on the operand.")
    private Boolean enabled;

    public Boolean getEnabled() {
        return enabled;
    }

    public void setEnabled(Boolean enabled) {
        this.enabled = enabled;
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
