package org.gpuoperator.api.common;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import java.util.List;

/**
 * The k8s-driver-manager init container that safely unloads an old driver before a new one is
 * loaded.
 */
public class DriverManagerSpec extends ImageSpec {
    @JsonProperty("env")
    @JsonPropertyDescription(
            "Environment variables of the driver manager, e.g. ENABLE_GPU_POD_EVICTION.")
    private List<EnvVar> env;

    public List<EnvVar> getEnv() {
        return env;
    }

    public void setEnv(List<EnvVar> env) {
        this.env = env;
    }
}
