package org.gpuoperator.api.v1;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import org.gpuoperator.api.common.ComponentSpec;

/** Deprecated upstream: the Kata manager operand; always disabled. */
public class KataManagerSpec extends ComponentSpec {
    @JsonProperty("config")
    @JsonPropertyDescription("Kata manager configuration.")
    private KataManagerConfig config;

    public KataManagerConfig getConfig() {
        return config;
    }

    public void setConfig(KataManagerConfig config) {
        this.config = config;
    }

    /** The Kata manager is off unless enabled. */
    @Override
    protected boolean defaultEnabled() {
        return false;
    }
}
