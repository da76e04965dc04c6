package org.gpuoperator.api.common;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Min;

/** Timing of a container probe (startup, liveness or readiness). */
public class ContainerProbeSpec extends UnknownFieldsPreserving {
    @JsonProperty("initialDelaySeconds")
    @JsonPropertyDescription("Seconds after the container started before the probe starts.")
    @Min(0)
    private Integer initialDelaySeconds;

    @JsonProperty("timeoutSeconds")
    @JsonPropertyDescription("Seconds after which the probe times out.")
    @Min(1)
    private Integer timeoutSeconds;

    @JsonProperty("periodSeconds")
    @JsonPropertyDescription("How often, in seconds, the probe runs.")
    @Min(1)
    private Integer periodSeconds;

    @JsonProperty("successThreshold")
    @JsonPropertyDescription(
            "Consecutive successes after a failure for the probe to count as successful.")
    @Min(1)
    private Integer successThreshold;

    @JsonProperty("failureThreshold")
    @JsonPropertyDescription("Consecutive failures for the probe to count as failed.")
    @Min(1)
    private Integer failureThreshold;

    public Integer getInitialDelaySeconds() {
        return initialDelaySeconds;
    }

    public void setInitialDelaySeconds(Integer initialDelaySeconds) {
        this.initialDelaySeconds = initialDelaySeconds;
    }

    public Integer getTimeoutSeconds() {
        return timeoutSeconds;
    }

    public void setTimeoutSeconds(Integer timeoutSeconds) {
        this.timeoutSeconds = timeoutSeconds;
    }

    public Integer getPeriodSeconds() {
        return periodSeconds;
    }

    public void setPeriodSeconds(Integer periodSeconds) {
        this.periodSeconds = periodSeconds;
    }

    public Integer getSuccessThreshold() {
        return successThreshold;
    }

    public void setSuccessThreshold(Integer successThreshold) {
        this.successThreshold = successThreshold;
    }

    public Integer getFailureThreshold() {
        return failureThreshold;
    }

    public void setFailureThreshold(Integer failureThreshold) {
        this.failureThreshold = failureThreshold;
    }
}
