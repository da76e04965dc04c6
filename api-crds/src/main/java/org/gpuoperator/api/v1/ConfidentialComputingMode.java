package org.gpuoperator.api.v1;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import org.gpuoperator.api.common.LenientEnumDeserializer;

/** Confidential computing mode of the GPUs. */
@JsonDeserialize(using = LenientEnumDeserializer.class)
public enum ConfidentialComputingMode {
    /** Confidential computing on. */
    @JsonProperty("on")
    ON,
    /** Confidential computing off. */
    @JsonProperty("off")
    OFF,
    /** Developer tools mode. */
    @JsonProperty("devtools")
    DEVTOOLS;

    /** The value as written in YAML. */
    public String jsonValue() {
        return switch (this) {
            case ON -> "on";
            case OFF -> "off";
            case DEVTOOLS -> "devtools";
        };
    }
}
