package org.gpuoperator.api.v1;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import java.util.List;
import java.util.Map;
import org.gpuoperator.api.common.ComponentSpec;

/**
 * The DCGM exporter operand: Prometheus metrics of each GPU on port 9400, attributed to pods.
 * Enabled by default.
 */
public class DcgmExporterSpec extends ComponentSpec {
    @JsonProperty("annotations")
    @JsonPropertyDescription("Annotations of the exporter pods.")
    private Map<String, String> annotations;

    @JsonProperty("config")
    @JsonPropertyDescription("The metrics to collect.")
    private DcgmExporterConfig config;

    @JsonProperty("serviceMonitor")
    @JsonPropertyDescription("ServiceMonitor for the exporter.")
    private ServiceMonitorConfig serviceMonitor;

    @JsonProperty("service")
    @JsonPropertyDescription("The exporter Service.")
    private DcgmExporterServiceConfig service;

    @JsonProperty("hostPID")
    @JsonPropertyDescription("Run in the host PID namespace (needed to attribute processes).")
    private Boolean hostPID;

    @JsonProperty("hpcJobMapping")
    @JsonPropertyDescription("HPC job attribution.")
    private DcgmExporterHpcJobMappingSpec hpcJobMapping;

    @JsonProperty("enablePodLabels")
    @JsonPropertyDescription("Add the labels of the pod using a GPU to its metrics.")
    private Boolean enablePodLabels;

    @JsonProperty("enablePodUID")
    @JsonPropertyDescription("Add the UID of the pod using a GPU to its metrics.")
    private Boolean enablePodUID;

    @JsonProperty("podLabelAllowlistRegex")
    @JsonPropertyDescription("Regular expressions of the pod label keys added to metrics.")
    private List<String> podLabelAllowlistRegex;

    public Map<String, String> getAnnotations() {
        return annotations;
    }

    public void setAnnotations(Map<String, String> annotations) {
        this.annotations = annotations;
    }

    public DcgmExporterConfig getConfig() {
        return config;
    }

    public void setConfig(DcgmExporterConfig config) {
        this.config = config;
    }

    public ServiceMonitorConfig getServiceMonitor() {
        return serviceMonitor;
    }

    public void setServiceMonitor(ServiceMonitorConfig serviceMonitor) {
        this.serviceMonitor = serviceMonitor;
    }

    public DcgmExporterServiceConfig getService() {
        return service;
    }

    public void setService(DcgmExporterServiceConfig service) {
        this.service = service;
    }

    public Boolean getHostPID() {
        return hostPID;
    }

    public void setHostPID(Boolean hostPID) {
        this.hostPID = hostPID;
    }

    public DcgmExporterHpcJobMappingSpec getHpcJobMapping() {
        return hpcJobMapping;
    }

    public void setHpcJobMapping(DcgmExporterHpcJobMappingSpec hpcJobMapping) {
        this.hpcJobMapping = hpcJobMapping;
    }

    public Boolean getEnablePodLabels() {
        return enablePodLabels;
    }

    public void setEnablePodLabels(Boolean enablePodLabels) {
        this.enablePodLabels = enablePodLabels;
    }

    public Boolean getEnablePodUID() {
        return enablePodUID;
    }

    public void setEnablePodUID(Boolean enablePodUID) {
        this.enablePodUID = enablePodUID;
    }

    public List<String> getPodLabelAllowlistRegex() {
        return podLabelAllowlistRegex;
    }

    public void setPodLabelAllowlistRegex(List<String> podLabelAllowlistRegex) {
        this.podLabelAllowlistRegex = podLabelAllowlistRegex;
    }
}
