package org.gpuoperator.api.common;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Min;

/** Draining a node before its driver is upgraded. */
public class DrainSpec extends UnknownFieldsPreserving {
    @JsonProperty("enable")
    @JsonPropertyDescription(
            "Drain the node when deleting its GPU pods is not enough. Default false.")
    private Boolean enable;

    @JsonProperty("force")
    @JsonPropertyDescription("Delete pods that are not managed by a controller too. Default false.")
    private Boolean force;

    @JsonProperty("podSelector")
    @JsonPropertyDescription("Label selector of the pods to evict; empty means all pods.")
    private String podSelector;

    @JsonProperty("timeoutSeconds")
    @JsonPropertyDescription("Seconds to wait for the drain; 0 waits forever. Default 300.")
    @Min(0)
    private Integer timeoutSeconds;

    @JsonProperty("deleteEmptyDir")
    @JsonPropertyDescription(
            "Evict pods that use emptyDir volumes too (their data is lost). Default false.")
    private Boolean deleteEmptyDir;

    public Boolean getEnable() {
        return enable;
    }

    public void setEnable(Boolean enable) {
        this.enable = enable;
    }

    public Boolean getForce() {
        return force;
    }

    public void setForce(Boolean force) {
        this.force = force;
    }

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

    public Boolean getDeleteEmptyDir() {
        return deleteEmptyDir;
    }

    public void setDeleteEmptyDir(Boolean deleteEmptyDir) {
        this.deleteEmptyDir = deleteEmptyDir;
    }
}
