package org.gpuoperator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import org.gpuoperator.api.common.LenientEnumDeserializer;

/** What the NVIDIA driver of an NVIDIADriver serves. */
@JsonDeserialize(using = LenientEnumDeserializer.class)
public enum DriverType {
    /** The data-center GPU driver for containers. */
    @JsonProperty("gpu")
    GPU,
    /** The vGPU guest driver. */
    @JsonProperty("vgpu")
    VGPU,
    /** The vGPU host manager. */
    @JsonProperty("vgpu-host-manager")
    VGPU_HOST_MANAGER;

    /** The value as written in YAML. */
    public String jsonValue() {
        return switch (this) {
            case GPU -> "gpu";
            case VGPU -> "vgpu";
            case VGPU_HOST_MANAGER -> "vgpu-host-manager";
        };
    }
}
