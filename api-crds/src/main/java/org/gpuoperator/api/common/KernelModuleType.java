package org.gpuoperator.api.common;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;

/** Which flavour of the NVIDIA kernel modules the driver installs. */
@JsonDeserialize(using = LenientEnumDeserializer.class)
public enum KernelModuleType {
    /** Let the driver pick the recommended flavour for the GPUs and driver branch. */
    @JsonProperty("auto")
    AUTO,
    /** The open-source GPU kernel modules. */
    @JsonProperty("open")
    OPEN,
    /** The proprietary kernel modules. */
    @JsonProperty("proprietary")
    PROPRIETARY;

    /** The value as written in YAML. */
    public String jsonValue() {
        return switch (this) {
            case AUTO -> "auto";
            case OPEN -> "open";
            case PROPRIETARY -> "proprietary";
        };
    }
}
