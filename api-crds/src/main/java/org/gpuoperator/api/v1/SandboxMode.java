package org.gpuoperator.api.v1;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import org.gpuoperator.api.common.LenientEnumDeserializer;

/** The sandbox technology for virtual machine workloads. */
@JsonDeserialize(using = LenientEnumDeserializer.class)
public enum SandboxMode {
    /** KubeVirt virtual machines. */
    @JsonProperty("kubevirt")
    KUBEVIRT,
    /** Kata containers. */
    @JsonProperty("kata")
    KATA;

    /** The value as written in YAML. */
    public String jsonValue() {
        return switch (this) {
            case KUBEVIRT -> "kubevirt";
            case KATA -> "kata";
        };
    }
}
