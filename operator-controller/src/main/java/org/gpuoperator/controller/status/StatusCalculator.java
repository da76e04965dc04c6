package org.gpuoperator.controller.status;

import io.fabric8.kubernetes.api.model.Condition;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.gpuoperator.api.v1.ClusterPolicyConditions;
import org.gpuoperator.api.v1.ClusterPolicyStatus;
import org.gpuoperator.api.v1.NodesStatus;
import org.gpuoperator.api.v1.OperandStatus;
import org.gpuoperator.api.v1.State;
import org.gpuoperator.api.v1.StuckNode;
import org.gpuoperator.controller.operand.Operand;
import org.gpuoperator.controller.policy.PolicySettings;

/** Computes the ClusterPolicy status from what the reconcile observed; pure. */
public final class StatusCalculator {

    private StatusCalculator() {}

    /** Everything a status is computed from. */
    public record Observation(
            long generation, String namespace, PolicySettings policy, ClusterRollup nodes) {}

    public static ClusterPolicyStatus compute(Observation o, List<Condition> previous, String now) {
        ClusterPolicyStatus status = new ClusterPolicyStatus();
        status.setNamespace(o.namespace());
        status.setObservedGeneration(o.generation());

        ClusterRollup rollup = o.nodes();
        int gpuNodes = rollup.gpuNodes();
        int stuckTotal = rollup.stuckTotal();
        List<StuckNode> stuck = new ArrayList<>();
        for (NodeSummary node : rollup.firstStuck(NodesStatus.MAX_STUCK_NODES)) {
            StuckNode s = new StuckNode();
            s.setNode(node.name());
            s.setStep(node.stuckAt().id());
            s.setReason(node.stuckReason());
            stuck.add(s);
        }
        Map<String, Integer> versions = rollup.driverVersions();

        List<OperandStatus> operands = new ArrayList<>();
        List<String> notReadyOperands = new ArrayList<>();
        for (Operand op : Operand.values()) {
            OperandStatus s = new OperandStatus();
            s.setName(op.id());
            boolean enabled = o.policy().enabled(op);
            s.setEnabled(enabled);
            int desired = rollup.desired(op);
            s.setDesired(desired);
            s.setReady(rollup.readyPods(op));
            s.setUpdated(rollup.updatedPods(op));
            if (!enabled) {
                s.setState(State.DISABLED);
            } else if (desired == rollup.readyPods(op) && desired == rollup.updatedPods(op)) {
                s.setState(State.READY);
            } else {
                s.setState(State.NOT_READY);
                notReadyOperands.add(op.id());
            }
            operands.add(s);
        }
        status.setOperands(operands);

        NodesStatus nodes = new NodesStatus();
        nodes.setGpuNodes(gpuNodes);
        nodes.setReadyNodes(rollup.readyNodes());
        nodes.setStuckNodes(stuck.isEmpty() ? null : stuck);
        nodes.setStuckNodesOmitted(stuckTotal > stuck.size() ? stuckTotal - stuck.size() : null);
        status.setNodes(nodes);
        status.setDriverVersions(versions.isEmpty() ? null : versions);
        List<String> disagreements = rollup.disagreements(ClusterPolicyStatus.MAX_DISAGREEMENTS);
        status.setDisagreements(disagreements.isEmpty() ? null : disagreements);
        Map<String, Integer> configs = rollup.pluginConfigs();
        status.setDevicePluginConfigs(configs.isEmpty() ? null : configs);
        List<String> configErrors =
                rollup.pluginConfigErrors(ClusterPolicyStatus.MAX_DISAGREEMENTS);
        status.setDevicePluginConfigErrors(configErrors.isEmpty() ? null : configErrors);

        if (gpuNodes == 0) {
            status.setState(State.READY);
            String reason =
                    rollup.clusterHasNfd()
                            ? ClusterPolicyConditions.REASON_NO_GPU_NODES
                            : ClusterPolicyConditions.REASON_NFD_LABELS_MISSING;
            String message =
                    rollup.clusterHasNfd()
                            ? "No GPU node found: no node has an NVIDIA PCI label from NFD or the simulated-GPU label "
                                    + o.policy().simulation().nodeLabel()
                                    + "=true"
                            : "No node has NFD labels (feature.node.kubernetes.io/*): is node-feature-discovery installed? "
                                    + "Simulated nodes need "
                                    + o.policy().simulation().nodeLabel()
                                    + "=true";
            status.setConditions(ReadyConditions.of(true, reason, message, previous, now));
        } else if (stuckTotal > 0 || !notReadyOperands.isEmpty()) {
            status.setState(State.NOT_READY);
            String nodeList =
                    stuck.stream()
                            .map(s -> s.getNode() + " at " + s.getStep())
                            .collect(Collectors.joining(", "));
            String message =
                    "ClusterPolicy is not ready; operands not ready: "
                            + notReadyOperands
                            + (stuckTotal == 0
                                    ? ""
                                    : "; "
                                            + stuckTotal
                                            + " node(s) waiting: "
                                            + nodeList
                                            + (stuckTotal > stuck.size() ? ", ..." : ""));
            status.setConditions(
                    ReadyConditions.of(
                            false,
                            ClusterPolicyConditions.REASON_OPERAND_NOT_READY,
                            message,
                            previous,
                            now));
        } else {
            status.setState(State.READY);
            status.setConditions(
                    ReadyConditions.of(
                            true,
                            ClusterPolicyConditions.REASON_RECONCILED,
                            "All operands are ready on " + gpuNodes + " GPU node(s)",
                            previous,
                            now));
        }
        return status;
    }

    /** Status of a spec the validator rejected: every message, nothing else touched. */
    public static ClusterPolicyStatus invalid(
            ClusterPolicyStatus current,
            long generation,
            String namespace,
            List<String> errors,
            String now) {
        ClusterPolicyStatus status = copyOrNew(current);
        status.setNamespace(namespace);
        status.setObservedGeneration(generation);
        status.setState(State.NOT_READY);
        status.setConditions(
                ReadyConditions.error(
                        ClusterPolicyConditions.REASON_INVALID_SPEC,
                        "Invalid ClusterPolicy spec; nothing was changed: "
                                + String.join("; ", errors),
                        current == null ? null : current.getConditions(),
                        now));
        return status;
    }

    /** Status of a ClusterPolicy that is not the oldest one. */
    public static ClusterPolicyStatus ignored(
            ClusterPolicyStatus current,
            long generation,
            String namespace,
            String activeName,
            String now) {
        ClusterPolicyStatus status = new ClusterPolicyStatus();
        status.setNamespace(namespace);
        status.setObservedGeneration(generation);
        status.setState(State.IGNORED);
        status.setConditions(
                ReadyConditions.error(
                        "Ignored",
                        "Only one ClusterPolicy is reconciled: the oldest, '"
                                + activeName
                                + "'. Delete this one.",
                        current == null ? null : current.getConditions(),
                        now));
        return status;
    }

    /** Status after an unexpected failure; the previous rollout figures are kept. */
    public static ClusterPolicyStatus failed(
            ClusterPolicyStatus current, String message, String now) {
        ClusterPolicyStatus status = copyOrNew(current);
        status.setState(State.NOT_READY);
        status.setConditions(
                ReadyConditions.error(
                        ClusterPolicyConditions.REASON_RECONCILE_FAILED,
                        message,
                        current == null ? null : current.getConditions(),
                        now));
        return status;
    }

    private static ClusterPolicyStatus copyOrNew(ClusterPolicyStatus current) {
        if (current == null) {
            return new ClusterPolicyStatus();
        }
        ClusterPolicyStatus copy = new ClusterPolicyStatus();
        copy.setOperands(current.getOperands());
        copy.setNodes(current.getNodes());
        copy.setDriverVersions(current.getDriverVersions());
        copy.setDisagreements(current.getDisagreements());
        copy.setDevicePluginConfigs(current.getDevicePluginConfigs());
        copy.setDevicePluginConfigErrors(current.getDevicePluginConfigErrors());
        copy.setWarnings(current.getWarnings());
        copy.setDriverUpgrade(current.getDriverUpgrade());
        return copy;
    }
}
