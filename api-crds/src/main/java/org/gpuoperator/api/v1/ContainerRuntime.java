package org.gpuoperator.api.v1;

import com.fasterxml.jackson.annotation.JsonProperty;

/** A container runtime (deprecated upstream field operator.defaultRuntime). */
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
