package org.gpuoperator.api.v1;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import org.gpuoperator.api.common.UnknownFieldsPreserving;

/** The Service in front of the exporter. */
public class DcgmExporterServiceConfig extends UnknownFieldsPreserving {
    @JsonProperty("type")
    @JsonPropertyDescription("Service type. Default ClusterIP.")
    private ServiceType type;

    @JsonProperty("internalTrafficPolicy")
    @JsonPropertyDescription("Internal traffic policy: Cluster or Local.")
    private InternalTrafficPolicy internalTrafficPolicy;

    public ServiceType getType() {
        return type;
    }

    public void setType(ServiceType type) {
        this.type = type;
    }

    public InternalTrafficPolicy getInternalTrafficPolicy() {
        return internalTrafficPolicy;
    }

    public void setInternalTrafficPolicy(InternalTrafficPolicy internalTrafficPolicy) {
        this.internalTrafficPolicy = internalTrafficPolicy;
    }
}
