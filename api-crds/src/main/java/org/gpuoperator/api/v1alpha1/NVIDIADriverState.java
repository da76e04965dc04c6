package org.gpuoperator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import org.gpuoperator.api.common.LenientEnumDeserializer;

/** The state of an NVIDIADriver. */
@JsonDeserialize(using = LenientEnumDeserializer.class)
public enum NVIDIADriverState {
    /** The driver is ready on every selected node. */
    @JsonProperty("ready")
    READY,
    /** The driver is not ready on some selected node. */
    @JsonProperty("notReady")
    NOT_READY,
    /** NVIDIADriver resources are not in use (ClusterPolicy driver.useNvidiaDriverCRD is false). */
    @JsonProperty("disabled")
    DISABLED;

    /** The value as written in YAML. */
    public String jsonValue() {
        return switch (this) {
            case READY -> "ready";
            case NOT_READY -> "notReady";
            case DISABLED -> "disabled";
        };
    }
}
