package org.gpuoperator.api.v1;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import org.gpuoperator.api.common.UnknownFieldsPreserving;

/** GPUs for virtual machines (KubeVirt or Kata). Not implemented by this project. */
public class SandboxWorkloadsSpec extends UnknownFieldsPreserving {
    @JsonProperty("enabled")
    @JsonPropertyDescription("Allow GPU nodes to run sandboxed workloads. Default false.")
    private Boolean enabled;

    @JsonProperty("defaultWorkload")
    @JsonPropertyDescription(
            "Workload type of nodes without a nvidia.com/gpu.workload.config label: container, vm-passthrough or vm-vgpu. Default container.")
    private SandboxWorkloadType defaultWorkload;

    @JsonProperty("mode")
    @JsonPropertyDescription("Sandbox technology: kubevirt or kata. Default kubevirt.")
    private SandboxMode mode;

    public Boolean getEnabled() {
        return enabled;
    }

    public void setEnabled(Boolean enabled) {
        this.enabled = enabled;
    }

    public SandboxWorkloadType getDefaultWorkload() {
        return defaultWorkload;
    }

    public void setDefaultWorkload(SandboxWorkloadType defaultWorkload) {
        this.defaultWorkload = defaultWorkload;
    }

    public SandboxMode getMode() {
        return mode;
    }

    public void setMode(SandboxMode mode) {
        this.mode = mode;
    }
}
