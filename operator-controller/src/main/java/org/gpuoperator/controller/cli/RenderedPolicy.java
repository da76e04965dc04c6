package org.gpuoperator.controller.cli;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.gpuoperator.api.v1.ClusterPolicySpec;
import org.gpuoperator.api.v1.PolicyWarning;
import org.gpuoperator.controller.nodes.NodeGate;
import org.gpuoperator.controller.nodes.NodePlan;
import org.gpuoperator.controller.nodes.NodeView;
import org.gpuoperator.controller.operand.ContainerRuntimeDetection;
import org.gpuoperator.controller.operand.Operand;
import org.gpuoperator.controller.operand.OperandModels;
import org.gpuoperator.controller.policy.ClusterPolicySettings;
import org.gpuoperator.controller.policy.PolicySettings;
import org.gpuoperator.controller.reconcile.ControllerRuntime;
import org.gpuoperator.controller.reconcile.DesiredState;
import org.gpuoperator.controller.reconcile.PolicyCheck;
import org.gpuoperator.controller.upgrade.UpgradePolicy;

/**
 * A policy run through the reconcile's own defaults, validation, rendering and gate, without a
 * cluster.
 */
public record RenderedPolicy(
        List<String> errors,
        PolicySettings settings,
        DesiredState desired,
        List<Node> nodes,
        List<PolicyWarning> warnings,
        UpgradePolicy upgradePolicy) {

    public RenderedPolicy(
            List<String> errors,
            PolicySettings settings,
            DesiredState desired,
            List<Node> nodes,
            List<PolicyWarning> warnings) {
        this(errors, settings, desired, nodes, warnings, null);
    }

    /** A policy that could not be rendered: only its errors. */
    private static RenderedPolicy failed(List<String> errors, List<Node> nodes) {
        return new RenderedPolicy(errors, null, null, nodes, List.of());
    }

    /** The warnings as {@code render} prints them on stderr: one line each, with the path. */
    public List<String> warningLines() {
        return warnings.stream()
                .map(w -> "warning: " + w.getPath() + ": " + w.getMessage())
                .toList();
    }

    public static RenderedPolicy load(
            Path policyFile, Path nodesFile, String namespace, Map<String, String> env) {
        ClusterPolicySpec spec;
        List<Node> nodes;
        try {
            PolicyFiles.Read read = PolicyFiles.readPolicy(policyFile);
            if (!read.errors().isEmpty()) {
                return failed(read.errors(), List.of());
            }
            spec = read.spec();
            nodes =
                    nodesFile == null
                            ? PolicyFiles.defaultNodes()
                            : PolicyFiles.readNodes(nodesFile);
        } catch (IllegalArgumentException e) {
            return failed(List.of(e.getMessage()), List.of());
        }
        return of(spec, nodes, namespace, env);
    }

    public static RenderedPolicy defaults() {
        // every required section present with its defaults, as the Helm chart writes it
        return of(
                org.gpuoperator.api.defaults.ClusterPolicyDefaults.effective(
                        new ClusterPolicySpec()),
                PolicyFiles.defaultNodes(),
                "gpu-operator",
                Map.of());
    }

    public static RenderedPolicy of(
            ClusterPolicySpec spec, List<Node> nodes, String namespace, Map<String, String> env) {
        PolicyCheck.Checked checked = PolicyCheck.check(spec);
        if (!checked.errors().isEmpty()) {
            return new RenderedPolicy(checked.errors(), null, null, nodes, checked.warnings());
        }
        ContainerRuntimeDetection.Detected runtime = ContainerRuntimeDetection.detect(nodes);
        PolicySettings settings =
                ContainerRuntimeDetection.apply(
                        ClusterPolicySettings.from(checked.effective()), runtime.runtime());
        DesiredState desired =
                DesiredState.of(
                        new OperandModels(ControllerRuntime.withDefaultImages(env)),
                        settings,
                        namespace);
        List<PolicyWarning> warnings = new ArrayList<>(checked.warnings());
        if (settings.enabled(Operand.DRIVER)
                && Boolean.TRUE.equals(checked.effective().getDriver().getUseNvidiaDriverCRD())) {
            // as the controller: the driver DaemonSets are the NVIDIADrivers', read from the
            // cluster
            desired = desired.withDriverPools(List.of(), namespace);
            warnings.add(
                    new PolicyWarning(
                            "spec.driver.useNvidiaDriverCRD",
                            "the driver DaemonSets come from the NVIDIADrivers (one per"
                                    + " NVIDIADriver and node pool), which render does not read"));
        }
        warnings.addAll(ContainerRuntimeDetection.statusWarnings(runtime, settings));
        UpgradePolicy upgrade =
                UpgradePolicy.from(checked.effective().getDriver().getUpgradePolicy());
        return new RenderedPolicy(desired.errors(), settings, desired, nodes, warnings, upgrade);
    }

    /**
     * Objects as a multi-document YAML stream (quoted only where YAML needs it, as {@code kubectl
     * get -o yaml}), then the labels the first reconcile would put on each node.
     */
    public String yaml() {
        StringBuilder out = new StringBuilder();
        for (HasMetadata object : desired.toApply()) {
            String doc = KubectlYaml.of(object);
            out.append(doc.startsWith("---") ? doc : "---\n" + doc);
        }
        Set<Operand> enabled = EnumSet.noneOf(Operand.class);
        for (Operand o : Operand.values()) {
            if (settings.enabled(o)) {
                enabled.add(o);
            }
        }
        if (upgradePolicy != null && settings.enabled(Operand.DRIVER)) {
            out.append("# Driver upgrade policy: ").append(upgradePolicy.describe()).append('\n');
        }
        out.append("# Node labels after the first reconcile (no operand pod Ready yet):\n");
        for (Node node : nodes) {
            Map<String, String> labels =
                    node.getMetadata().getLabels() == null
                            ? Map.of()
                            : node.getMetadata().getLabels();
            NodePlan plan =
                    NodeGate.plan(
                            new NodeView(node.getMetadata().getName(), labels, Set.of()),
                            enabled,
                            settings.simulation().nodeLabel());
            Map<String, String> sorted = new TreeMap<>();
            plan.labelChanges().forEach((k, v) -> sorted.put(k, v == null ? "<removed>" : v));
            out.append("#   ")
                    .append(node.getMetadata().getName())
                    .append(": ")
                    .append(
                            plan.gpuNode()
                                    ? sorted.isEmpty() ? "no change" : sorted
                                    : "not a GPU node")
                    .append('\n');
        }
        return out.toString();
    }
}
