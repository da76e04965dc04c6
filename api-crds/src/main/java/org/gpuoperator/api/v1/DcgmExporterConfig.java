package org.gpuoperator.api.v1;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import org.gpuoperator.api.common.UnknownFieldsPreserving;

/** The metrics the exporter collects. */
public class DcgmExporterConfig extends UnknownFieldsPreserving {
    @JsonProperty("name")
    @JsonPropertyDescription("ConfigMap with dcgm-metrics.csv.")
    private String name;

    public String getName() {
        return name;
    }

    public void setName(String name) {
        this.name = name;
    }
}
