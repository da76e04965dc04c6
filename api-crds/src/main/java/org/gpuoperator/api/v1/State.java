package org.gpuoperator.api.v1;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import org.gpuoperator.api.common.LenientEnumDeserializer;

/** The overall state of a ClusterPolicy or an operand. */
@JsonDeserialize(using = LenientEnumDeserializer.class)
public enum State {
    /** Every enabled operand is ready on every GPU node. */
    @JsonProperty("ready")
    READY,
    /** Some operand is not ready yet, or an error stops progress. */
    @JsonProperty("notReady")
    NOT_READY,
    /** Another ClusterPolicy is active; this one is not acted upon. */
    @JsonProperty("ignored")
    IGNORED,
    /** Disabled: nothing is deployed for it. */
    @JsonProperty("disabled")
    DISABLED;

    /** The value as written in YAML. */
    public String jsonValue() {
        return switch (this) {
            case READY -> "ready";
            case NOT_READY -> "notReady";
            case IGNORED -> "ignored";
            case DISABLED -> "disabled";
        };
    }
}
