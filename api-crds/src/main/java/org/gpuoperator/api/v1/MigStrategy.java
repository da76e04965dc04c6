package org.gpuoperator.api.v1;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import org.gpuoperator.api.common.LenientEnumDeserializer;

/** How MIG devices are exposed to Kubernetes. */
@JsonDeserialize(using = LenientEnumDeserializer.class)
public enum MigStrategy {
    /** MIG devices are not exposed; whole GPUs only. */
    @JsonProperty("none")
    NONE,
    /** All GPUs of a node use one MIG profile and appear as nvidia.com/gpu. */
    @JsonProperty("single")
    SINGLE,
    /** Each MIG profile appears as its own resource, e.g. nvidia.com/mig-1g.5gb. */
    @JsonProperty("mixed")
    MIXED;

    /** The value as written in YAML. */
    public String jsonValue() {
        return switch (this) {
            case NONE -> "none";
            case SINGLE -> "single";
            case MIXED -> "mixed";
        };
    }
}
