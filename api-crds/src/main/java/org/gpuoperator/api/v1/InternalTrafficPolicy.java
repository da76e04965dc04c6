package org.gpuoperator.api.v1;

import com.fasterxml.jackson.annotation.JsonProperty;

/** Kubernetes Service internal traffic policy. */
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
