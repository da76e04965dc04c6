package org.gpuoperator.api.common;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.kubernetes.api.model.IntOrString;

/**
 * How driver upgrades roll through the GPU nodes (one node after another, cordoned and emptied
 * first).
 */
public class DriverUpgradePolicySpec extends UnknownFieldsPreserving {
    @JsonProperty("autoUpgrade")
    @JsonPropertyDescription(
            "Upgrade the driver on the nodes automatically when its version changes. Default false in a ClusterPolicy's spec.driver, true in an NVIDIADriver (as upstream's).")
    private Boolean autoUpgrade;

    @JsonProperty("maxParallelUpgrades")
    @JsonPropertyDescription(
            "How many nodes may upgrade at the same time; 0 means no limit. Default 1.")
    @Min(0)
    private Integer maxParallelUpgrades;

    @JsonProperty("maxUnavailable")
    @JsonPropertyDescription(
            "How many GPU nodes may be unavailable during the upgrade: a count or a percentage of the nodes (rounded up). Default 25%.")
    @Pattern("^[0-9]+%?$")
    private IntOrString maxUnavailable;

    @JsonProperty("podDeletion")
    @JsonPropertyDescription("Deleting the GPU pods of a node before its upgrade.")
    private PodDeletionSpec podDeletion;

    @JsonProperty("waitForCompletion")
    @JsonPropertyDescription("Waiting for jobs on a node to finish before its upgrade.")
    private WaitForCompletionSpec waitForCompletion;

    @JsonProperty("drain")
    @JsonPropertyDescription("Draining a node before its upgrade.")
    private DrainSpec drain;

    public Boolean getAutoUpgrade() {
        return autoUpgrade;
    }

    public void setAutoUpgrade(Boolean autoUpgrade) {
        this.autoUpgrade = autoUpgrade;
    }

    public Integer getMaxParallelUpgrades() {
        return maxParallelUpgrades;
    }

    public void setMaxParallelUpgrades(Integer maxParallelUpgrades) {
        this.maxParallelUpgrades = maxParallelUpgrades;
    }

    public IntOrString getMaxUnavailable() {
        return maxUnavailable;
    }

    public void setMaxUnavailable(IntOrString maxUnavailable) {
        this.maxUnavailable = maxUnavailable;
    }

    public PodDeletionSpec getPodDeletion() {
        return podDeletion;
    }

    public void setPodDeletion(PodDeletionSpec podDeletion) {
        this.podDeletion = podDeletion;
    }

    public WaitForCompletionSpec getWaitForCompletion() {
        return waitForCompletion;
    }

    public void setWaitForCompletion(WaitForCompletionSpec waitForCompletion) {
        this.waitForCompletion = waitForCompletion;
    }

    public DrainSpec getDrain() {
        return drain;
    }

    public void setDrain(DrainSpec drain) {
        this.drain = drain;
    }
}
