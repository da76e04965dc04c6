package org.gpuoperator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import org.gpuoperator.api.common.UnknownFieldsPreserving;

/** A reference to a ConfigMap or Secret by name. */
public class DriverConfigRef extends UnknownFieldsPreserving {
    @JsonProperty("name")
    @JsonPropertyDescription("Name of the ConfigMap or Secret.")
    private String name;

    public String getName() {
        return name;
    }

    public void setName(String name) {
        this.name = name;
    }
}
