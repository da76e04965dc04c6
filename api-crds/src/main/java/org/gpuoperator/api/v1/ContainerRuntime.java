package org.gpuoperator.api.v1;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import org.gpuoperator.api.common.LenientEnumDeserializer;

/** A container runtime (deprecated upstream field operator.defaultRuntime). */
@JsonDeserialize(using = LenientEnumDeserializer.class)
public enum ContainerRuntime {
    /** Docker. */
    @JsonProperty("docker")
    DOCKER,
    /** CRI-O. */
    @JsonProperty("crio")
    CRIO,
    /** containerd. */
    @JsonProperty("containerd")
    CONTAINERD;

    /** The value as written in YAML. */
    public String jsonValue() {
        return switch (this) {
            case DOCKER -> "docker";
            case CRIO -> "crio";
            case CONTAINERD -> "containerd";
        };
    }
}
