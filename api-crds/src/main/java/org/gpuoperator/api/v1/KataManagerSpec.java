package org.gpuoperator.api.v1;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.crd.generator.annotation.PreserveUnknownFields;
import java.util.Map;
import org.gpuoperator.api.common.ComponentSpec;

/** Deprecated upstream: the Kata manager operand; always disabled. */
public class KataManagerSpec extends ComponentSpec {
  @JsonProperty("config")
  @JsonPropertyDescription("Kata manager configuration, kept as written.")
  @PreserveUnknownFields
  private Map<String, Object> config;

  public Map<String, Object> getConfig() {
    return config;
  }

  public void setConfig(Map<String, Object> config) {
    this.config = config;
  }

  /** The Kata manager is off unless enabled. */
  @Override
  protected boolean defaultEnabled() {
    return false;
  }
}
