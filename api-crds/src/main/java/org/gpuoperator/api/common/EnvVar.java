package org.gpuoperator.api.common;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Required;

/** An environment variable for an operand container. Only literal values, as upstream. */
public class EnvVar extends UnknownFieldsPreserving {
    @JsonProperty("name")
    @JsonPropertyDescription("Name of the environment variable.")
    @Required
    private String name;

    @JsonProperty("value")
    @JsonPropertyDescription("Literal value of the environment variable.")
    private String value;

    public String getName() {
        return name;
    }

    public void setName(String name) {
        this.name = name;
    }

    public String getValue() {
        return value;
    }

    public void setValue(String value) {
        this.value = value;
    }

    public EnvVar() {}

    public EnvVar(String name, String value) {
        this.name = name;
        this.value = value;
    }
}
