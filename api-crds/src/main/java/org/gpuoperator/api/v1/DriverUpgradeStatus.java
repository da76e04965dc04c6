package org.gpuoperator.api.v1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Size;
import java.util.List;
import java.util.Map;

/** Where the driver upgrade (spec.driver.upgradePolicy) stands. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class DriverUpgradeStatus {

    public static final int MAX_LINES = 20;

    @JsonProperty("autoUpgrade")
    @JsonPropertyDescription("spec.driver.upgradePolicy.autoUpgrade as acted on.")
    private Boolean autoUpgrade;

    @JsonProperty("inProgress")
    @JsonPropertyDescription("Nodes between cordon and uncordon.")
    @Min(0)
    private Integer inProgress;

    @JsonProperty("done")
    @JsonPropertyDescription("Nodes in upgrade-done.")
    @Min(0)
    private Integer done;

    @JsonProperty("failed")
    @JsonPropertyDescription("Nodes in upgrade-failed.")
    @Min(0)
    private Integer failed;

    @JsonProperty("pending")
    @JsonPropertyDescription("Nodes that need the new driver and have not started.")
    @Min(0)
    private Integer pending;

    @JsonProperty("lines")
    @JsonPropertyDescription(
            "One line per node that waits, is parked or failed, saying why (node <name>: <state>:"
                    + " <reason>), then the upgrade-wide lines; at most 20.")
    @Size(max = MAX_LINES)
    private List<String> lines;

    @JsonProperty("linesOmitted")
    @JsonPropertyDescription("Lines left out of lines to keep the status small.")
    @Min(0)
    private Integer linesOmitted;

    @JsonProperty("lastGoodVersions")
    @JsonPropertyDescription(
            "Node -> the last driver version that was done and Ready there: the version to set back"
                    + " to roll a failed upgrade back.")
    private Map<String, String> lastGoodVersions;

    public Boolean getAutoUpgrade() {
        return autoUpgrade;
    }

    public void setAutoUpgrade(Boolean autoUpgrade) {
        this.autoUpgrade = autoUpgrade;
    }

    public Integer getInProgress() {
        return inProgress;
    }

    public void setInProgress(Integer inProgress) {
        this.inProgress = inProgress;
    }

    public Integer getDone() {
        return done;
    }

    public void setDone(Integer done) {
        this.done = done;
    }

    public Integer getFailed() {
        return failed;
    }

    public void setFailed(Integer failed) {
        this.failed = failed;
    }

    public Integer getPending() {
        return pending;
    }

    public void setPending(Integer pending) {
        this.pending = pending;
    }

    public List<String> getLines() {
        return lines;
    }

    public void setLines(List<String> lines) {
        this.lines = lines;
    }

    public Integer getLinesOmitted() {
        return linesOmitted;
    }

    public void setLinesOmitted(Integer linesOmitted) {
        this.linesOmitted = linesOmitted;
    }

    public Map<String, String> getLastGoodVersions() {
        return lastGoodVersions;
    }

    public void setLastGoodVersions(Map<String, String> lastGoodVersions) {
        this.lastGoodVersions = lastGoodVersions;
    }
}
