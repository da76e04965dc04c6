package org.gpuoperator.api.v1;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import org.gpuoperator.api.common.LenientEnumDeserializer;

/** The default workload type of GPU nodes when sandbox workloads are enabled. */
@JsonDeserialize(using = LenientEnumDeserializer.class)
public enum SandboxWorkloadType {
    /** Containers use the GPUs. */
    @JsonProperty("container")
    CONTAINER,
    /** Virtual machines get whole GPUs passed through. */
    @JsonProperty("vm-passthrough")
    VM_PASSTHROUGH,
    /** Virtual machines get vGPU devices. */
    @JsonProperty("vm-vgpu")
    VM_VGPU;

    /** The value as written in YAML. */
    public String jsonValue() {
        return switch (this) {
            case CONTAINER -> "container";
            case VM_PASSTHROUGH -> "vm-passthrough";
            case VM_VGPU -> "vm-vgpu";
        };
    }
}
