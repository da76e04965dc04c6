package org.gpuoperator.api.v1;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import org.gpuoperator.api.common.PodSettings;
import org.gpuoperator.api.common.UnknownFieldsPreserving;

/**
 * Settings shared by every operand DaemonSet. The pod settings (labels, annotations, tolerations,
 * priority class, pod security context) come from {@link PodSettings}.
 */
public class DaemonsetsSpec extends UnknownFieldsPreserving implements PodSettings {
    private final PodSettings.Values podSettings = new PodSettings.Values();

    @JsonProperty("updateStrategy")
    @JsonPropertyDescription(
            "How the DaemonSets replace their pods: RollingUpdate or OnDelete. Default RollingUpdate.")
    private UpdateStrategyType updateStrategy;

    @JsonProperty("rollingUpdate")
    @JsonPropertyDescription("Rolling update settings, used when updateStrategy is RollingUpdate.")
    private RollingUpdateSpec rollingUpdate;

    @JsonProperty("gpuNotReadyTaint")
    @JsonPropertyDescription(
            "This project's field, opt-in: keep the taint nvidia.com/gpu-not-ready:NoSchedule on"
                    + " every GPU node until its GPUStackReady condition is True (the node's"
                    + " validator pod is Ready). The operator removes the taint when the condition"
                    + " holds, when this is turned off, or when the policy is deleted. Default"
                    + " false.")
    private Boolean gpuNotReadyTaint;

    @Override
    public PodSettings.Values podSettings() {
        return podSettings;
    }

    public Boolean getGpuNotReadyTaint() {
        return gpuNotReadyTaint;
    }

    public void setGpuNotReadyTaint(Boolean gpuNotReadyTaint) {
        this.gpuNotReadyTaint = gpuNotReadyTaint;
    }

    public UpdateStrategyType getUpdateStrategy() {
        return updateStrategy;
    }

    public void setUpdateStrategy(UpdateStrategyType updateStrategy) {
        this.updateStrategy = updateStrategy;
    }

    public RollingUpdateSpec getRollingUpdate() {
        return rollingUpdate;
    }

    public void setRollingUpdate(RollingUpdateSpec rollingUpdate) {
        this.rollingUpdate = rollingUpdate;
    }
}
