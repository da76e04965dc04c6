package org.gpuoperator.api.v1;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Pattern;
import java.util.List;
import java.util.Map;
import org.gpuoperator.api.common.UnknownFieldsPreserving;

/** A Prometheus Operator ServiceMonitor for the metrics endpoint. */
public class ServiceMonitorConfig extends UnknownFieldsPreserving {
    @JsonProperty("enabled")
    @JsonPropertyDescription("Create the ServiceMonitor (needs the Prometheus Operator CRDs).")
    private Boolean enabled;

    @JsonProperty("interval")
    @JsonPropertyDescription("Scrape interval, e.g. 15s.")
    @Pattern("^([0-9]+(\\.[0-9]+)?(ms|s|m|h))+$")
    private String interval;

    @JsonProperty("scrapeTimeout")
    @JsonPropertyDescription("Scrape timeout, e.g. 10s.")
    @Pattern("^([0-9]+(\\.[0-9]+)?(ms|s|m|h))+$")
    private String scrapeTimeout;

    @JsonProperty("honorLabels")
    @JsonPropertyDescription("Keep the labels of scraped samples on conflict.")
    private Boolean honorLabels;

    @JsonProperty("additionalLabels")
    @JsonPropertyDescription(
            "Extra labels of the ServiceMonitor, e.g. to match a Prometheus selector.")
    private Map<String, String> additionalLabels;

    @JsonProperty("relabelings")
    @JsonPropertyDescription("Relabeling rules applied before scraping.")
    private List<RelabelConfig> relabelings;

    public Boolean getEnabled() {
        return enabled;
    }

    public void setEnabled(Boolean enabled) {
        this.enabled = enabled;
    }

    public String getInterval() {
        return interval;
    }

    public void setInterval(String interval) {
        this.interval = interval;
    }

    public String getScrapeTimeout() {
        return scrapeTimeout;
    }

    public void setScrapeTimeout(String scrapeTimeout) {
        this.scrapeTimeout = scrapeTimeout;
    }

    public Boolean getHonorLabels() {
        return honorLabels;
    }

    public void setHonorLabels(Boolean honorLabels) {
        this.honorLabels = honorLabels;
    }

    public Map<String, String> getAdditionalLabels() {
        return additionalLabels;
    }

    public void setAdditionalLabels(Map<String, String> additionalLabels) {
        this.additionalLabels = additionalLabels;
    }

    public List<RelabelConfig> getRelabelings() {
        return relabelings;
    }

    public void setRelabelings(List<RelabelConfig> relabelings) {
        this.relabelings = relabelings;
    }
}
