package org.gpuoperator.controller.cli;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import org.gpuoperator.api.v1.ClusterPolicySpec;
import org.gpuoperator.api.v1.PolicyWarning;
import org.gpuoperator.api.v1alpha1.NVIDIADriver;
import org.gpuoperator.controller.nodes.NodeGate;
import org.gpuoperator.controller.nodes.NodeLabels;
import org.gpuoperator.controller.nodes.NodePlan;
import org.gpuoperator.controller.nodes.NodeView;
import org.gpuoperator.controller.nvidiadriver.DriverPoolPlan;
import org.gpuoperator.controller.nvidiadriver.DriverPools;
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
 *
 * @param driverPools in NVIDIADriver mode with the NVIDIADrivers given: their pools and DaemonSets
 *     as the reconcile plans them ({@link DriverPoolPlan#of}); else null
 */
public record RenderedPolicy(
        List<String> errors,
        PolicySettings settings,
        DesiredState desired,
        List<Node> nodes,
        List<PolicyWarning> warnings,
        UpgradePolicy upgradePolicy,
        DriverPoolPlan driverPools) {

    public RenderedPolicy(
            List<String> errors,
            PolicySettings settings,
            DesiredState desired,
            List<Node> nodes,
            List<PolicyWarning> warnings,
            UpgradePolicy upgradePolicy) {
        this(errors, settings, desired, nodes, warnings, upgradePolicy, null);
    }

    public RenderedPolicy(
            List<String> errors,
            PolicySettings settings,
            DesiredState desired,
            List<Node> nodes,
            List<PolicyWarning> warnings) {
        this(errors, settings, desired, nodes, warnings, null, null);
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
        return load(policyFile, nodesFile, null, namespace, env);
    }

    /**
     * @param nvidiaDriversFile the NVIDIADrivers (null: not read; in NVIDIADriver mode the driver
     *     DaemonSets are then left out, with a warning)
     */
    public static RenderedPolicy load(
            Path policyFile,
            Path nodesFile,
            Path nvidiaDriversFile,
            String namespace,
            Map<String, String> env) {
        ClusterPolicySpec spec;
        List<Node> nodes;
        Optional<List<NVIDIADriver>> drivers;
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
            drivers =
                    nvidiaDriversFile == null
                            ? Optional.empty()
                            : Optional.of(PolicyFiles.readNvidiaDrivers(nvidiaDriversFile));
        } catch (IllegalArgumentException e) {
            return failed(List.of(e.getMessage()), List.of());
        }
        return of(spec, nodes, namespace, env, drivers);
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
        return of(spec, nodes, namespace, env, Optional.empty());
    }

    /**
     * @param nvidiaDrivers the NVIDIADrivers; in NVIDIADriver mode each pool's DaemonSet is
     *     rendered from them for the GPU nodes among {@code nodes}, as the reconcile does; empty:
     *     not known (the driver DaemonSets are left out, with a warning)
     */
    public static RenderedPolicy of(
            ClusterPolicySpec spec,
            List<Node> nodes,
            String namespace,
            Map<String, String> env,
            Optional<List<NVIDIADriver>> nvidiaDrivers) {
        PolicyCheck.Checked checked = PolicyCheck.check(spec);
        if (!checked.errors().isEmpty()) {
            return new RenderedPolicy(checked.errors(), null, null, nodes, checked.warnings());
        }
        ContainerRuntimeDetection.Detected runtime = ContainerRuntimeDetection.detect(nodes);
        PolicySettings settings =
                ContainerRuntimeDetection.apply(
                        ClusterPolicySettings.from(checked.effective()), runtime.runtime());
        OperandModels models = new OperandModels(ControllerRuntime.withDefaultImages(env));
        DesiredState desired = DesiredState.of(models, settings, namespace);
        List<PolicyWarning> warnings = new ArrayList<>(checked.warnings());
        DriverPoolPlan pools = null;
        boolean driverMode =
                settings.enabled(Operand.DRIVER)
                        && Boolean.TRUE.equals(
                                checked.effective().getDriver().getUseNvidiaDriverCRD());
        if (driverMode && nvidiaDrivers.isPresent()) {
            // the reconcile's own plan: the GPU nodes' assignment, pools and DaemonSets
            String label = settings.simulation().nodeLabel();
            List<Node> gpuNodes =
                    nodes.stream()
                            .filter(
                                    n ->
                                            NodeLabels.isGpuNode(
                                                    n.getMetadata().getLabels() == null
                                                            ? Map.of()
                                                            : n.getMetadata().getLabels(),
                                                    label))
                            .toList();
            pools = DriverPoolPlan.of(models, settings, namespace, nvidiaDrivers.get(), gpuNodes);
            desired = desired.withDriverPools(pools.daemonSets().values(), namespace);
            pools.errors()
                    .forEach(
                            (name, error) ->
                                    warnings.add(
                                            new PolicyWarning(
                                                    "nvidiadrivers/" + name,
                                                    "gets no driver DaemonSet: " + error)));
            pools.assignment()
                    .conflicts()
                    .forEach(
                            (name, conflict) ->
                                    warnings.add(
                                            new PolicyWarning(
                                                    "nvidiadrivers/" + name, conflict.message())));
        } else if (driverMode) {
            // as the controller: the driver DaemonSets are the NVIDIADrivers', read from the
            // cluster
            desired = desired.withDriverPools(List.of(), namespace);
            warnings.add(
                    new PolicyWarning(
                            "spec.driver.useNvidiaDriverCRD",
                            "the driver DaemonSets come from the NVIDIADrivers (one per"
                                    + " NVIDIADriver and node pool), which render does not read"
                                    + " without --nvidiadrivers"));
        } else if (nvidiaDrivers.isPresent()) {
            warnings.add(
                    new PolicyWarning(
                            "spec.driver.useNvidiaDriverCRD",
                            settings.enabled(Operand.DRIVER)
                                    ? "not true: the NVIDIADrivers given are not used (the"
                                            + " ClusterPolicy's driver DaemonSet is rendered)"
                                    : "the driver is disabled: the NVIDIADrivers given are not"
                                            + " used"));
        }
        warnings.addAll(ContainerRuntimeDetection.statusWarnings(runtime, settings));
        UpgradePolicy upgrade =
                UpgradePolicy.from(checked.effective().getDriver().getUpgradePolicy());
        return new RenderedPolicy(
                desired.errors(), settings, desired, nodes, warnings, upgrade, pools);
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
        if (driverPools != null) {
            // each NVIDIADriver's nodes are upgraded under its own policy
            driverPools
                    .upgradePolicies()
                    .forEach(
                            (name, p) ->
                                    out.append("# Driver upgrade policy of NVIDIADriver ")
                                            .append(name)
                                            .append(": ")
                                            .append(p.describe())
                                            .append('\n'));
        } else if (upgradePolicy != null && settings.enabled(Operand.DRIVER)) {
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
            if (driverPools != null && plan.gpuNode()) {
                // the roll-out's routing labels, in the node's same label patch
                driverPools
                        .routing()
                        .ownerOf(node)
                        .ifPresent(d -> sorted.put(DriverPools.OWNER_LABEL, d));
                driverPools
                        .routing()
                        .poolOf(node)
                        .ifPresent(p -> sorted.put(DriverPools.POOL_LABEL, p));
            }
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
