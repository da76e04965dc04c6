package org.gpuoperator.controller.reconcile;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;
import org.gpuoperator.controller.events.EventReasons;
import org.gpuoperator.controller.events.EventRecorder;
import org.gpuoperator.controller.events.EventType;
import org.gpuoperator.controller.events.InvolvedObject;
import org.gpuoperator.controller.events.NodeEvents;
import org.gpuoperator.controller.metrics.OperatorMetrics;
import org.gpuoperator.controller.nodes.NodeGate;
import org.gpuoperator.controller.nodes.NodePlan;
import org.gpuoperator.controller.nodes.NodeView;
import org.gpuoperator.controller.nodes.OperandPods;
import org.gpuoperator.controller.nodes.PluginConfigReport;
import org.gpuoperator.controller.nodes.StackReadiness;
import org.gpuoperator.controller.nodes.ValidationReport;
import org.gpuoperator.controller.nvidiadriver.DriverHandover;
import org.gpuoperator.controller.nvidiadriver.DriverPools;
import org.gpuoperator.controller.nvidiadriver.DriverRouting;
import org.gpuoperator.controller.operand.Operand;
import org.gpuoperator.controller.status.ClusterRollup;
import org.gpuoperator.controller.status.NodeSummary;

/**
 * Moves nodes through their gates. A pass re-plans only the nodes whose labels or operand pods
 * changed since the last pass ({@link NodeChanges}), so a node event costs one plan however large
 * the cluster, and the status figures are kept as a running sum ({@link ClusterRollup}). Every node
 * is re-planned when what the plan depends on changes (enabled operands, simulation label, pod
 * template hashes, the active policy), and once in a while as a safety net.
 */
final class NodeRollout {

    /**
     * What every node's plan depends on besides the node itself: when it changes, all nodes are
     * re-planned.
     */
    record Inputs(
            String policyUid,
            Set<Operand> enabled,
            String simulationLabel,
            Map<Operand, String> templateHashes,
            String migStrategy,
            boolean gpuNotReadyTaint,
            DriverRouting driverRouting,
            boolean pluginConfigs,
            DriverHandover.AutoUpgrade autoUpgrade) {

        Inputs(
                String policyUid,
                Set<Operand> enabled,
                String simulationLabel,
                Map<Operand, String> templateHashes,
                String migStrategy,
                boolean gpuNotReadyTaint,
                DriverRouting driverRouting,
                boolean pluginConfigs) {
            this(
                    policyUid,
                    enabled,
                    simulationLabel,
                    templateHashes,
                    migStrategy,
                    gpuNotReadyTaint,
                    driverRouting,
                    pluginConfigs,
                    DriverHandover.AutoUpgrade.OFF);
        }

        /**
         * Without named device-plugin configs ({@code pluginConfigs}: the policy names {@code
         * devicePlugin.config}) the plugin's config annotations are left over from an earlier
         * policy and are not read into the status.
         */
        Inputs(
                String policyUid,
                Set<Operand> enabled,
                String simulationLabel,
                Map<Operand, String> templateHashes,
                String migStrategy,
                boolean gpuNotReadyTaint,
                DriverRouting driverRouting) {
            this(
                    policyUid,
                    enabled,
                    simulationLabel,
                    templateHashes,
                    migStrategy,
                    gpuNotReadyTaint,
                    driverRouting,
                    false);
        }

        Inputs(
                String policyUid,
                Set<Operand> enabled,
                String simulationLabel,
                Map<Operand, String> templateHashes,
                String migStrategy,
                boolean gpuNotReadyTaint) {
            this(
                    policyUid,
                    enabled,
                    simulationLabel,
                    templateHashes,
                    migStrategy,
                    gpuNotReadyTaint,
                    null);
        }

        Inputs(
                String policyUid,
                Set<Operand> enabled,
                String simulationLabel,
                Map<Operand, String> templateHashes,
                String migStrategy) {
            this(policyUid, enabled, simulationLabel, templateHashes, migStrategy, false);
        }
    }

    /**
     * Writes the GPUStackReady condition (nodes/status) and the not-ready taint (node spec), each
     * as one JSON patch.
     */
    interface StackWriter {
        void patchStatus(String node, List<Map<String, Object>> ops);

        void patchSpec(String node, List<Map<String, Object>> ops);

        static StackWriter of(KubernetesClient client) {
            return new StackWriter() {
                @Override
                public void patchStatus(String node, List<Map<String, Object>> ops) {
                    client.nodes()
                            .withName(node)
                            .subresource("status")
                            .patch(PatchContext.of(PatchType.JSON), Serialization.asJson(ops));
                }

                @Override
                public void patchSpec(String node, List<Map<String, Object>> ops) {
                    client.nodes()
                            .withName(node)
                            .patch(PatchContext.of(PatchType.JSON), Serialization.asJson(ops));
                }
            };
        }
    }

    /** The informer caches the rollout reads. */
    interface Caches {
        Stream<Node> nodes();

        Optional<Node> node(String name);

        List<Pod> operandPodsOn(String node);

        Stream<Pod> operandPods();
    }

    /** Sends one JSON patch (RFC 6902) to a node; returns the node's labels after it. */
    interface LabelPatcher {
        Map<String, String> patch(String node, List<Map<String, Object>> ops);

        static LabelPatcher of(KubernetesClient client) {
            return (node, ops) -> {
                Node patched =
                        client.nodes()
                                .withName(node)
                                .patch(PatchContext.of(PatchType.JSON), Serialization.asJson(ops));
                return patched.getMetadata().getLabels() == null
                        ? Map.of()
                        : patched.getMetadata().getLabels();
            };
        }
    }

    static final Duration FULL_PASS_INTERVAL = Duration.ofMinutes(10);

    private final LabelPatcher patcher;
    private final StackWriter stackWriter;
    private final Caches caches;
    private final OperatorMetrics metrics;
    private final Clock clock;
    private final NodeChanges changes = new NodeChanges();

    /** Nodes a failed pass did not finish: the retry plans them whatever changed. */
    private final Set<String> unfinished = new HashSet<>();

    private final Map<String, RecentLabels> recentLabels = new ConcurrentHashMap<>();

    private Inputs lastInputs;
    private Instant lastFullPass = Instant.MIN;
    private ClusterRollup rollup = new ClusterRollup();

    /** What this controller last wrote per node, until the informer cache shows it. */
    private final Map<String, WrittenCondition> writtenConditions = new ConcurrentHashMap<>();

    private final Map<String, Boolean> writtenTaint = new ConcurrentHashMap<>();

    private final EventRecorder events;

    /** Per node, the gate failure last recorded as an Event: only a new one is recorded again. */
    private final Map<String, String> failures = new ConcurrentHashMap<>();

    /** The policy of the pass under way (the Events about failing nodes go to it too), or null. */
    private InvolvedObject policy;

    /** Without condition and taint writes (tests of the label gate alone). */
    NodeRollout(LabelPatcher patcher, Caches caches, OperatorMetrics metrics, Clock clock) {
        this(patcher, null, caches, metrics, clock);
    }

    NodeRollout(
            LabelPatcher patcher,
            StackWriter stackWriter,
            Caches caches,
            OperatorMetrics metrics,
            Clock clock) {
        this(patcher, stackWriter, caches, metrics, clock, EventRecorder.NONE);
    }

    NodeRollout(
            LabelPatcher patcher,
            StackWriter stackWriter,
            Caches caches,
            OperatorMetrics metrics,
            Clock clock,
            EventRecorder events) {
        this.events = events;
        this.patcher = patcher;
        this.stackWriter = stackWriter;
        this.caches = caches;
        this.metrics = metrics;
        this.clock = clock;
    }

    /**
     * One pass: plans the changed nodes (or all), patches their labels, returns the summed status
     * figures.
     */
    synchronized ClusterRollup pass(Inputs inputs) {
        return pass(inputs, null);
    }

    /**
     * As above; Events about nodes that fail a gate also go to {@code policy} (null: to the nodes
     * only).
     */
    synchronized ClusterRollup pass(Inputs inputs, InvolvedObject policy) {
        this.policy = policy;
        Instant now = clock.instant();
        boolean full =
                !inputs.equals(lastInputs) || now.isAfter(lastFullPass.plus(FULL_PASS_INTERVAL));
        // look first: a change arriving while we plan shows up in the next pass
        Set<String> changed = changes.since(caches.nodes(), caches.operandPods());
        List<String> names;
        if (full) {
            rollup = new ClusterRollup();
            names = caches.nodes().map(n -> n.getMetadata().getName()).toList();
            lastInputs = inputs;
            lastFullPass = now;
        } else {
            Set<String> planned = new HashSet<>(changed);
            planned.addAll(unfinished);
            names = new ArrayList<>(planned);
        }
        unfinished.clear();
        int done = 0;
        try {
            for (String name : names) {
                Optional<Node> node = caches.node(name);
                if (node.isEmpty()) {
                    rollup.remove(name);
                    recentLabels.remove(name);
                    writtenConditions.remove(name);
                    writtenTaint.remove(name);
                    failures.remove(name);
                } else {
                    rollup.put(plan(node.get(), inputs));
                }
                done++;
            }
        } catch (RuntimeException e) {
            // the retry must see the nodes this pass did not finish
            if (full) {
                lastInputs = null;
            } else {
                unfinished.addAll(names.subList(done, names.size()));
            }
            throw e;
        } finally {
            metrics.gateEvaluated(done);
        }
        return rollup;
    }

    private NodeSummary plan(Node node, Inputs inputs) {
        String name = node.getMetadata().getName();
        Map<String, String> cached = labelsOf(node);
        Map<String, String> labels = cached == null ? Map.of() : cached;
        List<Pod> operandPods = caches.operandPodsOn(name);
        Map<Operand, OperandPods.PodState> pods = OperandPods.onNode(operandPods);
        NodePlan plan =
                NodeGate.plan(
                        new NodeView(name, labels, OperandPods.ready(pods)),
                        inputs.enabled(),
                        inputs.simulationLabel());
        Map<String, String> changes =
                withPoolLabel(
                        node,
                        labels,
                        plan,
                        inputs,
                        holdsDriverLabels(node, labels, plan, operandPods, inputs));
        if (!changes.isEmpty()) {
            patchLabels(node, changes);
            NodeEvents.gatesPassed(changes)
                    .forEach(
                            m ->
                                    events.record(
                                            InvolvedObject.of(node),
                                            EventType.NORMAL,
                                            EventReasons.GATE_PASSED,
                                            m));
        }
        ValidationReport report = ValidationReport.of(node.getMetadata().getAnnotations());
        if (stackWriter != null) {
            writeStackReadiness(node, plan, pods, report, inputs.gpuNotReadyTaint());
        }
        NodeSummary summary =
                NodeSummary.of(
                        name,
                        apply(labels, changes),
                        plan,
                        pods,
                        inputs.enabled(),
                        templateHashes(node, inputs),
                        NodeSummary.advertised(node),
                        inputs.migStrategy(),
                        report,
                        inputs.pluginConfigs()
                                ? PluginConfigReport.of(node.getMetadata().getAnnotations())
                                : PluginConfigReport.NONE);
        recordGateFailure(node, summary, pods, report);
        return summary;
    }

    /** A Warning when the node starts failing its gate, or fails it for another reason. */
    private void recordGateFailure(
            Node node,
            NodeSummary summary,
            Map<Operand, OperandPods.PodState> pods,
            ValidationReport report) {
        String name = node.getMetadata().getName();
        Optional<String> failure = NodeEvents.gateFailure(summary, pods, report);
        String before =
                failure.isEmpty() ? failures.remove(name) : failures.put(name, failure.get());
        if (failure.isEmpty() || failure.get().equals(before)) {
            return;
        }
        events.record(
                InvolvedObject.of(node),
                EventType.WARNING,
                EventReasons.GATE_FAILED,
                failure.get());
        if (policy != null) {
            events.record(
                    policy,
                    EventType.WARNING,
                    EventReasons.GATE_FAILED,
                    "node " + name + " " + failure.get());
        }
    }

    /**
     * The gate's label changes plus the node's pool label ({@link DriverPools#POOL_LABEL}) and
     * owner label ({@link DriverPools#OWNER_LABEL}): in NVIDIADriver mode a GPU node's pool and
     * NVIDIADriver, else none; each only when it differs, folded into the one patch per node.
     */
    private static Map<String, String> withPoolLabel(
            Node node, Map<String, String> labels, NodePlan plan, Inputs inputs, boolean hold) {
        if (hold) {
            return plan.labelChanges();
        }
        DriverRouting routing = inputs.driverRouting();
        boolean routed = routing != null && plan.gpuNode();
        Map<String, String> desired = new LinkedHashMap<>();
        desired.put(DriverPools.POOL_LABEL, routed ? routing.poolOf(node).orElse(null) : null);
        desired.put(DriverPools.OWNER_LABEL, routed ? routing.ownerOf(node).orElse(null) : null);
        Map<String, String> changes = new LinkedHashMap<>(plan.labelChanges());
        desired.forEach(
                (key, value) -> {
                    if (!Objects.equals(value, labels.get(key))) {
                        changes.put(key, value);
                    }
                });
        return changes;
    }

    /**
     * Whether the node keeps its pool and owner labels for now: a driver pod of another driver
     * DaemonSet (or one a deleted DaemonSet left) still runs there, and the driver upgrade has not
     * yet emptied the node of GPU pods ({@link DriverHandover}).
     */
    private static boolean holdsDriverLabels(
            Node node,
            Map<String, String> labels,
            NodePlan plan,
            List<Pod> operandPods,
            Inputs inputs) {
        return DriverHandover.holdsLabels(
                node,
                apply(labels, plan.labelChanges()),
                inputs.enabled().contains(Operand.DRIVER) && plan.gpuNode(),
                operandPods,
                inputs.driverRouting(),
                inputs.autoUpgrade());
    }

    /** In NVIDIADriver mode the driver's template hash is the node's pool DaemonSet's. */
    private static Map<Operand, String> templateHashes(Node node, Inputs inputs) {
        if (inputs.driverRouting() == null) {
            return inputs.templateHashes();
        }
        Map<Operand, String> hashes = new EnumMap<>(Operand.class);
        hashes.putAll(inputs.templateHashes());
        String pool = inputs.driverRouting().templateHashOf(node);
        if (pool == null) {
            hashes.remove(Operand.DRIVER);
        } else {
            hashes.put(Operand.DRIVER, pool);
        }
        return hashes;
    }

    /**
     * GPUStackReady on a GPU node that is not opted out, and the opt-in taint; each written only
     * when it differs from what the node (or our last write) carries.
     */
    private void writeStackReadiness(
            Node node,
            NodePlan plan,
            Map<Operand, OperandPods.PodState> pods,
            ValidationReport report,
            boolean optIn) {
        String name = node.getMetadata().getName();
        boolean managed = plan.gpuNode() && !plan.optedOut();
        OperandPods.PodState validator = pods.get(Operand.VALIDATOR);
        boolean ready = validator != null && validator.ready();
        if (managed) {
            StackReadiness.Condition desired =
                    StackReadiness.condition(ready, plan.stuckAt(), report);
            writeCondition(node, desired);
        }
        setTaint(node, optIn, managed, ready);
        if (!managed) {
            writtenConditions.remove(name);
        }
    }

    private void writeCondition(Node node, StackReadiness.Condition desired) {
        String name = node.getMetadata().getName();
        String version = node.getMetadata().getResourceVersion();
        WrittenCondition written = writtenConditions.get(name);
        if (written != null
                && written.condition().equals(desired)
                && written.fromVersion() != null
                && written.fromVersion().equals(version)) {
            return; // ours, and the cache does not show it yet
        }
        List<NodeCondition> conditions =
                node.getStatus() == null || node.getStatus().getConditions() == null
                        ? List.of()
                        : node.getStatus().getConditions();
        int index = -1;
        for (int i = 0; i < conditions.size(); i++) {
            if (StackReadiness.CONDITION.equals(conditions.get(i).getType())) {
                index = i;
            }
        }
        NodeCondition current = index < 0 ? null : conditions.get(index);
        if (current != null
                && !StackReadiness.needsWrite(
                        desired, current.getStatus(), current.getReason(), current.getMessage())) {
            writtenConditions.put(name, new WrittenCondition(desired, version));
            return;
        }
        String now = clock.instant().truncatedTo(ChronoUnit.SECONDS).toString();
        String transition =
                current != null
                                && desired.status().equals(current.getStatus())
                                && current.getLastTransitionTime() != null
                        ? current.getLastTransitionTime()
                        : now;
        Map<String, Object> value = new LinkedHashMap<>();
        value.put("type", StackReadiness.CONDITION);
        value.put("status", desired.status());
        value.put("reason", desired.reason());
        value.put("message", desired.message());
        value.put("lastHeartbeatTime", now);
        value.put("lastTransitionTime", transition);
        List<Map<String, Object>> ops = new ArrayList<>();
        if (node.getStatus() == null || node.getStatus().getConditions() == null) {
            ops.add(Map.of("op", "add", "path", "/status/conditions", "value", List.of(value)));
        } else if (index < 0) {
            ops.add(Map.of("op", "add", "path", "/status/conditions/-", "value", value));
        } else {
            String path = "/status/conditions/" + index;
            ops.add(
                    Map.of(
                            "op",
                            "test",
                            "path",
                            path + "/type",
                            "value",
                            StackReadiness.CONDITION));
            ops.add(Map.of("op", "replace", "path", path, "value", value));
        }
        stackWriter.patchStatus(name, ops);
        metrics.write("patch", "Node/status");
        writtenConditions.put(name, new WrittenCondition(desired, version));
    }

    /**
     * The condition this controller last wrote or found, and the node version it was computed on: a
     * pass on that same version (our patch not in the cache yet) writes nothing again; a newer
     * version is compared with what the node carries, so a write that another writer's update lost
     * is made again.
     */
    private record WrittenCondition(StackReadiness.Condition condition, String fromVersion) {}

    /** Our taint on or off; every other taint kept, the patch guarded by a test of the list. */
    private void setTaint(Node node, boolean optIn, boolean gpuNode, boolean ready) {
        String name = node.getMetadata().getName();
        boolean want = optIn && gpuNode && !ready;
        if (Boolean.valueOf(want).equals(writtenTaint.get(name))) {
            return;
        }
        List<Taint> current =
                node.getSpec() == null || node.getSpec().getTaints() == null
                        ? List.of()
                        : node.getSpec().getTaints();
        List<Taint> next =
                StackReadiness.taints(
                        current,
                        t -> StackReadiness.ours(t.getKey(), t.getEffect()),
                        new Taint(
                                StackReadiness.TAINT_EFFECT, StackReadiness.TAINT_KEY, null, null),
                        optIn,
                        gpuNode,
                        ready);
        if (next != null) {
            List<Map<String, Object>> ops = new ArrayList<>();
            if (node.getSpec() == null || node.getSpec().getTaints() == null) {
                ops.add(Map.of("op", "add", "path", "/spec/taints", "value", next));
            } else {
                ops.add(Map.of("op", "test", "path", "/spec/taints", "value", current));
                ops.add(Map.of("op", "replace", "path", "/spec/taints", "value", next));
            }
            stackWriter.patchSpec(name, ops);
            metrics.write("patch", "Node");
        }
        writtenTaint.put(name, want);
    }

    /**
     * On deletion of the policy: our labels off every node, everyone else's kept; the next policy
     * starts afresh.
     */
    synchronized void removeOurLabels() {
        for (Node node : caches.nodes().toList()) {
            Map<String, String> labels = labelsOf(node);
            Map<String, String> changes =
                    labels == null
                            ? new LinkedHashMap<>()
                            : new LinkedHashMap<>(NodeGate.cleanup(labels));
            for (String key : List.of(DriverPools.POOL_LABEL, DriverPools.OWNER_LABEL)) {
                if (labels != null && labels.containsKey(key)) {
                    changes.put(key, null);
                }
            }
            if (!changes.isEmpty()) {
                patchLabels(node, changes);
            }
            if (stackWriter != null) {
                writtenTaint.remove(node.getMetadata().getName());
                setTaint(node, false, false, false);
            }
        }
        writtenConditions.clear();
        writtenTaint.clear();
        failures.clear();
        lastInputs = null;
        rollup = new ClusterRollup();
    }

    /**
     * One JSON patch per node carrying all its label changes; null removes a label. JSON patch
     * rather than a merge patch: removal is explicit, and the patch fails instead of guessing if
     * the labels changed under us.
     */
    private void patchLabels(Node node, Map<String, String> changes) {
        Map<String, String> current = labelsOf(node);
        List<Map<String, Object>> ops = new ArrayList<>();
        if (current == null) {
            ops.add(Map.of("op", "add", "path", "/metadata/labels", "value", Map.of()));
        }
        changes.forEach(
                (key, value) -> {
                    String path = "/metadata/labels/" + key.replace("~", "~0").replace("/", "~1");
                    boolean exists = current != null && current.containsKey(key);
                    if (value == null) {
                        ops.add(Map.of("op", "test", "path", path, "value", current.get(key)));
                        ops.add(Map.of("op", "remove", "path", path));
                    } else {
                        ops.add(
                                Map.of(
                                        "op",
                                        exists ? "replace" : "add",
                                        "path",
                                        path,
                                        "value",
                                        value));
                    }
                });
        Map<String, String> after = patcher.patch(node.getMetadata().getName(), ops);
        metrics.write("patch", "Node");
        recentLabels.put(
                node.getMetadata().getName(),
                new RecentLabels(node.getMetadata().getResourceVersion(), after));
    }

    /**
     * Labels we just wrote, until the informer cache catches up: a pass that runs before our own
     * patch event arrives must not compute (and send) the same patch again.
     */
    private record RecentLabels(String patchedFromVersion, Map<String, String> labels) {}

    /** The node's labels: the cache's, or ours if the cache still holds the version we patched. */
    private Map<String, String> labelsOf(Node cached) {
        String name = cached.getMetadata().getName();
        RecentLabels recent = recentLabels.get(name);
        if (recent != null) {
            if (recent.patchedFromVersion() != null
                    && recent.patchedFromVersion()
                            .equals(cached.getMetadata().getResourceVersion())) {
                return recent.labels();
            }
            recentLabels.remove(name, recent);
        }
        return cached.getMetadata().getLabels();
    }

    private static Map<String, String> apply(
            Map<String, String> labels, Map<String, String> changes) {
        if (changes.isEmpty()) {
            return labels;
        }
        Map<String, String> result = new HashMap<>(labels);
        changes.forEach(
                (k, v) -> {
                    if (v == null) {
                        result.remove(k);
                    } else {
                        result.put(k, v);
                    }
                });
        return result;
    }
}
