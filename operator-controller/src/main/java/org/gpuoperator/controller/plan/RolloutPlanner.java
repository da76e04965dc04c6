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
import org.gpuoperator.controller.nvidiadriver.DriverHandover;
import org.gpuoperator.controller.nvidiadriver.DriverPoolPlan;
import org.gpuoperator.controller.nvidiadriver.DriverPools;
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

    /**
     * One policy as the controller would render it.
     *
     * @param pools in NVIDIADriver mode, the NVIDIADrivers' pools and DaemonSets as the reconcile
     *     plans them (the desired state holds the same DaemonSets); null in ClusterPolicy mode
     */
    public record Side(
            ClusterPolicySpec spec,
            PolicySettings settings,
            DesiredState desired,
            DriverPoolPlan pools) {

        /** ClusterPolicy mode. */
        public Side(ClusterPolicySpec spec, PolicySettings settings, DesiredState desired) {
            this(spec, settings, desired, null);
        }
    }

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
        if (in.next().pools() != null) {
            return planPools(in);
        }
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
                            new NodeTarget(
                                    next, changes, unload, target, upgrade, null, false, false),
                            in.current().isPresent(),
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

    /**
     * NVIDIADriver mode: the driver DaemonSets are the pools' ({@link DriverPoolPlan}), each node's
     * driver compared with the one it has now (the current side's pool DaemonSet for the node, or
     * the ClusterPolicy's driver DaemonSet when the current policy is not in this mode), and one
     * upgrade per NVIDIADriver over its nodes, under its policy, as the reconcile runs them.
     */
    private static RolloutPlan planPools(Input in) {
        Side nextSide = in.next();
        DriverPoolPlan pools = nextSide.pools();
        boolean baseline = in.current().isPresent();
        Map<Operand, DaemonSet> next = daemonSets(nextSide.desired());
        next.remove(Operand.DRIVER);
        Map<Operand, DaemonSet> current =
                in.current().map(c -> daemonSets(c.desired())).orElse(new EnumMap<>(Operand.class));
        DaemonSet currentClusterDriver =
                in.current().filter(c -> c.pools() == null).isPresent()
                        ? current.get(Operand.DRIVER)
                        : null;
        current.remove(Operand.DRIVER);

        List<OperandChange> operands = new ArrayList<>();
        Map<Operand, Change> changes = new EnumMap<>(Operand.class);
        for (Operand o : Operand.values()) {
            if (o == Operand.DRIVER) {
                operands.addAll(driverChanges(in, pools, currentClusterDriver));
                continue;
            }
            Compared c = compare(current.get(o), next.get(o), baseline);
            changes.put(o, c.change());
            if (next.get(o) != null || current.get(o) != null) {
                operands.add(new OperandChange(o, c.change(), c.paths(), rollout(o, next.get(o))));
            }
        }

        String simulationLabel = nextSide.settings().simulation().nodeLabel();
        Map<String, List<Pod>> podsByNode = podsByNode(in.pods());
        DriverPoolPlan currentPools = in.current().map(Side::pools).orElse(null);
        List<NodeDraft> drafts = new ArrayList<>();
        Map<String, String> driverOfNode = new HashMap<>();
        Map<String, String> driverText = new HashMap<>();
        for (Node node : in.nodes()) {
            String name = node.getMetadata().getName();
            boolean gpu = NodeLabels.isGpuNode(labels(node), simulationLabel);
            Optional<String> driver =
                    gpu ? pools.routing().driverOf(node) : Optional.<String>empty();
            Optional<String> pool = gpu ? pools.routing().poolOf(node) : Optional.<String>empty();
            DaemonSet after = pool.map(pools.daemonSets()::get).orElse(null);
            DaemonSet before =
                    currentPools != null
                            ? currentPools
                                    .routing()
                                    .poolOf(node)
                                    .map(currentPools.daemonSets()::get)
                                    .orElse(null)
                            : currentClusterDriver;
            boolean held = driver.isPresent() && pools.errors().containsKey(driver.get());
            Pod running =
                    podsByNode.getOrDefault(name, List.of()).stream()
                            .filter(RolloutPlanner::isDriverPod)
                            .findFirst()
                            .orElse(null);
            // the handover's rule, the machine's own (DriverHandover.isTargets): a driver pod of
            // another DaemonSet than the node's target (by its pool label), or an orphan, is
            // replaced through the full path
            boolean moves =
                    after != null
                            && (running != null
                                    ? !DriverHandover.isTargets(running, pool.get())
                                    : before != null
                                            && !before.getMetadata()
                                                    .getName()
                                                    .equals(after.getMetadata().getName()));
            Map<Operand, DaemonSet> nodeNext = new EnumMap<>(Operand.class);
            nodeNext.putAll(next);
            if (after != null) {
                nodeNext.put(Operand.DRIVER, after);
            }
            Map<Operand, Change> nodeChanges = new EnumMap<>(changes);
            nodeChanges.put(Operand.DRIVER, compare(before, after, baseline).change());
            String target = env(after, "DRIVER_VERSION");
            UpgradePolicy upgrade =
                    driver.map(pools.upgradePolicies()::get)
                            .orElseGet(() -> UpgradePolicy.ofNvidiaDriver(null));
            drafts.add(
                    draft(
                            node,
                            podsByNode.getOrDefault(name, List.of()),
                            new NodeTarget(
                                    nodeNext,
                                    nodeChanges,
                                    baseline && before != null && after != null
                                            ? unloadReason(before, after)
                                            : Optional.empty(),
                                    target,
                                    upgrade,
                                    before == null ? null : hash(before),
                                    held,
                                    moves),
                            baseline,
                            simulationLabel));
            driver.ifPresent(d -> driverOfNode.put(name, d));
            driverText.put(
                    name,
                    driver.map(
                                    d ->
                                            d
                                                    + pool.map(p -> " (pool " + p + ")").orElse("")
                                                    + (held
                                                            ? ": refused, its driver stays as it"
                                                                    + " is: "
                                                                    + pools.errors().get(d)
                                                            : ""))
                            .orElse(
                                    "none (no NVIDIADriver selects the node, or several do and"
                                            + " it had none): not upgraded"));
        }

        // one upgrade per NVIDIADriver over its nodes, as the reconcile's passes
        List<RolloutPlan.DriverGroup> groups = new ArrayList<>();
        Map<String, Integer> batchOf = new HashMap<>();
        List<String> notes = new ArrayList<>();
        for (String driver : new java.util.TreeSet<>(driverOfNode.values())) {
            List<NodeDraft> mine =
                    drafts.stream().filter(d -> driver.equals(driverOfNode.get(d.name))).toList();
            UpgradePolicy upgrade = pools.upgradePolicies().get(driver);
            Batches b = batches(mine, upgrade);
            batchOf.putAll(b.batchOf());
            groups.add(
                    new RolloutPlan.DriverGroup(
                            driver, b.batches(), b.notStarted(), budget(upgrade, b.managed())));
            if (!upgrade.autoUpgrade() && mine.stream().anyMatch(d -> d.driverRestart)) {
                notes.add(
                        "NVIDIADriver "
                                + driver
                                + ": spec.upgradePolicy.autoUpgrade is false: its driver pods"
                                + " (OnDelete) are not restarted and the upgrade stays pending;"
                                + " the batches show the order once it is true");
            }
        }
        List<NodeEntry> entries = new ArrayList<>();
        for (NodeDraft d : drafts) {
            NodeEntry e = d.entry(batchOf.getOrDefault(d.name, 0));
            entries.add(
                    new NodeEntry(
                            e.name(),
                            e.gpuNode(),
                            e.restarts(),
                            e.stops(),
                            e.driverRestart(),
                            e.driverRestartOnly(),
                            e.driverUnload(),
                            e.evicts(),
                            e.waitsFor(),
                            e.batch(),
                            e.gpuNode() ? driverText.get(d.name) : null));
        }
        if (!baseline) {
            notes.add(
                    0,
                    "no current policy to compare with: operand pods are compared by their"
                            + " template hash, and the driver unload by the nodes' driver version"
                            + " label ("
                            + NodeVersions.DRIVER_LABEL
                            + ")");
        }

        // the version matrix per NVIDIADriver's version, over its nodes
        ClusterPolicySpec nextSpec = ClusterPolicyDefaults.effective(nextSide.spec());
        java.util.Set<String> warnings = new java.util.LinkedHashSet<>(in.policyWarnings());
        Map<String, List<Node>> gpuNodesByDriver = new java.util.TreeMap<>();
        for (Node n : in.nodes()) {
            if (NodeLabels.isGpuNode(labels(n), simulationLabel)) {
                gpuNodesByDriver
                        .computeIfAbsent(
                                driverOfNode.getOrDefault(n.getMetadata().getName(), ""),
                                k -> new ArrayList<>())
                        .add(n);
            }
        }
        if (gpuNodesByDriver.isEmpty()) {
            gpuNodesByDriver.put("", List.of());
        }
        gpuNodesByDriver.forEach(
                (driver, nodes) ->
                        VersionMatrixCheck.check(
                                        in.matrix(),
                                        new VersionMatrixCheck.PolicyVersions(
                                                driver.isEmpty()
                                                        ? null
                                                        : driverVersionOf(pools, driver),
                                                nextSide.settings()
                                                                .enabled(Operand.CONTAINER_TOOLKIT)
                                                        ? nextSpec.getToolkit().getVersion()
                                                        : null,
                                                in.operatorVersion()),
                                        nodes.stream().map(NodeVersions::of).toList())
                                .stream()
                                .map(MatrixWarning::line)
                                .forEach(warnings::add));

        List<String> unloads =
                entries.stream()
                        .map(NodeEntry::driverUnload)
                        .filter(Objects::nonNull)
                        .distinct()
                        .sorted()
                        .toList();
        return new RolloutPlan(
                List.copyOf(operands),
                unloads.isEmpty() ? Optional.empty() : Optional.of(String.join("; ", unloads)),
                List.copyOf(entries),
                List.of(),
                List.of(),
                null,
                List.copyOf(warnings),
                List.copyOf(notes),
                List.copyOf(groups));
    }

    /**
     * The driver DaemonSets, by name: the pools' of the new side against the current side's (its
     * pools', or the ClusterPolicy's driver DaemonSet).
     */
    private static List<OperandChange> driverChanges(
            Input in, DriverPoolPlan pools, DaemonSet currentClusterDriver) {
        Map<String, DaemonSet> after = new java.util.TreeMap<>();
        pools.daemonSets().values().forEach(ds -> after.put(ds.getMetadata().getName(), ds));
        Map<String, DaemonSet> before = new java.util.TreeMap<>();
        DriverPoolPlan currentPools = in.current().map(Side::pools).orElse(null);
        if (currentPools != null) {
            currentPools
                    .daemonSets()
                    .values()
                    .forEach(ds -> before.put(ds.getMetadata().getName(), ds));
        } else if (currentClusterDriver != null) {
            before.put(currentClusterDriver.getMetadata().getName(), currentClusterDriver);
        }
        java.util.Set<String> names = new java.util.TreeSet<>(after.keySet());
        names.addAll(before.keySet());
        List<OperandChange> out = new ArrayList<>();
        for (String name : names) {
            DaemonSet ds = after.getOrDefault(name, before.get(name));
            String owner =
                    ds.getMetadata().getAnnotations() == null
                            ? null
                            : ds.getMetadata().getAnnotations().get(DriverPools.DRIVER_ANNOTATION);
            Compared c = compare(before.get(name), after.get(name), in.current().isPresent());
            out.add(
                    new OperandChange(
                            Operand.DRIVER,
                            c.change(),
                            c.paths(),
                            rollout(Operand.DRIVER, after.get(name)),
                            owner == null ? name : name + " (NVIDIADriver " + owner + ")"));
        }
        return out;
    }

    private record Compared(Change change, List<String> paths) {}

    private static Compared compare(DaemonSet before, DaemonSet after, boolean baseline) {
        if (!baseline) {
            return new Compared(after == null ? Change.UNCHANGED : Change.NO_BASELINE, List.of());
        }
        if (after == null) {
            return new Compared(before == null ? Change.UNCHANGED : Change.REMOVED, List.of());
        }
        if (before == null) {
            return new Compared(Change.ADDED, List.of());
        }
        List<String> paths =
                TemplateDiff.paths(before.getSpec().getTemplate(), after.getSpec().getTemplate());
        return new Compared(paths.isEmpty() ? Change.UNCHANGED : Change.CHANGED, paths);
    }

    private static Map<String, List<Pod>> podsByNode(List<Pod> pods) {
        Map<String, List<Pod>> podsByNode = new HashMap<>();
        for (Pod p : pods) {
            if (p.getSpec() != null && p.getSpec().getNodeName() != null) {
                podsByNode
                        .computeIfAbsent(p.getSpec().getNodeName(), k -> new ArrayList<>())
                        .add(p);
            }
        }
        return podsByNode;
    }

    /** The modules unload when the driver's version or kernel module type changes. */
    private static Optional<String> unloadReason(DaemonSet before, DaemonSet after) {
        List<String> why = new ArrayList<>();
        for (String[] e :
                List.of(
                        new String[] {"DRIVER_VERSION", "driver version"},
                        new String[] {"KERNEL_MODULE_TYPE", "kernel module type"})) {
            String b = env(before, e[0]);
            String a = env(after, e[0]);
            if (!Objects.equals(b, a)) {
                why.add(e[1] + " " + b + " -> " + a);
            }
        }
        return why.isEmpty() ? Optional.empty() : Optional.of(String.join(", ", why));
    }

    /** An env value of the DaemonSet's driver container, or null. */
    private static String env(DaemonSet ds, String name) {
        if (ds == null) {
            return null;
        }
        for (var c : ds.getSpec().getTemplate().getSpec().getContainers()) {
            if (c.getEnv() != null) {
                for (var e : c.getEnv()) {
                    if (name.equals(e.getName()) && e.getValue() != null) {
                        return e.getValue();
                    }
                }
            }
        }
        return null;
    }

    private static boolean isDriverPod(Pod p) {
        Map<String, String> l =
                p.getMetadata().getLabels() == null ? Map.of() : p.getMetadata().getLabels();
        return Operand.byModule(l.get(PodContract.APP_NAME_LABEL)) == Operand.DRIVER
                && PodContract.MANAGED_BY.equals(l.get(PodContract.MANAGED_BY_LABEL));
    }

    private static String hash(DaemonSet ds) {
        var annotations = ds.getSpec().getTemplate().getMetadata().getAnnotations();
        return annotations == null ? null : annotations.get(PodContract.TEMPLATE_HASH_ANNOTATION);
    }

    /** The driver version of an NVIDIADriver's DaemonSets (its spec.version as rendered). */
    private static String driverVersionOf(DriverPoolPlan pools, String driver) {
        return pools.poolsOf(driver).stream()
                .map(p -> env(pools.daemonSets().get(p.id()), "DRIVER_VERSION"))
                .filter(Objects::nonNull)
                .findFirst()
                .orElse(null);
    }

    private static String budget(UpgradePolicy upgrade, int managed) {
        return "maxParallelUpgrades "
                + (upgrade.maxParallelUpgrades() == 0
                        ? "unlimited"
                        : Integer.toString(upgrade.maxParallelUpgrades()))
                + ", maxUnavailable "
                + upgrade.maxUnavailable()
                + " = "
                + upgrade.maxUnavailable().of(managed)
                + " of "
                + managed
                + " nodes";
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

    /**
     * What a node is planned against.
     *
     * @param next the DaemonSet of each operand on the node (in NVIDIADriver mode the driver's is
     *     the node's pool's)
     * @param changes each operand's change on the node
     * @param unload why the node's driver unloads when it restarts, empty when it need not
     * @param target the driver version the node gets, or null
     * @param upgrade the policy the node is upgraded under
     * @param driverHashBefore the template hash of the driver DaemonSet the node's driver pod came
     *     from, when no pod of it is given (its restart-only path); null: not known
     * @param driverHeld the node's driver is left as it is (its NVIDIADriver is refused: fail
     *     closed)
     * @param driverMoves the node's driver pod is another DaemonSet's than its target (switching
     *     NVIDIADriver mode, moving between pools, an orphan): the handover replaces it through the
     *     upgrade's full path, whatever its template hash
     */
    private record NodeTarget(
            Map<Operand, DaemonSet> next,
            Map<Operand, Change> changes,
            Optional<String> unload,
            String target,
            UpgradePolicy upgrade,
            String driverHashBefore,
            boolean driverHeld,
            boolean driverMoves) {}

    private static NodeDraft draft(
            Node node, List<Pod> pods, NodeTarget t, boolean baseline, String simulationLabel) {
        Map<Operand, DaemonSet> next = t.next();
        Map<Operand, Change> changes = t.changes();
        Optional<String> unload = t.unload();
        String target = t.target();
        UpgradePolicy upgrade = t.upgrade();
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
            if (!deployed || (o == Operand.DRIVER && t.driverHeld())) {
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
            if (o == Operand.DRIVER && t.driverMoves()) {
                restart = true;
            }
            if (o == Operand.DRIVER
                    && NodeLabels.PRE_INSTALLED.equals(labels.get(o.deployLabel()))) {
                restart = false;
            }
            if (restart) {
                restarts.add(
                        pod == null
                                ? ds.getMetadata().getName() + " pod"
                                : pod.getMetadata().getName());
                driverRestart |= o == Operand.DRIVER;
                if (o == Operand.DRIVER) {
                    // the upgrade's restart-only path: the driver configuration digest unchanged
                    String digest = PodContract.configDigestOf(newHash);
                    restartOnly =
                            !t.driverMoves()
                                    && digest != null
                                    && digest.equals(
                                            PodContract.configDigestOf(
                                                    podHash != null
                                                            ? podHash
                                                            : t.driverHashBefore()));
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
