package org.gpuoperator.api.v1;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.annotation.JsonDeserialize;
import org.gpuoperator.api.common.LenientEnumDeserializer;

/** Kubernetes Service type. */
@JsonDeserialize(using = LenientEnumDeserializer.class)
public enum ServiceType {
    /** A cluster-internal address. */
    @JsonProperty("ClusterIP")
    CLUSTER_IP,
    /** A port on every node. */
    @JsonProperty("NodePort")
    NODE_PORT,
    /** An external load balancer. */
    @JsonProperty("LoadBalancer")
    LOAD_BALANCER;

    /** The value as written in YAML. */
    public String jsonValue() {
        return switch (this) {
            case CLUSTER_IP -> "ClusterIP";
            case NODE_PORT -> "NodePort";
            case LOAD_BALANCER -> "LoadBalancer";
        };
    }
}
