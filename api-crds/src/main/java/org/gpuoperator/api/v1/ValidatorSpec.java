package org.gpuoperator.api.v1;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import org.gpuoperator.api.common.ComponentSpec;

/** The operator validator: checks each step of the node pipeline. */
public class ValidatorSpec extends ComponentSpec {
    @JsonProperty("plugin")
    @JsonPropertyDescription("Device plugin validation.")
    private ValidatorComponentSpec plugin;

    @JsonProperty("toolkit")
    @JsonPropertyDescription("Container toolkit validation.")
    private ValidatorComponentSpec toolkit;

    @JsonProperty("driver")
    @JsonPropertyDescription("Driver validation.")
    private ValidatorComponentSpec driver;

    @JsonProperty("cuda")
    @JsonPropertyDescription("CUDA workload validation.")
    private ValidatorComponentSpec cuda;

    @JsonProperty("vfioPCI")
    @JsonPropertyDescription("VFIO PCI validation.")
    private ValidatorComponentSpec vfioPCI;

    @JsonProperty("vgpuManager")
    @JsonPropertyDescription("vGPU manager validation.")
    private ValidatorComponentSpec vgpuManager;

    @JsonProperty("vgpuDevices")
    @JsonPropertyDescription("vGPU devices validation.")
    private ValidatorComponentSpec vgpuDevices;

    public ValidatorComponentSpec getPlugin() {
        return plugin;
    }

    public void setPlugin(ValidatorComponentSpec plugin) {
        this.plugin = plugin;
    }

    public ValidatorComponentSpec getToolkit() {
        return toolkit;
    }

    public void setToolkit(ValidatorComponentSpec toolkit) {
        this.toolkit = toolkit;
    }

    public ValidatorComponentSpec getDriver() {
        return driver;
    }

    public void setDriver(ValidatorComponentSpec driver) {
        this.driver = driver;
    }

    public ValidatorComponentSpec getCuda() {
        return cuda;
    }

    public void setCuda(ValidatorComponentSpec cuda) {
        this.cuda = cuda;
    }

    public ValidatorComponentSpec getVfioPCI() {
        return vfioPCI;
    }

    public void setVfioPCI(ValidatorComponentSpec vfioPCI) {
        this.vfioPCI = vfioPCI;
    }

    public ValidatorComponentSpec getVgpuManager() {
        return vgpuManager;
    }

    public void setVgpuManager(ValidatorComponentSpec vgpuManager) {
        this.vgpuManager = vgpuManager;
    }

    public ValidatorComponentSpec getVgpuDevices() {
        return vgpuDevices;
    }

    public void setVgpuDevices(ValidatorComponentSpec vgpuDevices) {
        this.vgpuDevices = vgpuDevices;
    }
}
