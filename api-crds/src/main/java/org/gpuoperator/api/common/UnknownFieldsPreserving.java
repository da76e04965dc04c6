package org.gpuoperator.api.common;

import com.fasterxml.jackson.annotation.JsonAnyGetter;
import com.fasterxml.jackson.annotation.JsonAnySetter;
import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Base of every spec object: fields this project does not know are kept, written back unchanged, and reported as
 * warnings by the validator instead of being dropped. A ClusterPolicy written for the upstream operator therefore
 * round-trips. The CRD generator marks such objects {@code x-kubernetes-preserve-unknown-fields: true}.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public abstract class UnknownFieldsPreserving {
  private final Map<String, Object> additionalProperties = new LinkedHashMap<>();

  /** The fields of this object that this project does not know, by JSON name, in input order. */
  @JsonAnyGetter
  public Map<String, Object> getAdditionalProperties() {
    return additionalProperties;
  }

  @JsonAnySetter
  public void setAdditionalProperty(String name, Object value) {
    additionalProperties.put(name, value);
  }
}
