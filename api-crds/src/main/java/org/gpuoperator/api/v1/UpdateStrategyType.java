package org.gpuoperator.api.v1;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import org.gpuoperator.api.common.LenientEnumDeserializer;

/** How operand DaemonSets replace their pods. */
@JsonDeserialize(using = LenientEnumDeserializer.class)
public enum UpdateStrategyType {
    /** Replace pods automatically, a few nodes at a time. */
    @JsonProperty("RollingUpdate")
    ROLLING_UPDATE,
    /** Replace a pod only when it is deleted. */
    @JsonProperty("OnDelete")
    ON_DELETE;

    /** The value as written in YAML. */
    public String jsonValue() {
        return switch (this) {
            case ROLLING_UPDATE -> "RollingUpdate";
            case ON_DELETE -> "OnDelete";
        };
    }
}
