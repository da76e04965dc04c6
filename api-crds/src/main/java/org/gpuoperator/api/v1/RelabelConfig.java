package org.gpuoperator.api.v1;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.generator.annotation.Min;
import java.util.List;
import org.gpuoperator.api.common.UnknownFieldsPreserving;

/** A Prometheus relabeling rule applied to scraped samples. */
public class RelabelConfig extends UnknownFieldsPreserving {
    @JsonProperty("sourceLabels")
    @JsonPropertyDescription("Labels whose values are concatenated.")
    private List<String> sourceLabels;

    @JsonProperty("separator")
    @JsonPropertyDescription("Separator between concatenated source label values.")
    private String separator;

    @JsonProperty("targetLabel")
    @JsonPropertyDescription("Label the result is written to.")
    private String targetLabel;

    @JsonProperty("regex")
    @JsonPropertyDescription("Regular expression matched against the concatenated value.")
    private String regex;

    @JsonProperty("modulus")
    @JsonPropertyDescription("Modulus of the hash of the source label values.")
    @Min(0)
    private Long modulus;

    @JsonProperty("replacement")
    @JsonPropertyDescription("Replacement value for a regex match.")
    private String replacement;

    @JsonProperty("action")
    @JsonPropertyDescription("Relabel action, e.g. replace, keep, drop, labelmap.")
    private String action;

    public List<String> getSourceLabels() {
        return sourceLabels;
    }

    public void setSourceLabels(List<String> sourceLabels) {
        this.sourceLabels = sourceLabels;
    }

    public String getSeparator() {
        return separator;
    }

    public void setSeparator(String separator) {
        this.separator = separator;
    }

    public String getTargetLabel() {
        return targetLabel;
    }

    public void setTargetLabel(String targetLabel) {
        this.targetLabel = targetLabel;
    }

    public String getRegex() {
        return regex;
    }

    public void setRegex(String regex) {
        this.regex = regex;
    }

    public Long getModulus() {
        return modulus;
    }

    public void setModulus(Long modulus) {
        this.modulus = modulus;
    }

    public String getReplacement() {
        return replacement;
    }

    public void setReplacement(String replacement) {
        this.replacement = replacement;
    }

    public String getAction() {
        return action;
    }

    public void setAction(String action) {
        this.action = action;
    }
}
