package org.gpuoperator.api.common;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Min;

/** Waiting for jobs on a node to finish before its driver is upgraded. */
public class WaitForCompletionSpec extends UnknownFieldsPreserving {
    @JsonProperty("podSelector")
    @JsonPropertyDescription("Label selector of the pods to wait for; empty means do not wait.")
    private String podSelector;

    @JsonProperty("timeoutSeconds")
    @JsonPropertyDescription("Seconds to wait; 0 waits forever. Default 0.")
    @Min(0)
    private Integer timeoutSeconds;

    public String getPodSelector() {
        return podSelector;
    }

    public void setPodSelector(String podSelector) {
        this.podSelector = podSelector;
    }

    public Integer getTimeoutSeconds() {
        return timeoutSeconds;
    }

    public void setTimeoutSeconds(Integer timeoutSeconds) {
        this.timeoutSeconds = timeoutSeconds;
    }
}
