package org.gpuoperator.api.v1;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.kubernetes.api.model.PodSecurityContext;
import io.fabric8.kubernetes.api.model.Toleration;
import java.util.List;
import java.util.Map;
import org.gpuoperator.api.common.UnknownFieldsPreserving;

/** Settings shared by every operand DaemonSet. */
public class DaemonsetsSpec extends UnknownFieldsPreserving {
    @JsonProperty("labels")
    @JsonPropertyDescription("Labels added to every operand pod.")
    private Map<String, String> labels;

    @JsonProperty("annotations")
    @JsonPropertyDescription("Annotations added to every operand pod.")
    private Map<String, String> annotations;

    @JsonProperty("tolerations")
    @JsonPropertyDescription("Tolerations of every operand pod, e.g. for tainted GPU nodes.")
    private List<Toleration> tolerations;

    @JsonProperty("priorityClassName")
    @JsonPropertyDescription("Priority class of the operand pods. Default system-node-critical.")
    private String priorityClassName;

    @JsonProperty("updateStrategy")
    @JsonPropertyDescription(
            "How the DaemonSets replace their pods: RollingUpdate or OnDelete. Default RollingUpdate.")
    private UpdateStrategyType updateStrategy;

    @JsonProperty("rollingUpdate")
    @JsonPropertyDescription("Rolling update settings, used when updateStrategy is RollingUpdate.")
    private RollingUpdateSpec rollingUpdate;

    @JsonProperty("podSecurityContext")
    @JsonPropertyDescription("Pod security context of the operand pods.")
    private PodSecurityContext podSecurityContext;

    @JsonProperty("gpuNotReadyTaint")
    @JsonPropertyDescription(
            "This project's field, opt-in: keep the taint nvidia.com/gpu-not-ready:NoSchedule on"
                    + " every GPU node until its GPUStackReady condition is True (the node's"
                    + " validator pod is Ready). The operator removes the taint when the condition"
                    + " holds, when this is turned off, or when the policy is deleted. Default"
                    + " false.")
    private Boolean gpuNotReadyTaint;

    public Boolean getGpuNotReadyTaint() {
        return gpuNotReadyTaint;
    }

    public void setGpuNotReadyTaint(Boolean gpuNotReadyTaint) {
        this.gpuNotReadyTaint = gpuNotReadyTaint;
    }

    public Map<String, String> getLabels() {
        return labels;
    }

    public void setLabels(Map<String, String> labels) {
        this.labels = labels;
    }

    public Map<String, String> getAnnotations() {
        return annotations;
    }

    public void setAnnotations(Map<String, String> annotations) {
        this.annotations = annotations;
    }

    public List<Toleration> getTolerations() {
        return tolerations;
    }

    public void setTolerations(List<Toleration> tolerations) {
        this.tolerations = tolerations;
    }

    public String getPriorityClassName() {
        return priorityClassName;
    }

    public void setPriorityClassName(String priorityClassName) {
        this.priorityClassName = priorityClassName;
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

    public PodSecurityContext getPodSecurityContext() {
        return podSecurityContext;
    }

    public void setPodSecurityContext(PodSecurityContext podSecurityContext) {
        this.podSecurityContext = podSecurityContext;
    }
}
