package org.gpuoperator.api.common;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Min;

/** How GPU pods are deleted from a node before its driver is upgraded. */
public class PodDeletionSpec extends UnknownFieldsPreserving {
    @JsonProperty("force")
    @JsonPropertyDescription("Delete pods that are not managed by a controller too. Default false.")
    private Boolean force;

    @JsonProperty("timeoutSeconds")
    @JsonPropertyDescription(
            "Seconds to wait for the pods to be deleted; 0 waits forever. Default 300.")
    @Min(0)
    private Integer timeoutSeconds;

    @JsonProperty("deleteEmptyDir")
    @JsonPropertyDescription(
            "Delete pods that use emptyDir volumes too (their data is lost). Default false.")
    private Boolean deleteEmptyDir;

    public Boolean getForce() {
        return force;
    }

    public void setForce(Boolean force) {
        this.force = force;
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
