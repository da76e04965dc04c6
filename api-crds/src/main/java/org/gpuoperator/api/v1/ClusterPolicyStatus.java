package org.gpuoperator.api.v1;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyDescription;
import io.fabric8.crd.generator.annotation.PrinterColumn;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Size;
import io.fabric8.kubernetes.api.model.Condition;
import java.util.List;
import java.util.Map;

/** The observed state of the GPU stack. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class ClusterPolicyStatus {
    @JsonProperty("state")
    @JsonPropertyDescription("ready, notReady, ignored or disabled.")
    @PrinterColumn(name = "Status")
    private State state;

    @JsonProperty("namespace")
    @JsonPropertyDescription("Namespace the operands run in (the operator namespace).")
    private String namespace;

    @JsonProperty("conditions")
    @JsonPropertyDescription(
            "Conditions of type Ready and Error; reasons in ClusterPolicyConditions.")
    private List<Condition> conditions;

    @JsonProperty("observedGeneration")
    @JsonPropertyDescription("The metadata.generation this status describes.")
    @Min(0)
    private Long observedGeneration;

    @JsonProperty("operands")
    @JsonPropertyDescription("Rollout of each operand.")
    private List<OperandStatus> operands;

    @JsonProperty("nodes")
    @JsonPropertyDescription("Summary of the GPU nodes.")
    private NodesStatus nodes;

    @JsonProperty("driverVersions")
    @JsonPropertyDescription("Driver version -> number of GPU nodes running it (drift summary).")
    private Map<String, Integer> driverVersions;

    @JsonProperty("disagreements")
    @JsonPropertyDescription(
            "Where GPU feature discovery's labels (nvidia.com/gpu.count, nvidia.com/mig-<profile>.count, "
                    + "nvidia.com/mig.strategy) disagree with what the device plugin advertises in the node's "
                    + "allocatable resources or with spec.mig.strategy; one line per disagreement, each starting "
                    + "with the node's name; compared once both pods are Ready on the node; at most 20 lines; "
                    + "absent when all agree.")
    @Size(max = ClusterPolicyStatus.MAX_DISAGREEMENTS)
    private List<String> disagreements;

    public static final int MAX_DISAGREEMENTS = 20;

    @JsonProperty("warnings")
    @JsonPropertyDescription(
            "Fields of the spec that are ignored (unknown, deprecated or not implemented), reported instead of dropped.")
    private List<PolicyWarning> warnings;

    @JsonProperty("devicePluginConfigs")
    @JsonPropertyDescription(
            "Named device-plugin config (a key of the devicePlugin.config ConfigMap) -> number of GPU"
                    + " nodes whose device plugin runs it, as the device plugin reports in the node"
                    + " annotation nvidia.com/device-plugin.config.applied; absent when none does.")
    private Map<String, Integer> devicePluginConfigs;

    @JsonProperty("devicePluginConfigErrors")
    @JsonPropertyDescription(
            "Nodes whose device plugin refused the config their nvidia.com/device-plugin.config label"
                    + " (or devicePlugin.config.default) selects, one line each: the node, the config"
                    + " and the error (node annotation nvidia.com/device-plugin.config.error); the config"
                    + " in force before stays; at most 20 lines; absent when none.")
    @Size(max = ClusterPolicyStatus.MAX_DISAGREEMENTS)
    private List<String> devicePluginConfigErrors;

    public Map<String, Integer> getDevicePluginConfigs() {
        return devicePluginConfigs;
    }

    public void setDevicePluginConfigs(Map<String, Integer> devicePluginConfigs) {
        this.devicePluginConfigs = devicePluginConfigs;
    }

    public List<String> getDevicePluginConfigErrors() {
        return devicePluginConfigErrors;
    }

    public void setDevicePluginConfigErrors(List<String> devicePluginConfigErrors) {
        this.devicePluginConfigErrors = devicePluginConfigErrors;
    }

    @JsonProperty("driverUpgrade")
    @JsonPropertyDescription(
            "The driver upgrade: node counts, why nodes wait or failed, the last good version per"
                    + " node; absent when no node runs a managed driver.")
    private DriverUpgradeStatus driverUpgrade;

    public DriverUpgradeStatus getDriverUpgrade() {
        return driverUpgrade;
    }

    public void setDriverUpgrade(DriverUpgradeStatus driverUpgrade) {
        this.driverUpgrade = driverUpgrade;
    }

    public State getState() {
        return state;
    }

    public void setState(State state) {
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

    public Long getObservedGeneration() {
        return observedGeneration;
    }

    public void setObservedGeneration(Long observedGeneration) {
        this.observedGeneration = observedGeneration;
    }

    public List<OperandStatus> getOperands() {
        return operands;
    }

    public void setOperands(List<OperandStatus> operands) {
        this.operands = operands;
    }

    public NodesStatus getNodes() {
        return nodes;
    }

    public void setNodes(NodesStatus nodes) {
        this.nodes = nodes;
    }

    public Map<String, Integer> getDriverVersions() {
        return driverVersions;
    }

    public void setDriverVersions(Map<String, Integer> driverVersions) {
        this.driverVersions = driverVersions;
    }

    public List<PolicyWarning> getWarnings() {
        return warnings;
    }

    public void setWarnings(List<PolicyWarning> warnings) {
        this.warnings = warnings;
    }

    public List<String> getDisagreements() {
        return disagreements;
    }

    public void setDisagreements(List<String> disagreements) {
        this.disagreements = disagreements;
    }
}
