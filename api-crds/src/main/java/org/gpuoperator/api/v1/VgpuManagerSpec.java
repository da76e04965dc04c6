package org.gpuoperator.api.v1;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import org.gpuoperator.api.common.ComponentSpec;
import org.gpuoperator.api.common.DriverManagerSpec;

/** The vGPU host driver operand. Not implemented by this project. */
public class VgpuManagerSpec extends ComponentSpec {
    @JsonProperty("driverManager")
    @JsonPropertyDescription("The driver manager init container.")
    private DriverManagerSpec driverManager;

    public DriverManagerSpec getDriverManager() {
        return driverManager;
    }

    public void setDriverManager(DriverManagerSpec driverManager) {
        this.driverManager = driverManager;
    }

    /** The vGPU manager is off unless enabled. */
    @Override
    protected boolean defaultEnabled() {
        return false;
    }
}
