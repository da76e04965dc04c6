package org.gpuoperator.api.v1alpha1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.crd.generator.annotation.PrinterColumn;
import io.fabric8.kubernetes.api.model.Condition;
import java.util.List;

/** The observed state of an NVIDIADriver. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class NVIDIADriverStatus {
    @JsonProperty("state")
    @JsonPropertyDescription("ready, notReady or disabled.")
    @PrinterColumn(name = "Status")
    private NVIDIADriverState state;

    @JsonProperty("namespace")
    @JsonPropertyDescription("Namespace the driver pods run in.")
    private String namespace;

    @JsonProperty("conditions")
    @JsonPropertyDescription(
            "Conditions of type Ready and Error; reasons as ClusterPolicyConditions plus ConflictingNodeSelector.")
    private List<Condition> conditions;

    @JsonProperty("warnings")
    @JsonPropertyDescription(
            "Fields of this NVIDIADriver that are set but not acted on by this operator, each with"
                    + " why; absent when there is none.")
    private List<org.gpuoperator.api.v1.PolicyWarning> warnings;

    public NVIDIADriverState getState() {
        return state;
    }

    public void setState(NVIDIADriverState state) {
        this.state = state;
    }

    public String getNamespace() {
        return namespace;
    }

    public void setNamespace(String namespace) {
        this.namespace = namespace;
    }

    public List<Condition> getConditions() {
        return conditions;
    }

    public void setConditions(List<Condition> conditions) {
        this.conditions = conditions;
    }

    public List<org.gpuoperator.api.v1.PolicyWarning> getWarnings() {
        return warnings;
    }

    public void setWarnings(List<org.gpuoperator.api.v1.PolicyWarning> warnings) {
        this.warnings = warnings;
    }
}
