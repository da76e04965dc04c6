package org.gpuoperator.api.v1;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import org.gpuoperator.api.common.UnknownFieldsPreserving;

/** Metrics of the operator itself. */
public class OperatorMetricsSpec extends UnknownFieldsPreserving {
    @JsonProperty("serviceMonitor")
    @JsonPropertyDescription("ServiceMonitor for the operator metrics.")
    private ServiceMonitorConfig serviceMonitor;

    public ServiceMonitorConfig getServiceMonitor() {
        return serviceMonitor;
    }

    public void setServiceMonitor(ServiceMonitorConfig serviceMonitor) {
        this.serviceMonitor = serviceMonitor;
    }
}
