package org.gpuoperator.api.v1;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import java.util.Map;
import org.gpuoperator.api.common.UnknownFieldsPreserving;

/** Settings of the operator itself. */
public class OperatorSpec extends UnknownFieldsPreserving {
    @JsonProperty("defaultRuntime")
    @JsonPropertyDescription("Deprecated: the container runtime is detected on each node.")
    private ContainerRuntime defaultRuntime;

    @JsonProperty("runtimeClass")
    @JsonPropertyDescription(
            "Name (and handler) of the RuntimeClass created for GPU pods. Default nvidia.")
    private String runtimeClass;

    @JsonProperty("initContainer")
    @JsonPropertyDescription("Deprecated: image of the init containers.")
    private InitContainerSpec initContainer;

    @JsonProperty("labels")
    @JsonPropertyDescription("Labels added to the objects the operator creates.")
    private Map<String, String> labels;

    @JsonProperty("annotations")
    @JsonPropertyDescription("Annotations added to the objects the operator creates.")
    private Map<String, String> annotations;

    @JsonProperty("use_ocp_driver_toolkit")
    @JsonPropertyDescription(
            "OpenShift only: build the driver with the Driver Toolkit image. Not supported by this project.")
    private Boolean useOcpDriverToolkit;

    @JsonProperty("metrics")
    @JsonPropertyDescription("Metrics of the operator itself.")
    private OperatorMetricsSpec metrics;

    public ContainerRuntime getDefaultRuntime() {
        return defaultRuntime;
    }

    public void setDefaultRuntime(ContainerRuntime defaultRuntime) {
        this.defaultRuntime = defaultRuntime;
    }

    public String getRuntimeClass() {
        return runtimeClass;
    }

    public void setRuntimeClass(String runtimeClass) {
        this.runtimeClass = runtimeClass;
    }

    public InitContainerSpec getInitContainer() {
        return initContainer;
    }

    public void setInitContainer(InitContainerSpec initContainer) {
        this.initContainer = initContainer;
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

    public Boolean getUseOcpDriverToolkit() {
        return useOcpDriverToolkit;
    }

    public void setUseOcpDriverToolkit(Boolean useOcpDriverToolkit) {
        this.useOcpDriverToolkit = useOcpDriverToolkit;
    }

    public OperatorMetricsSpec getMetrics() {
        return metrics;
    }

    public void setMetrics(OperatorMetricsSpec metrics) {
        this.metrics = metrics;
    }
}
