package org.gpuoperator.api.v1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;

/** A field of the policy that this operator ignores: unknown, deprecated or not implemented. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class PolicyWarning {
    @JsonProperty("path")
    @JsonPropertyDescription("JSON path of the field, e.g. spec.driver.foo.")
    private String path;

    @JsonProperty("message")
    @JsonPropertyDescription("What is ignored and why.")
    private String message;

    public String getPath() {
        return path;
    }

    public void setPath(String path) {
        this.path = path;
    }

    public String getMessage() {
        return message;
    }

    public void setMessage(String message) {
        this.message = message;
    }

    public PolicyWarning() {}

    public PolicyWarning(String path, String message) {
        this.path = path;
        this.message = message;
    }
}
