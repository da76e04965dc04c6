package org.gpuoperator.controller.plan;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import org.gpuoperator.api.common.KernelModuleType;
import org.gpuoperator.api.defaults.ClusterPolicyDefaults;
import org.gpuoperator.api.v1.ClusterPolicySpec;
import org.gpuoperator.api.v1.DriverSpec;
import org.gpuoperator.controller.matrix.MatrixWarning;
import org.gpuoperator.controller.matrix.NodeVersions;
import org.gpuoperator.controller.matrix.VersionMatrix;
import org.gpuoperator.controller.matrix.VersionMatrixCheck;
import org.gpuoperator.controller.nodes.NodeLabels;
import org.gpuoperator.controller.operand.Operand;
import org.gpuoperator.controller.operand.OperandModels;
import org.gpuoperator.controller.operand.PodContract;
import org.gpuoperator.controller.plan.RolloutPlan.Change;
import org.gpuoperator.controller.plan.RolloutPlan.NodeEntry;
import org.gpuoperator.controller.plan.RolloutPlan.OperandChange;
import org.gpuoperator.controller.policy.PolicySettings;
import org.gpuoperator.controller.reconcile.DesiredState;
import org.gpuoperator.controller.upgrade.NodePod;
import org.gpuoperator.controller.upgrade.UpgradeKeys;
import org.gpuoperator.controller.upgrade.UpgradeMachine;
import org.gpuoperator.controller.upgrade.UpgradeNode;
import org.gpuoperator.controller.upgrade.UpgradeNodes;
import org.gpuoperator.controller.upgrade.UpgradePlan;
import org.gpuoperator.controller.upgrade.UpgradePolicy;
import org.gpuoperator.controller.upgrade.UpgradeState;

/**
 * Plans a policy change without touching anything: the rendered DaemonSets of the current and the
 * new policy compared (the controller's own rendering), the nodes and their pods, the upgrade
 * machine run dry for the batches, and the version matrix. Pure.
 */
public final class RolloutPlanner {

    private RolloutPlanner() {}

    /** One policy as the controller would render it. */
    public record Side(ClusterPolicySpec spec, PolicySettings settings, DesiredState desired) {}

    /**
     * @param current the policy deployed now; empty when unknown (operand pods are then compared by
     *     their template hash only)
     * @param pods the pods of the nodes (operand pods and workloads); may be empty
     * @param policyWarnings the new policy's warnings, one line each
     * @param operatorVersion this controller's version, or null
     */
    public record Input(
            Optional<Side> current,
            Side next,
            List<Node> nodes,
            List<Pod> pods,
            VersionMatrix matrix,
            List<String> policyWarnings,
            String operatorVersion) {}

    public static RolloutPlan plan(Input in) {
        Map<Operand, DaemonSet> next = daemonSets(in.next().desired());
        Map<Operand, DaemonSet> current =
                in.current().map(s -> daemonSets(s.desired())).orElse(Map.of());
        List<OperandChange> operands = new ArrayList<>();
        Map<Operand, Change> changes = new EnumMap<>(Operand.class);
        for (Operand o : Operand.values()) {
            DaemonSet after = next.get(o);
            DaemonSet before = current.get(o);
            Change change;
            List<String> paths = List.of();
            if (in.current().isEmpty()) {
                change = after == null ? Change.UNCHANGED : Change.NO_BASELINE;
            } else if (after == null) {
                change = before == null ? Change.UNCHANGED : Change.REMOVED;
            } else if (before == null) {
                change = Change.ADDED;
            } else {
                paths =
                        TemplateDiff.paths(
                                before.getSpec().getTemplate(), after.getSpec().getTemplate());
                change = paths.isEmpty() ? Change.UNCHANGED : Change.CHANGED;
            }
            changes.put(o, change);
            if (after != null || before != null) {
                operands.add(new OperandChange(o, change, paths, rollout(o, after)));
            }
        }

        ClusterPolicySpec nextSpec = ClusterPolicyDefaults.effective(in.next().spec());
        String target = in.next().settings().nodeReadiness().driverVersion();
        Optional<String> unload = in.current().flatMap(c -> unloadReason(c, in.next()));
        UpgradePolicy upgrade = UpgradePolicy.from(nextSpec.getDriver().getUpgradePolicy());
        String simulationLabel = in.next().settings().simulation().nodeLabel();

        Map<String, List<Pod>> podsByNode = new HashMap<>();
        for (Pod p : in.pods()) {
            if (p.getSpec() != null && p.getSpec().getNodeName() != null) {
                podsByNode
                        .computeIfAbsent(p.getSpec().getNodeName(), k -> new ArrayList<>())
                        .add(p);
            }
        }

        List<NodeDraft> drafts = new ArrayList<>();
        for (Node node : in.nodes()) {
            drafts.add(
                    draft(
                            node,
                            podsByNode.getOrDefault(node.getMetadata().getName(), List.of()),
                            next,
                            changes,
                            in.current().isPresent(),
                            unload,
                            target,
                            upgrade,
                            simulationLabel));
        }

        Batches batches = batches(drafts, upgrade);
        List<NodeEntry> entries =
                drafts.stream()
                        .map(d -> d.entry(batches.batchOf().getOrDefault(d.name, 0)))
                        .toList();

        List<String> warnings = new ArrayList<>(in.policyWarnings());
        VersionMatrixCheck.check(
                        in.matrix(),
                        new VersionMatrixCheck.PolicyVersions(
                                target,
                                in.next().settings().enabled(Operand.CONTAINER_TOOLKIT)
                                        ? nextSpec.getToolkit().getVersion()
                                        : null,
                                in.operatorVersion()),
                        in.nodes().stream()
                                .filter(n -> NodeLabels.isGpuNode(labels(n), simulationLabel))
                                .map(NodeVersions::of)
                                .toList())
                .stream()
                .map(MatrixWarning::line)
                .forEach(warnings::add);

        List<String> notes = new ArrayList<>();
        if (in.current().isEmpty()) {
            notes.add(
                    "no current policy to compare with: operand pods are compared by their"
                            + " template hash, and the driver unload by the nodes' driver version"
                            + " label ("
                            + NodeVersions.DRIVER_LABEL
                            + ")");
        }
        if (!upgrade.autoUpgrade() && drafts.stream().anyMatch(d -> d.driverRestart)) {
            notes.add(
                    UpgradePolicy.FIELD
                            + ".autoUpgrade is false: the driver pods (OnDelete) are not"
                            + " restarted and the upgrade stays pending; the batches show the order"
                            + " once it is true");
        }
        String budget =
                "maxParallelUpgrades "
                        + (upgrade.maxParallelUpgrades() == 0
                                ? "unlimited"
                                : Integer.toString(upgrade.maxParallelUpgrades()))
                        + ", maxUnavailable "
                        + upgrade.maxUnavailable()
                        + " = "
                        + upgrade.maxUnavailable().of(batches.managed())
                        + " of "
                        + batches.managed()
                        + " nodes";
        return new RolloutPlan(
                List.copyOf(operands),
                unload,
                entries,
                batches.batches(),
                batches.notStarted(),
                budget,
                List.copyOf(warnings),
                List.copyOf(notes));
    }

    private static Map<Operand, DaemonSet> daemonSets(DesiredState desired) {
        Map<Operand, DaemonSet> out = new EnumMap<>(Operand.class);
        desired.enabled()
                .forEach(
                        (o, objects) -> {
                            // the operand's own DaemonSet (a driver pool's in NVIDIADriver
                            // mode), not a companion's (the device plugin's MPS control daemon)
                            List<String> companions = OperandModels.companionDaemonSets(o);
                            for (HasMetadata h : objects) {
                                if (h instanceof DaemonSet ds
                                        && !companions.contains(ds.getMetadata().getName())) {
                                    out.put(o, ds);
                                }
                            }
                        });
        return out;
    }

    private static String rollout(Operand o, DaemonSet ds) {
        if (o == Operand.DRIVER) {
            return "restarts node by node through the driver upgrade (OnDelete)";
        }
        if (ds == null) {
            return "deleted";
        }
        var strategy = ds.getSpec().getUpdateStrategy();
        if (strategy != null && "OnDelete".equals(strategy.getType())) {
            return "restarts when each pod is deleted (OnDelete)";
        }
        String max =
                strategy == null || strategy.getRollingUpdate() == null
                        ? "1"
                        : String.valueOf(
                                strategy.getRollingUpdate().getMaxUnavailable().getValue());
        return "rolling restart on every node (maxUnavailable " + max + ")";
    }

    /** The modules must be unloaded when the driver version or the kernel module type changes. */
    private static Optional<String> unloadReason(Side current, Side next) {
        List<String> why = new ArrayList<>();
        String before = driverVersion(current);
        String after = driverVersion(next);
        if (!Objects.equals(before, after)) {
            why.add("driver version " + before + " -> " + after);
        }
        String kmtBefore = moduleType(current.spec());
        String kmtAfter = moduleType(next.spec());
        if (!kmtBefore.equals(kmtAfter)) {
            why.add("kernel module type " + kmtBefore + " -> " + kmtAfter);
        }
        boolean driverOn =
                next.settings().enabled(Operand.DRIVER)
                        && current.settings().enabled(Operand.DRIVER);
        return why.isEmpty() || !driverOn ? Optional.empty() : Optional.of(String.join(", ", why));
    }

    private static String driverVersion(Side side) {
        String v = side.settings().nodeReadiness().driverVersion();
        return v == null ? "(the driver image's default)" : v;
    }

    private static String moduleType(ClusterPolicySpec spec) {
        DriverSpec d = ClusterPolicyDefaults.effective(spec).getDriver();
        if (Boolean.TRUE.equals(d.getUseOpenKernelModules())) {
            return "open";
        }
        KernelModuleType t = d.getKernelModuleType();
        return t == null ? "auto" : t.jsonValue();
    }

    private static Map<String, String> labels(Node n) {
        return n.getMetadata().getLabels() == null ? Map.of() : n.getMetadata().getLabels();
    }

    /** A node's entry before the batches are known. */
    private record NodeDraft(
            String name,
            boolean gpu,
            boolean ready,
            boolean unschedulable,
            boolean skip,
            List<String> restarts,
            List<String> stops,
            boolean driverRestart,
            boolean driverRestartOnly,
            String unload,
            List<String> evicts,
            List<String> waitsFor) {
        NodeEntry entry(int batch) {
            return new NodeEntry(
                    name,
                    gpu,
                    restarts,
                    stops,
                    driverRestart,
                    driverRestartOnly,
                    unload,
                    evicts,
                    waitsFor,
                    batch);
        }
    }

    private static NodeDraft draft(
            Node node,
            List<Pod> pods,
            Map<Operand, DaemonSet> next,
            Map<Operand, Change> changes,
            boolean baseline,
            Optional<String> unload,
            String target,
            UpgradePolicy upgrade,
            String simulationLabel) {
        Map<String, String> labels = labels(node);
        String name = node.getMetadata().getName();
        boolean gpu = NodeLabels.isGpuNode(labels, simulationLabel);
        boolean ready = ready(node);
        boolean unschedulable =
                node.getSpec() != null && Boolean.TRUE.equals(node.getSpec().getUnschedulable());
        if (!gpu) {
            return new NodeDraft(
                    name,
                    false,
                    ready,
                    unschedulable,
                    false,
                    List.of(),
                    List.of(),
                    false,
                    false,
                    null,
                    List.of(),
                    List.of());
        }
        Map<Operand, Pod> operandPods = new EnumMap<>(Operand.class);
        List<Pod> workloads = new ArrayList<>();
        for (Pod p : pods) {
            Map<String, String> pl =
                    p.getMetadata().getLabels() == null ? Map.of() : p.getMetadata().getLabels();
            Operand o = Operand.byModule(pl.get(PodContract.APP_NAME_LABEL));
            boolean ours = PodContract.MANAGED_BY.equals(pl.get(PodContract.MANAGED_BY_LABEL));
            if (o != null && ours) {
                operandPods.put(o, p);
            } else if (o == null && !ours) {
                // a companion's pod (the MPS control daemon) is ours, not a workload
                workloads.add(p);
            }
        }
        List<String> restarts = new ArrayList<>();
        List<String> stops = new ArrayList<>();
        boolean driverRestart = false;
        boolean restartOnly = false;
        for (Operand o : Operand.values()) {
            Pod pod = operandPods.get(o);
            boolean deployed = pod != null || "true".equals(labels.get(o.deployLabel()));
            if (!deployed) {
                continue;
            }
            DaemonSet ds = next.get(o);
            if (ds == null) {
                if (changes.get(o) == Change.REMOVED || !baseline) {
                    stops.add(pod == null ? o.daemonSetName() : pod.getMetadata().getName());
                }
                continue;
            }
            boolean restart;
            String newHash =
                    ds.getSpec()
                            .getTemplate()
                            .getMetadata()
                            .getAnnotations()
                            .get(PodContract.TEMPLATE_HASH_ANNOTATION);
            String podHash =
                    pod == null || pod.getMetadata().getAnnotations() == null
                            ? null
                            : pod.getMetadata()
                                    .getAnnotations()
                                    .get(PodContract.TEMPLATE_HASH_ANNOTATION);
            if (podHash != null) {
                restart = !podHash.equals(newHash);
            } else {
                restart = changes.get(o) == Change.CHANGED;
            }
            if (o == Operand.DRIVER
                    && NodeLabels.PRE_INSTALLED.equals(labels.get(o.deployLabel()))) {
                restart = false;
            }
            if (restart) {
                restarts.add(
                        pod == null ? o.daemonSetName() + " pod" : pod.getMetadata().getName());
                driverRestart |= o == Operand.DRIVER;
                if (o == Operand.DRIVER) {
                    // the upgrade's restart-only path: the driver configuration digest unchanged
                    String digest = PodContract.configDigestOf(newHash);
                    restartOnly =
                            digest != null && digest.equals(PodContract.configDigestOf(podHash));
                }
            }
        }
        if (driverRestart && !restartOnly) {
            // the upgrade takes what uses the driver off the node until the new driver is Ready
            for (Operand o : Operand.values()) {
                Pod pod = operandPods.get(o);
                if (UpgradeNodes.usesDriver(o)
                        && pod != null
                        && next.get(o) != null
                        && !restarts.contains(pod.getMetadata().getName())) {
                    restarts.add(
                            pod.getMetadata().getName()
                                    + " (paused until the new driver is Ready)");
                }
            }
        }
        String running = labels.get(NodeVersions.DRIVER_LABEL);
        String nodeUnload = null;
        if (driverRestart && !restartOnly) {
            if (unload.isPresent()) {
                boolean versionChange = unload.get().startsWith("driver version ");
                nodeUnload =
                        target != null && target.equals(running)
                                ? null
                                : versionChange && running != null && target != null
                                        // from what the node runs, not what the policy said
                                        ? "driver version " + running + " -> " + target
                                        : unload.get();
            } else if (!baseline && target != null && running != null && !target.equals(running)) {
                nodeUnload = "driver version " + running + " -> " + target;
            }
        }
        List<String> evicts = new ArrayList<>();
        List<String> waitsFor = new ArrayList<>();
        if (driverRestart && !restartOnly) {
            for (Pod p : workloads) {
                NodePod v = NodePod.of(p, false);
                if (v.finished()) {
                    continue;
                }
                if (upgrade.waitForCompletion().enabled()
                        && upgrade.waitForCompletion().podSelector().matches(v.labels())) {
                    waitsFor.add(v.ref());
                }
                if (v.requestsGpu() && !v.nodeBound()) {
                    String note =
                            !v.controlled() && !upgrade.podDeletion().force()
                                    ? " (refused: not managed by a controller; podDeletion.force)"
                                    : v.usesEmptyDir() && !upgrade.podDeletion().deleteEmptyDir()
                                            ? " (refused: emptyDir; podDeletion.deleteEmptyDir)"
                                            : "";
                    evicts.add(v.ref() + note);
                }
            }
        }
        return new NodeDraft(
                name,
                true,
                ready,
                unschedulable,
                "true".equals(labels.get(UpgradeKeys.SKIP_LABEL)),
                restarts,
                stops,
                driverRestart,
                restartOnly,
                nodeUnload,
                evicts,
                waitsFor);
    }

    private static boolean ready(Node n) {
        if (n.getStatus() == null || n.getStatus().getConditions() == null) {
            return true; // a nodes file without status: assume Ready
        }
        return n.getStatus().getConditions().stream()
                .filter(c -> "Ready".equals(c.getType()))
                .findFirst()
                .map(c -> "True".equals(c.getStatus()))
                .orElse(true);
    }

    private record Batches(
            List<List<String>> batches,
            List<String> notStarted,
            Map<String, Integer> batchOf,
            int managed) {}

    /**
     * The upgrade machine run dry: every node whose driver restarts waits in upgrade-required; each
     * pass's starts form a batch, finished before the next pass.
     */
    private static Batches batches(List<NodeDraft> drafts, UpgradePolicy upgrade) {
        UpgradePolicy dry =
                new UpgradePolicy(
                        true,
                        upgrade.maxParallelUpgrades(),
                        upgrade.maxUnavailable(),
                        upgrade.podDeletion(),
                        upgrade.waitForCompletion(),
                        upgrade.drain(),
                        upgrade.validationTimeout(),
                        upgrade.driverRestartLimit());
        Map<String, UpgradeNode> nodes = new TreeMap<>();
        for (NodeDraft d : drafts) {
            if (!d.gpu()) {
                continue;
            }
            Map<String, String> labels = new HashMap<>();
            labels.put(
                    UpgradeKeys.STATE_LABEL,
                    (d.driverRestart() ? UpgradeState.UPGRADE_REQUIRED : UpgradeState.UPGRADE_DONE)
                            .label());
            if (d.skip()) {
                labels.put(UpgradeKeys.SKIP_LABEL, "true");
            }
            nodes.put(
                    d.name(),
                    dryNode(d.name(), d.ready(), d.unschedulable(), labels, !d.driverRestart()));
        }
        List<List<String>> batches = new ArrayList<>();
        Map<String, Integer> batchOf = new HashMap<>();
        List<String> notStarted = new ArrayList<>();
        while (true) {
            UpgradePlan pass = UpgradeMachine.plan(List.copyOf(nodes.values()), dry, Instant.EPOCH);
            List<String> started =
                    pass.steps().stream()
                            .filter(s -> s.to() == UpgradeState.CORDON_REQUIRED)
                            .map(UpgradePlan.NodeStep::node)
                            .toList();
            if (started.isEmpty()) {
                notStarted.addAll(pass.lines());
                break;
            }
            batches.add(started);
            for (String n : started) {
                batchOf.put(n, batches.size());
                UpgradeNode was = nodes.get(n);
                Map<String, String> labels = new HashMap<>(was.labels());
                labels.put(UpgradeKeys.STATE_LABEL, UpgradeState.UPGRADE_DONE.label());
                nodes.put(n, dryNode(n, was.ready(), was.unschedulable(), labels, true));
            }
        }
        return new Batches(List.copyOf(batches), List.copyOf(notStarted), batchOf, nodes.size());
    }

    private static UpgradeNode dryNode(
            String name,
            boolean ready,
            boolean unschedulable,
            Map<String, String> labels,
            boolean inSync) {
        return new UpgradeNode(
                name,
                ready,
                unschedulable,
                labels,
                Map.of(),
                Optional.of(new UpgradeNode.DriverPod("", "driver", inSync, true, 0, null, null)),
                Optional.empty(),
                List.of(),
                List.of());
    }
}
