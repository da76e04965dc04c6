package org.gpuoperator.api.common;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;

/** When the kubelet pulls an operand image (Kubernetes imagePullPolicy). */
@JsonDeserialize(using = LenientEnumDeserializer.class)
public enum ImagePullPolicy {
    /** Pull on every container start. */
    @JsonProperty("Always")
    ALWAYS,
    /** Pull only when the image is not on the node. */
    @JsonProperty("IfNotPresent")
    IF_NOT_PRESENT,
    /** Never pull; the image must be on the node. */
    @JsonProperty("Never")
    NEVER;

    /** The value as written in YAML. */
    public String jsonValue() {
        return switch (this) {
            case ALWAYS -> "Always";
            case IF_NOT_PRESENT -> "IfNotPresent";
            case NEVER -> "Never";
        };
    }
}
