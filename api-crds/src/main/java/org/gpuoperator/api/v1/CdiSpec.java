package org.gpuoperator.api.v1;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import org.gpuoperator.api.common.UnknownFieldsPreserving;

/** Container Device Interface: how GPUs are injected into containers. */
public class CdiSpec extends UnknownFieldsPreserving {
    @JsonProperty("enabled")
    @JsonPropertyDescription("Generate CDI specs and inject GPUs through CDI. Default true.")
    private Boolean enabled;

    @JsonProperty("default")
    @JsonPropertyDescription(
            "Deprecated: make CDI the default injection mechanism of the nvidia runtime.")
    private Boolean defaultConfig;

    @JsonProperty("nriPluginEnabled")
    @JsonPropertyDescription(
            "Inject GPUs through the NRI plugin of the toolkit instead of a RuntimeClass; needs cdi.enabled and toolkit.enabled. Default false.")
    private Boolean nriPluginEnabled;

    public Boolean getEnabled() {
        return enabled;
    }

    public void setEnabled(Boolean enabled) {
        this.enabled = enabled;
    }

    public Boolean getDefaultConfig() {
        return defaultConfig;
    }

    public void setDefaultConfig(Boolean defaultConfig) {
        this.defaultConfig = defaultConfig;
    }

    public Boolean getNriPluginEnabled() {
        return nriPluginEnabled;
    }

    public void setNriPluginEnabled(Boolean nriPluginEnabled) {
        this.nriPluginEnabled = nriPluginEnabled;
    }

    /** Whether CDI is used; upstream default true. */
    public boolean isEnabled() {
        return enabled == null || enabled;
    }
}
