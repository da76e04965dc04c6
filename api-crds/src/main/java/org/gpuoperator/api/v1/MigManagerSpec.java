package org.gpuoperator.api.v1;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import org.gpuoperator.api.common.ComponentSpec;

/**
 * The MIG manager operand: applies MIG partitionings from node labels (this project's {@code
 * mig-manager} image, {@link
 * org.gpuoperator.api.defaults.ClusterPolicyDefaults#MIG_MANAGER_IMAGE}). Enabled by default, as
 * upstream.
 */
public class MigManagerSpec extends ComponentSpec {
    @JsonProperty("config")
    @JsonPropertyDescription("MIG partitionings.")
    private MigManagerConfig config;

    @JsonProperty("gpuClientsConfig")
    @JsonPropertyDescription("GPU clients on the host.")
    private MigGpuClientsConfig gpuClientsConfig;

    public MigManagerConfig getConfig() {
        return config;
    }

    public void setConfig(MigManagerConfig config) {
        this.config = config;
    }

    public MigGpuClientsConfig getGpuClientsConfig() {
        return gpuClientsConfig;
    }

    public void setGpuClientsConfig(MigGpuClientsConfig gpuClientsConfig) {
        this.gpuClientsConfig = gpuClientsConfig;
    }
}
