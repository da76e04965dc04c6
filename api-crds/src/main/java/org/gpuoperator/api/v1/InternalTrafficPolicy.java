package org.gpuoperator.api.v1;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import org.gpuoperator.api.common.LenientEnumDeserializer;

/** Kubernetes Service internal traffic policy. */
@JsonDeserialize(using = LenientEnumDeserializer.class)
public enum InternalTrafficPolicy {
    /** Route to any endpoint. */
    @JsonProperty("Cluster")
    CLUSTER,
    /** Route only to endpoints on the same node. */
    @JsonProperty("Local")
    LOCAL;

    /** The value as written in YAML. */
    public String jsonValue() {
        return switch (this) {
            case CLUSTER -> "Cluster";
            case LOCAL -> "Local";
        };
    }
}
