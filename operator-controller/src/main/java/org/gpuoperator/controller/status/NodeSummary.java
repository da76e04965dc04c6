package org.gpuoperator.controller.status;

import io.fabric8.kubernetes.api.model.Node;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.gpuoperator.controller.nodes.NodeLabels;
import org.gpuoperator.controller.nodes.NodePlan;
import org.gpuoperator.controller.nodes.OperandPods.PodState;
import org.gpuoperator.controller.nodes.PluginConfigReport;
import org.gpuoperator.controller.nodes.ValidationReport;
import org.gpuoperator.controller.operand.Operand;

/**
 * One node's share of the ClusterPolicy status, computed by a pure function from what the gate saw
 * on that node. The status is the sum of these, kept up to date node by node ({@link
 * ClusterRollup}).
 *
 * @param driverVersion the driver version feature discovery reported on a GPU node, or null
 * @param desired operands labelled to run here; {@code ready} and {@code updated} are subsets of it
 * @param ready whether every enabled operand is Ready here (false for an opted-out node: it is
 *     neither)
 * @param stuckAt the gate this GPU node waits at, or null
 * @param disagreements where feature discovery and the device plugin disagree (null: not compared)
 * @param pluginConfig what the device plugin reports about the named config on a GPU node (null: no
 *     report)
 */
public record NodeSummary(
        String name,
        boolean nfdLabels,
        boolean gpuNode,
        String driverVersion,
        Set<Operand> desired,
        Set<Operand> readyPods,
        Set<Operand> updatedPods,
        boolean ready,
        Operand stuckAt,
        String stuckReason,
        List<String> disagreements,
        PluginConfigReport pluginConfig) {

    public NodeSummary {
        disagreements = disagreements == null ? List.of() : List.copyOf(disagreements);
        pluginConfig = pluginConfig == null ? PluginConfigReport.NONE : pluginConfig;
    }

    /** The {@code nvidia.com/*} resources a node's status.allocatable lists, as whole numbers. */
    public static Map<String, Long> advertised(Node node) {
        Map<String, Long> out = new TreeMap<>();
        if (node.getStatus() == null || node.getStatus().getAllocatable() == null) {
            return out;
        }
        node.getStatus()
                .getAllocatable()
                .forEach(
                        (name, q) -> {
                            if (name.startsWith("nvidia.com/") && q != null) {
                                try {
                                    out.put(name, q.getNumericalAmount().longValue());
                                } catch (IllegalArgumentException e) {
                                    // not a number: not something the device plugin advertises
                                }
                            }
                        });
        return out;
    }

    /**
     * Keys written by feature discovery: the current full version, else the deprecated
     * major/minor/rev triple.
     */
    static final String DRIVER_VERSION_FULL = "nvidia.com/cuda.driver-version.full";

    static final String DRIVER_MAJOR = "nvidia.com/cuda.driver.major";
    static final String DRIVER_MINOR = "nvidia.com/cuda.driver.minor";
    static final String DRIVER_REV = "nvidia.com/cuda.driver.rev";

    /**
     * @param labels the node's labels after this reconcile's changes
     * @param templateHashes the current pod template hash per enabled operand
     * @param advertised the node's allocatable {@code nvidia.com/*} resources; null: not compared
     * @param migStrategy the policy's MIG strategy
     * @param validation what the validator reported on the node (a stuck node's reason names the
     *     validator's, e.g. a host driver that does not load); null: nothing
     * @param pluginConfig what the device plugin reported about the named config; null: nothing
     */
    public static NodeSummary of(
            String name,
            Map<String, String> labels,
            NodePlan plan,
            Map<Operand, PodState> pods,
            Set<Operand> enabled,
            Map<Operand, String> templateHashes,
            Map<String, Long> advertised,
            String migStrategy,
            ValidationReport validation,
            PluginConfigReport pluginConfig) {
        validation = validation == null ? new ValidationReport(Map.of(), null) : validation;
        pluginConfig = pluginConfig == null ? PluginConfigReport.NONE : pluginConfig;
        boolean nfd = NodeLabels.hasNfdLabels(labels);
        if (!plan.gpuNode()) {
            return new NodeSummary(
                    name, nfd, false, null, Set.of(), Set.of(), Set.of(), false, null, null, null,
                    null);
        }
        String version = driverVersion(labels);
        if (plan.optedOut()) {
            return new NodeSummary(
                    name, nfd, true, version, Set.of(), Set.of(), Set.of(), false, null, null, null,
                    null);
        }
        Set<Operand> desired = EnumSet.noneOf(Operand.class);
        Set<Operand> ready = EnumSet.noneOf(Operand.class);
        Set<Operand> updated = EnumSet.noneOf(Operand.class);
        for (Operand op : enabled) {
            if (!"true".equals(labels.get(op.deployLabel()))) {
                continue;
            }
            desired.add(op);
            PodState pod = pods.get(op);
            if (pod != null && pod.ready()) {
                ready.add(op);
            }
            if (pod != null
                    && pod.templateHash() != null
                    && pod.templateHash().equals(templateHashes.get(op))) {
                updated.add(op);
            }
        }
        Operand at = plan.stuckAt();
        return new NodeSummary(
                name,
                nfd,
                true,
                version,
                Collections.unmodifiableSet(desired),
                Collections.unmodifiableSet(ready),
                Collections.unmodifiableSet(updated),
                at == null,
                at,
                at == null ? null : stuckReason(labels, at, validation, pods),
                advertised != null && compared(ready, labels)
                        ? ResourceAgreement.check(name, labels, advertised, migStrategy)
                        : List.of(),
                pluginConfig);
    }

    /**
     * The image pull failure that holds the node: of the operand it waits at, else of an operand
     * before it, else of any other operand pod here (the validator's); null when none.
     */
    private static String pullFailure(Operand at, Map<Operand, PodState> pods) {
        List<Operand> order = new ArrayList<>();
        order.add(at);
        order.addAll(at.predecessors());
        order.addAll(pods.keySet());
        for (Operand o : order) {
            PodState pod = pods.get(o);
            if (pod != null && pod.pullFailure() != null) {
                return pod.pullFailure();
            }
        }
        return null;
    }

    /**
     * Labels and resources are compared once both feature discovery and the device plugin are Ready
     * here and feature discovery has labelled the GPU count; before that they differ by design.
     */
    private static boolean compared(Set<Operand> ready, Map<String, String> labels) {
        return ready.contains(Operand.GPU_FEATURE_DISCOVERY)
                && ready.contains(Operand.DEVICE_PLUGIN)
                && labels.containsKey(ResourceAgreement.GPU + ".count");
    }

    static String driverVersion(Map<String, String> labels) {
        String full = labels.get(DRIVER_VERSION_FULL);
        if (full != null && !full.isBlank()) {
            return full;
        }
        String major = labels.get(DRIVER_MAJOR);
        if (major == null || major.isBlank()) {
            return null;
        }
        StringBuilder v = new StringBuilder(major);
        String minor = labels.get(DRIVER_MINOR);
        if (minor != null && !minor.isBlank()) {
            v.append('.').append(minor);
            String rev = labels.get(DRIVER_REV);
            if (rev != null && !rev.isBlank()) {
                v.append('.').append(rev);
            }
        }
        return v.toString();
    }

    private static String stuckReason(
            Map<String, String> labels,
            Operand at,
            ValidationReport validation,
            Map<Operand, PodState> pods) {
        String value = labels.get(at.deployLabel());
        String pull = pullFailure(at, pods);
        if (pull != null && !NodeLabels.isForeign(value)) {
            return pull;
        }
        String validator = validation.summary();
        if (validator != null && !NodeLabels.isForeign(value)) {
            return "validator: " + validator;
        }
        if (NodeLabels.PAUSED_FOR_MIG_CHANGE.equals(value)) {
            return "paused by the MIG manager while the MIG layout changes ("
                    + at.deployLabel()
                    + "="
                    + value
                    + ")";
        }
        if (NodeLabels.isForeign(value)) {
            return "deploy label " + at.deployLabel() + "=" + value + " is set by someone else";
        }
        if (value == null) {
            return "waiting for the pods before " + at.id() + " to be Ready";
        }
        if (NodeLabels.PAUSED_FOR_DRIVER_UPGRADE.equals(value)) {
            return "paused for the driver upgrade (" + at.deployLabel() + "=" + value + ")";
        }
        return "the " + at.daemonSetName() + " pod on this node is not Ready";
    }
}
