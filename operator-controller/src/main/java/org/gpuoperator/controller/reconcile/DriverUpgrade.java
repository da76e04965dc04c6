package org.gpuoperator.controller.reconcile;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.stream.Stream;
import org.gpuoperator.controller.events.EventReasons;
import org.gpuoperator.controller.events.EventRecorder;
import org.gpuoperator.controller.events.EventType;
import org.gpuoperator.controller.events.InvolvedObject;
import org.gpuoperator.controller.events.NodeEvents;
import org.gpuoperator.controller.metrics.OperatorMetrics;
import org.gpuoperator.controller.operand.Operand;
import org.gpuoperator.controller.operand.PodContract;
import org.gpuoperator.controller.upgrade.GpuClaims;
import org.gpuoperator.controller.upgrade.LastGoodVersions;
import org.gpuoperator.controller.upgrade.UpgradeAction;
import org.gpuoperator.controller.upgrade.UpgradeKeys;
import org.gpuoperator.controller.upgrade.UpgradeMachine;
import org.gpuoperator.controller.upgrade.UpgradeNode;
import org.gpuoperator.controller.upgrade.UpgradeNodes;
import org.gpuoperator.controller.upgrade.UpgradePlan;
import org.gpuoperator.controller.upgrade.UpgradePolicy;
import org.gpuoperator.controller.upgrade.UpgradeState;
import org.gpuoperator.controller.upgrade.UpgradeSummary;

/**
 * The driver upgrade step: builds each managed node's view from the caches, runs one pass of the
 * {@link UpgradeMachine} and performs its writes: pod evictions and the driver pod's deletion
 * first, then one merge patch per node (labels, annotations, cordon), the state label in it. A pass
 * with nothing to change writes nothing; what it wrote is remembered until the caches show it, so a
 * pass that runs before its own events arrive does not write it again.
 */
final class DriverUpgrade {

    /** While an eviction is refused by a PodDisruptionBudget: no event says when it may pass. */
    static final Duration BLOCKED_EVICTION_RETRY = Duration.ofSeconds(15);

    /** The caches the step reads. */
    interface Caches {
        Stream<Node> nodes();

        List<Pod> operandPodsOn(String node);

        /** Every pod bound to the node, in any namespace. */
        List<Pod> podsOn(String node);

        /** Which ResourceClaims hold a GPU; unreadable unless the wiring lists them. */
        default GpuClaims gpuClaims() {
            return GpuClaims.UNREADABLE;
        }
    }

    /** Sends one JSON patch (RFC 6902) to a node; returns the node after it. */
    interface NodePatcher {
        Node patch(String node, List<Map<String, Object>> ops);

        static NodePatcher of(KubernetesClient client) {
            return (node, ops) ->
                    client.nodes()
                            .withName(node)
                            .patch(PatchContext.of(PatchType.JSON), Serialization.asJson(ops));
        }
    }

    /**
     * What a pass decided and saw.
     *
     * @param lastGood the last good driver version per node
     * @param requeueAfter when a node waits on a timeout (or a refused eviction): the next pass
     */
    record Result(
            UpgradePlan plan,
            List<UpgradeNode> nodes,
            Map<String, String> lastGood,
            Optional<Duration> requeueAfter) {}

    private final String namespace;
    private final Caches caches;
    private final NodePatcher patcher;
    private final PodEvictions pods;
    private final OperatorMetrics metrics;
    private final Clock clock;
    private final EventRecorder events;

    /** The policy of the pass under way (a failed upgrade is told there too), or null. */
    private InvolvedObject policy;

    /** Pods (by uid) we evicted or deleted, until the cache shows them terminating or gone. */
    private final Set<String> podsRequested = ConcurrentHashMap.newKeySet();

    /** {@code namespace/name} of pods whose last eviction was refused (429). */
    private final Set<String> blocked = ConcurrentHashMap.newKeySet();

    /** Nodes we patched: the result, until the cache moves past the version we patched. */
    private final Map<String, Recent> recent = new ConcurrentHashMap<>();

    private Map<String, String> lastGood = Map.of();

    private record Recent(String patchedFromVersion, Node after) {}

    /**
     * @param namespace the operator's namespace: its pods are never evicted
     */
    DriverUpgrade(
            String namespace,
            Caches caches,
            NodePatcher patcher,
            PodEvictions pods,
            OperatorMetrics metrics,
            Clock clock) {
        this(namespace, caches, patcher, pods, metrics, clock, EventRecorder.NONE);
    }

    /**
     * @param events each node's state change is recorded on the node
     */
    DriverUpgrade(
            String namespace,
            Caches caches,
            NodePatcher patcher,
            PodEvictions pods,
            OperatorMetrics metrics,
            Clock clock,
            EventRecorder events) {
        this.events = events;
        this.namespace = namespace;
        this.caches = caches;
        this.patcher = patcher;
        this.pods = pods;
        this.metrics = metrics;
        this.clock = clock;
    }

    /**
     * One pass over the managed nodes: GPU nodes with a driver pod of ours, or an upgrade state.
     *
     * @param driverTemplateHash the driver DaemonSet's pod template hash: a driver pod with another
     *     one is outdated
     * @param previousLastGood the status's last good versions (kept across controller restarts)
     */
    synchronized Result pass(
            UpgradePolicy policy, String driverTemplateHash, Map<String, String> previousLastGood) {
        return pass(policy, driverTemplateHash, previousLastGood, null);
    }

    /** As above; a node's failed upgrade is also recorded on {@code policyObject} (null: not). */
    synchronized Result pass(
            UpgradePolicy policy,
            String driverTemplateHash,
            Map<String, String> previousLastGood,
            InvolvedObject policyObject) {
        return pass(
                Map.of("", policy),
                n -> "",
                n -> driverTemplateHash,
                n -> null,
                previousLastGood,
                policyObject);
    }

    /**
     * One pass per group of nodes, each under its own policy (NVIDIADriver mode: a group per
     * NVIDIADriver, its upgradePolicy or else the ClusterPolicy's); the figures and lines summed,
     * each line of a named group prefixed with it; a node's failed upgrade is also recorded on
     * {@code policyObject} (null: not).
     *
     * @param policies group name → its policy
     * @param groupOf a managed node's group; a node in none (contested, unassigned) is left alone
     * @param templateHashOf the pod template hash of the DaemonSet that runs the node's driver
     * @param poolOf the pool of that DaemonSet, null for the ClusterPolicy's: a driver pod of
     *     another DaemonSet, or an orphan, is outdated ({@code DriverHandover})
     */
    synchronized Result pass(
            Map<String, UpgradePolicy> policies,
            Function<Node, String> groupOf,
            Function<Node, String> templateHashOf,
            Function<Node, String> poolOf,
            Map<String, String> previousLastGood,
            InvolvedObject policyObject) {
        this.policy = policyObject;
        Instant now = clock.instant();
        Map<String, List<UpgradeNode>> groups = new TreeMap<>();
        policies.keySet().forEach(g -> groups.put(g, new ArrayList<>()));
        List<UpgradeNode> nodes = new ArrayList<>();
        Set<String> seenPods = new HashSet<>();
        Map<String, Node> viewed = new HashMap<>();
        Map<String, String> cachedVersions = new HashMap<>();
        for (Node cached : caches.nodes().toList()) {
            Node node = current(cached);
            String name = node.getMetadata().getName();
            viewed.put(name, node);
            cachedVersions.put(name, cached.getMetadata().getResourceVersion());
            List<Pod> operandPods = caches.operandPodsOn(name);
            boolean hasDriver = operandPods.stream().anyMatch(p -> isOperand(p, Operand.DRIVER));
            if (!hasDriver && state(node) == UpgradeState.UNKNOWN) {
                continue;
            }
            String groupName = groupOf.apply(node);
            List<UpgradeNode> group = groupName == null ? null : groups.get(groupName);
            if (group == null) {
                continue;
            }
            // the driver, the validator and the operands that use the driver
            List<Pod> onNode = new ArrayList<>(operandPods);
            for (Pod p : caches.podsOn(name)) {
                // the operator's own pods are no workloads: the other operand pods (DaemonSet
                // pods) and the validator's check pods, all in the operator's namespace
                if (!namespace.equals(p.getMetadata().getNamespace())) {
                    onNode.add(p);
                }
            }
            onNode.forEach(p -> seenPods.add(p.getMetadata().getUid()));
            UpgradeNode viewedNode =
                    UpgradeNodes.of(
                            node,
                            onNode,
                            templateHashOf.apply(node),
                            poolOf.apply(node),
                            blocked,
                            caches.gpuClaims());
            nodes.add(viewedNode);
            group.add(viewedNode);
        }
        podsRequested.retainAll(seenPods);
        blocked.removeIf(ref -> !seen(ref, nodes));

        List<UpgradePlan> plans = new ArrayList<>();
        List<String> names = new ArrayList<>();
        Optional<Duration> requeue = Optional.empty();
        for (Map.Entry<String, List<UpgradeNode>> group : groups.entrySet()) {
            UpgradePolicy policy = policies.get(group.getKey());
            UpgradePlan plan = UpgradeMachine.plan(group.getValue(), policy, now);
            boolean evictionRefused = false;
            for (UpgradePlan.NodeStep step : plan.steps()) {
                evictionRefused |=
                        perform(step, viewed.get(step.node()), cachedVersions.get(step.node()));
            }
            plans.add(plan);
            names.add(group.getKey());
            requeue =
                    earlier(
                            requeue,
                            requeueAfter(plan, group.getValue(), policy, now, evictionRefused));
        }
        UpgradePlan plan = merge(names, plans);
        Map<String, String> base = lastGood.isEmpty() ? previousLastGood : lastGood;
        lastGood = LastGoodVersions.update(base == null ? Map.of() : base, nodes);
        metrics.driverUpgrade(plan.summary().metrics());
        return new Result(plan, nodes, lastGood, requeue);
    }

    /** One group's plan as it is; several summed, each named group's lines prefixed. */
    static UpgradePlan merge(List<String> names, List<UpgradePlan> plans) {
        if (plans.size() == 1 && names.get(0).isEmpty()) {
            return plans.get(0);
        }
        List<UpgradePlan.NodeStep> steps = new ArrayList<>();
        List<String> lines = new ArrayList<>();
        int inProgress = 0, done = 0, failed = 0, available = 0, pending = 0;
        boolean auto = false;
        for (int i = 0; i < plans.size(); i++) {
            UpgradePlan p = plans.get(i);
            steps.addAll(p.steps());
            boolean named = !names.get(i).isEmpty();
            String prefix = named ? "nvidiadriver " + names.get(i) + ": " : "";
            // a named group's policy is its NVIDIADriver's spec.upgradePolicy
            p.lines()
                    .forEach(
                            l ->
                                    lines.add(
                                            prefix
                                                    + (named
                                                            ? l.replace(
                                                                    UpgradePolicy.FIELD + ".",
                                                                    "spec.upgradePolicy.")
                                                            : l)));
            UpgradeSummary s = p.summary();
            inProgress += s.inProgress();
            done += s.done();
            failed += s.failed();
            available += s.available();
            pending += s.pending();
            auto |= s.autoUpgrade();
        }
        steps.sort(Comparator.comparing(UpgradePlan.NodeStep::node));
        return new UpgradePlan(
                List.copyOf(steps),
                new UpgradeSummary(inProgress, done, failed, available, pending, auto),
                List.copyOf(lines));
    }

    private static Optional<Duration> earlier(Optional<Duration> a, Optional<Duration> b) {
        if (a.isEmpty()) {
            return b;
        }
        if (b.isEmpty()) {
            return a;
        }
        return a.get().compareTo(b.get()) <= 0 ? a : b;
    }

    /**
     * The pod writes, then one JSON patch for the node: annotations, cordon, the state label last;
     * returns whether an eviction was refused.
     */
    private boolean perform(UpgradePlan.NodeStep step, Node node, String cachedVersion) {
        boolean refused = false;
        List<Map<String, Object>> ops = new ArrayList<>();
        Map<String, String> labels = node.getMetadata().getLabels();
        Map<String, String> annotations = node.getMetadata().getAnnotations();
        boolean annotationsExist = annotations != null;
        boolean labelsExist = labels != null;
        for (UpgradeAction action : step.actions()) {
            switch (action) {
                case UpgradeAction.EvictPod e -> refused |= evict(step.node(), e);
                case UpgradeAction.DeleteDriverPod d ->
                        deleteOperandPod(step.node(), d.namespace(), d.name());
                case UpgradeAction.RestartOperandPod v ->
                        deleteOperandPod(step.node(), v.namespace(), v.name());
                case UpgradeAction.Annotate a -> {
                    if (!annotationsExist) {
                        ops.add(op("add", "/metadata/annotations", Map.of()));
                        annotationsExist = true;
                    }
                    set(ops, "/metadata/annotations/", a.key(), a.value(), annotations);
                }
                case UpgradeAction.Cordon c -> {
                    if (node.getSpec() == null) {
                        ops.add(op("add", "/spec", Map.of()));
                    }
                    ops.add(op("add", "/spec/unschedulable", true));
                }
                case UpgradeAction.Uncordon u -> {
                    // removed, as kubectl uncordon leaves it
                    if (node.getSpec() != null && node.getSpec().getUnschedulable() != null) {
                        ops.add(Map.of("op", "remove", "path", "/spec/unschedulable"));
                    }
                }
                case UpgradeAction.SetLabel l -> {
                    if (!labelsExist) {
                        ops.add(op("add", "/metadata/labels", Map.of()));
                        labelsExist = true;
                    }
                    set(ops, "/metadata/labels/", l.key(), l.value(), labels);
                }
                case UpgradeAction.SetState s -> {
                    if (!labelsExist) {
                        ops.add(op("add", "/metadata/labels", Map.of()));
                        labelsExist = true;
                    }
                    set(
                            ops,
                            "/metadata/labels/",
                            UpgradeKeys.STATE_LABEL,
                            s.state() == UpgradeState.UNKNOWN ? null : s.state().label(),
                            labels);
                }
            }
        }
        if (!ops.isEmpty()) {
            Node after = patcher.patch(step.node(), ops);
            metrics.write("patch", "Node");
            if (after != null) {
                recent.put(step.node(), new Recent(cachedVersion, after));
            }
            recordStep(step, node);
        }
        return refused;
    }

    /** The node's move to another state, once its patch is written. */
    private void recordStep(UpgradePlan.NodeStep step, Node node) {
        if (step.from() == step.to()) {
            return;
        }
        String failure = null;
        for (UpgradeAction a : step.actions()) {
            if (a instanceof UpgradeAction.Annotate an
                    && UpgradeKeys.FAILURE_REASON.equals(an.key())) {
                failure = an.value();
            }
        }
        boolean failed = step.to() == UpgradeState.UPGRADE_FAILED;
        String message = NodeEvents.upgradeStep(step.from(), step.to(), failed ? failure : null);
        EventType type = failed ? EventType.WARNING : EventType.NORMAL;
        events.record(InvolvedObject.of(node), type, EventReasons.DRIVER_UPGRADE, message);
        if (failed && policy != null) {
            events.record(
                    policy,
                    type,
                    EventReasons.DRIVER_UPGRADE,
                    "node " + step.node() + " " + message);
        }
    }

    /** Sets (add replaces) or removes one key; a key already absent needs no remove. */
    private static void set(
            List<Map<String, Object>> ops,
            String prefix,
            String key,
            String value,
            Map<String, String> current) {
        String path = prefix + key.replace("~", "~0").replace("/", "~1");
        if (value != null) {
            ops.add(op("add", path, value));
        } else if (current != null && current.containsKey(key)) {
            ops.add(Map.of("op", "remove", "path", path));
        }
    }

    private static Map<String, Object> op(String op, String path, Object value) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("op", op);
        m.put("path", path);
        m.put("value", value);
        return m;
    }

    private boolean evict(String node, UpgradeAction.EvictPod e) {
        String ref = e.namespace() + "/" + e.name();
        Optional<Pod> pod = pod(node, e.namespace(), e.name());
        if (pod.isPresent() && podsRequested.contains(pod.get().getMetadata().getUid())) {
            return false;
        }
        PodEvictions.Outcome outcome = pods.evict(e.namespace(), e.name());
        metrics.write("create", "Pod/eviction");
        if (outcome == PodEvictions.Outcome.BLOCKED) {
            blocked.add(ref);
            return true;
        }
        blocked.remove(ref);
        pod.ifPresent(p -> podsRequested.add(p.getMetadata().getUid()));
        return false;
    }

    /** Deletes a driver or validator pod once; its DaemonSet recreates it. */
    private void deleteOperandPod(String node, String namespace, String name) {
        Optional<Pod> pod =
                caches.operandPodsOn(node).stream()
                        .filter(p -> p.getMetadata().getName().equals(name))
                        .findFirst();
        if (pod.isPresent() && podsRequested.contains(pod.get().getMetadata().getUid())) {
            return;
        }
        pods.delete(namespace, name);
        metrics.write("delete", "Pod");
        pod.ifPresent(p -> podsRequested.add(p.getMetadata().getUid()));
    }

    /**
     * The next pass while a node waits on a timeout, or on an eviction a PodDisruptionBudget
     * refused; otherwise none: events drive the rest.
     */
    private static Optional<Duration> requeueAfter(
            UpgradePlan plan,
            List<UpgradeNode> nodes,
            UpgradePolicy policy,
            Instant now,
            boolean evictionRefused) {
        if (!policy.autoUpgrade()) {
            return Optional.empty();
        }
        Instant next = null;
        for (UpgradeNode node : nodes) {
            if (!node.ready()) {
                continue;
            }
            UpgradeState state =
                    plan.step(node.name()).map(UpgradePlan.NodeStep::to).orElse(node.state());
            String key;
            Duration timeout;
            switch (state) {
                case WAIT_FOR_JOBS_REQUIRED -> {
                    key = UpgradeKeys.WAIT_FOR_POD_COMPLETION_START;
                    timeout = policy.waitForCompletion().timeout();
                }
                case POD_DELETION_REQUIRED -> {
                    key = UpgradeKeys.POD_DELETION_START;
                    timeout = policy.podDeletion().timeout();
                }
                case DRAIN_REQUIRED -> {
                    key = UpgradeKeys.DRAIN_START;
                    timeout = policy.drain().timeout();
                }
                case VALIDATION_REQUIRED -> {
                    key = UpgradeKeys.VALIDATION_START;
                    timeout = policy.validationTimeout();
                }
                default -> {
                    continue;
                }
            }
            if (timeout.isZero()) {
                continue;
            }
            Instant start = epoch(node.annotation(key));
            Instant deadline = (start == null || state != node.state() ? now : start).plus(timeout);
            next = next == null || deadline.isBefore(next) ? deadline : next;
        }
        if (evictionRefused) {
            Instant retry = now.plus(BLOCKED_EVICTION_RETRY);
            next = next == null || retry.isBefore(next) ? retry : next;
        }
        if (next == null) {
            return Optional.empty();
        }
        Duration wait = Duration.between(now, next);
        return Optional.of(wait.isNegative() || wait.isZero() ? Duration.ofSeconds(1) : wait);
    }

    /**
     * On deletion of the policy: the state label off the nodes whose upgrade is done; a node
     * mid-way or failed keeps its label, annotations and cordon, so that what was left is visible.
     */
    synchronized void removeDoneLabels() {
        for (Node cached : caches.nodes().toList()) {
            Node node = current(cached);
            if (state(node) == UpgradeState.UPGRADE_DONE) {
                String path = "/metadata/labels/" + UpgradeKeys.STATE_LABEL.replace("/", "~1");
                patcher.patch(
                        node.getMetadata().getName(),
                        List.of(
                                op("test", path, UpgradeState.UPGRADE_DONE.label()),
                                Map.of("op", "remove", "path", path)));
                metrics.write("patch", "Node");
            }
        }
        recent.clear();
        lastGood = Map.of();
    }

    /** Whether the node has an upgrade in progress or failed: its pods' events matter. */
    static boolean upgrading(Node node) {
        UpgradeState s = state(node);
        return s.active() || s == UpgradeState.UPGRADE_FAILED;
    }

    private static UpgradeState state(Node node) {
        Map<String, String> labels = node.getMetadata().getLabels();
        return UpgradeState.fromLabel(labels == null ? null : labels.get(UpgradeKeys.STATE_LABEL));
    }

    /** The cached node, or the one our patch returned while the cache still holds the older one. */
    private Node current(Node cached) {
        String name = cached.getMetadata().getName();
        Recent r = recent.get(name);
        if (r != null) {
            if (r.patchedFromVersion() != null
                    && r.patchedFromVersion().equals(cached.getMetadata().getResourceVersion())) {
                return r.after();
            }
            recent.remove(name, r);
        }
        return cached;
    }

    private Optional<Pod> pod(String node, String namespace, String name) {
        return caches.podsOn(node).stream()
                .filter(
                        p ->
                                name.equals(p.getMetadata().getName())
                                        && namespace.equals(p.getMetadata().getNamespace()))
                .findFirst();
    }

    private static boolean seen(String ref, List<UpgradeNode> nodes) {
        return nodes.stream().anyMatch(n -> n.pods().stream().anyMatch(p -> p.ref().equals(ref)));
    }

    private static boolean isOperand(Pod p, Operand operand) {
        return operand.daemonSetName().equals(label(p, PodContract.APP_LABEL));
    }

    private static String label(Pod p, String key) {
        Map<String, String> labels = p.getMetadata().getLabels();
        return labels == null ? null : labels.get(key);
    }

    private static Instant epoch(String value) {
        if (value == null) {
            return null;
        }
        try {
            return Instant.ofEpochSecond(Long.parseLong(value.trim()));
        } catch (NumberFormatException e) {
            return null;
        }
    }
}
