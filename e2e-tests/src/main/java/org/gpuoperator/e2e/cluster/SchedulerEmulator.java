package org.gpuoperator.e2e.cluster;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.api.model.Toleration;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import org.gpuoperator.e2e.node.DeviceAdmission;
import org.gpuoperator.e2e.node.PodEvents;

/**
 * The scheduler's part for pods created without {@code spec.nodeName}: bound to the first node, in
 * name order, that runs pods (a simulated node with its kubelet: GPU or CPU), is not cordoned, has
 * no NoSchedule/NoExecute taint the pod does not tolerate, matches its {@code nodeSelector}, and
 * whose allocatable {@code nvidia.com/*}, cpu, memory and pods, less what the node's other
 * non-terminated pods request, fit the pod's requests. No affinities, no priorities, no preemption.
 *
 * <p>{@link #choose} is the pure decision; {@link #sync} runs it from the cluster's loop and binds
 * each pod once.
 */
final class SchedulerEmulator {

    /** Why no node fits, in the scheduler's words, or the chosen node. */
    sealed interface Decision {
        record Bind(String node) implements Decision {}

        record Unschedulable(String message) implements Decision {}
    }

    private final KubernetesClient client;
    private final Consumer<String> events;

    /**
     * pod uids already bound (the informer may show the pod unbound for a moment after the bind)
     */
    private final Set<String> bound = new HashSet<>();

    /** pod uid -> the Unschedulable message last written */
    private final Map<String, String> reported = new HashMap<>();

    SchedulerEmulator(KubernetesClient client, Consumer<String> events) {
        this.client = client;
        this.events = events;
        this.podEvents =
                new PodEvents(client, Clock.systemUTC(), m -> events.accept("scheduler: " + m));
    }

    /** The scheduler's Events on the pods it binds or cannot place, as kubectl describe shows. */
    private final PodEvents podEvents;

    /** Whether the scheduler has to place this pod: not bound, not being deleted, not finished. */
    static boolean pending(Pod p) {
        String node = p.getSpec().getNodeName();
        return (node == null || node.isEmpty())
                && p.getMetadata().getDeletionTimestamp() == null
                && !terminated(p);
    }

    static boolean terminated(Pod p) {
        String phase = p.getStatus() == null ? null : p.getStatus().getPhase();
        return "Succeeded".equals(phase) || "Failed".equals(phase);
    }

    /**
     * Where {@code pod} goes: the first simulated GPU node (by name) that is not being deleted,
     * matches the pod's nodeSelector, and has room for its device ask.
     *
     * @param pods every pod of the cluster (those bound to a node and not terminated use up its
     *     devices)
     */
    static Decision choose(Pod pod, List<Node> nodes, List<Pod> pods) {
        return choose(pod, nodes, pods, SchedulerEmulator::gpuNode, "are not simulated GPU nodes");
    }

    static boolean gpuNode(Node n) {
        Map<String, String> labels =
                n.getMetadata().getLabels() == null ? Map.of() : n.getMetadata().getLabels();
        return "true".equals(labels.get(SimulatedCluster.SIMULATED_LABEL));
    }

    /**
     * Where {@code pod} goes among the nodes that {@code runsPods}.
     *
     * @param others how the message says why the remaining nodes were not candidates
     */
    static Decision choose(
            Pod pod,
            List<Node> nodes,
            List<Pod> pods,
            java.util.function.Predicate<Node> runsPods,
            String others) {
        Map<String, Integer> ask = DeviceAdmission.deviceRequests(pod);
        Map<String, java.math.BigDecimal> computeAsk = computeRequests(pod);
        Map<String, String> selector =
                pod.getSpec().getNodeSelector() == null
                        ? Map.of()
                        : pod.getSpec().getNodeSelector();
        List<Node> sorted = new ArrayList<>(nodes);
        sorted.sort(Comparator.comparing(n -> n.getMetadata().getName()));
        int candidates = 0;
        int selectorMisses = 0;
        int cordoned = 0;
        Map<String, Integer> taints = new java.util.TreeMap<>();
        Map<String, Integer> insufficient = new java.util.TreeMap<>();
        for (Node n : sorted) {
            Map<String, String> labels =
                    n.getMetadata().getLabels() == null ? Map.of() : n.getMetadata().getLabels();
            if (!runsPods.test(n) || n.getMetadata().getDeletionTimestamp() != null) {
                continue;
            }
            candidates++;
            if (n.getSpec() != null && Boolean.TRUE.equals(n.getSpec().getUnschedulable())) {
                cordoned++;
                continue;
            }
            Taint untolerated = untolerated(pod, n);
            if (untolerated != null) {
                taints.merge(
                        "{"
                                + untolerated.getKey()
                                + (untolerated.getValue() == null
                                        ? ""
                                        : ": " + untolerated.getValue())
                                + "}",
                        1,
                        Integer::sum);
                continue;
            }
            if (!selector.entrySet().stream()
                    .allMatch(e -> e.getValue().equals(labels.get(e.getKey())))) {
                selectorMisses++;
                continue;
            }
            Map<String, Integer> free = free(n, pods, pod.getMetadata().getUid());
            Map<String, java.math.BigDecimal> freeCompute =
                    freeCompute(n, pods, pod.getMetadata().getUid());
            List<String> lacking = new ArrayList<>();
            computeAsk.forEach(
                    (r, q) -> {
                        if (freeCompute.containsKey(r) && freeCompute.get(r).compareTo(q) < 0) {
                            lacking.add(r);
                        }
                    });
            ask.entrySet().stream()
                    .filter(e -> free.getOrDefault(e.getKey(), 0) < e.getValue())
                    .map(Map.Entry::getKey)
                    .forEach(lacking::add);
            if (lacking.isEmpty()) {
                return new Decision.Bind(n.getMetadata().getName());
            }
            lacking.forEach(r -> insufficient.merge(r, 1, Integer::sum));
        }
        // the default scheduler's message shape: "0/N nodes are available: 1 Insufficient
        // nvidia.com/gpu, ..."
        List<String> reasons = new ArrayList<>();
        insufficient.forEach((r, count) -> reasons.add(count + " Insufficient " + r));
        if (selectorMisses > 0) {
            reasons.add(selectorMisses + " node(s) didn't match Pod's node affinity/selector");
        }
        taints.forEach((t, count) -> reasons.add(count + " node(s) had untolerated taint " + t));
        if (cordoned > 0) {
            reasons.add(cordoned + " node(s) were unschedulable");
        }
        int rest = nodes.size() - candidates;
        if (rest > 0) {
            reasons.add(rest + " node(s) " + others);
        }
        return new Decision.Unschedulable(
                "0/" + nodes.size() + " nodes are available: " + String.join(", ", reasons) + ".");
    }

    /** The first NoSchedule or NoExecute taint of the node that the pod does not tolerate. */
    static Taint untolerated(Pod pod, Node n) {
        if (n.getSpec() == null || n.getSpec().getTaints() == null) {
            return null;
        }
        List<Toleration> tolerations =
                pod.getSpec().getTolerations() == null ? List.of() : pod.getSpec().getTolerations();
        for (Taint t : n.getSpec().getTaints()) {
            if (!"NoSchedule".equals(t.getEffect()) && !"NoExecute".equals(t.getEffect())) {
                continue; // PreferNoSchedule only prefers
            }
            if (tolerations.stream().noneMatch(tol -> tolerates(tol, t))) {
                return t;
            }
        }
        return null;
    }

    /** Kubernetes' toleration match: key (empty with Exists: every key), operator, effect. */
    static boolean tolerates(Toleration tol, Taint t) {
        if (tol.getEffect() != null
                && !tol.getEffect().isEmpty()
                && !tol.getEffect().equals(t.getEffect())) {
            return false;
        }
        boolean exists = "Exists".equals(tol.getOperator());
        if (tol.getKey() == null || tol.getKey().isEmpty()) {
            return exists;
        }
        if (!tol.getKey().equals(t.getKey())) {
            return false;
        }
        return exists
                || java.util.Objects.equals(
                        tol.getValue() == null ? "" : tol.getValue(),
                        t.getValue() == null ? "" : t.getValue());
    }

    static final List<String> COMPUTE = List.of("cpu", "memory", "pods");

    /**
     * What the pod requests of cpu and memory (a container's limit where it has no request, as the
     * API server defaults it) and one of pods.
     */
    static Map<String, java.math.BigDecimal> computeRequests(Pod p) {
        Map<String, java.math.BigDecimal> out = new HashMap<>();
        out.put("pods", java.math.BigDecimal.ONE);
        for (var c : p.getSpec().getContainers()) {
            if (c.getResources() == null) {
                continue;
            }
            for (String r : List.of("cpu", "memory")) {
                Quantity q =
                        c.getResources().getRequests() != null
                                        && c.getResources().getRequests().get(r) != null
                                ? c.getResources().getRequests().get(r)
                                : c.getResources().getLimits() == null
                                        ? null
                                        : c.getResources().getLimits().get(r);
                if (q != null) {
                    out.merge(r, Quantity.getAmountInBytes(q), java.math.BigDecimal::add);
                }
            }
        }
        return out;
    }

    /** The node's allocatable cpu, memory and pods less what its other live pods request. */
    static Map<String, java.math.BigDecimal> freeCompute(Node n, List<Pod> pods, String except) {
        Map<String, java.math.BigDecimal> free = new HashMap<>();
        if (n.getStatus() != null && n.getStatus().getAllocatable() != null) {
            n.getStatus()
                    .getAllocatable()
                    .forEach(
                            (k, q) -> {
                                if (COMPUTE.contains(k)) {
                                    free.put(k, Quantity.getAmountInBytes(q));
                                }
                            });
        }
        for (Pod p : pods) {
            if (n.getMetadata().getName().equals(p.getSpec().getNodeName())
                    && !terminated(p)
                    && !p.getMetadata().getUid().equals(except)) {
                computeRequests(p)
                        .forEach(
                                (k, v) -> {
                                    if (free.containsKey(k)) {
                                        free.merge(k, v.negate(), java.math.BigDecimal::add);
                                    }
                                });
            }
        }
        return free;
    }

    /**
     * The node's allocatable {@code nvidia.com/*} less what its bound, non-terminated pods (but
     * {@code except}) ask.
     */
    static Map<String, Integer> free(Node n, List<Pod> pods, String except) {
        Map<String, Integer> free = new HashMap<>();
        Map<String, Quantity> allocatable =
                n.getStatus() == null || n.getStatus().getAllocatable() == null
                        ? Map.of()
                        : n.getStatus().getAllocatable();
        allocatable.forEach(
                (k, q) -> {
                    if (k.startsWith(DeviceAdmission.PREFIX)) {
                        free.put(k, Quantity.getAmountInBytes(q).intValue());
                    }
                });
        for (Pod p : pods) {
            if (n.getMetadata().getName().equals(p.getSpec().getNodeName())
                    && !terminated(p)
                    && !p.getMetadata().getUid().equals(except)) {
                DeviceAdmission.deviceRequests(p)
                        .forEach((k, v) -> free.merge(k, -v, Integer::sum));
            }
        }
        return free;
    }

    /**
     * One pass: every pending pod is bound, or marked Unschedulable with the reason (written when
     * it changes).
     */
    void sync(List<Node> nodes, List<Pod> pods) {
        sync(nodes, pods, SchedulerEmulator::gpuNode, "are not simulated GPU nodes");
    }

    /** As {@link #sync(List, List)}, placing pods on the nodes that {@code runsPods}. */
    void sync(
            List<Node> nodes,
            List<Pod> pods,
            java.util.function.Predicate<Node> runsPods,
            String others) {
        List<Pod> placed = new ArrayList<>(pods);
        for (Pod p : pods) {
            String uid = p.getMetadata().getUid();
            if (!pending(p) || bound.contains(uid)) {
                continue;
            }
            switch (choose(p, nodes, placed, runsPods, others)) {
                case Decision.Bind b -> {
                    if (bind(p, b.node())) {
                        bound.add(uid);
                        reported.remove(uid);
                        placed.remove(p);
                        Pod withNode =
                                new io.fabric8.kubernetes.api.model.PodBuilder(p)
                                        .editSpec()
                                        .withNodeName(b.node())
                                        .endSpec()
                                        .build();
                        placed.add(withNode); // the next pod of this pass sees the devices taken
                    }
                }
                case Decision.Unschedulable u -> {
                    if (!u.message().equals(reported.get(uid))) {
                        reported.put(uid, u.message());
                        markUnschedulable(p, u.message());
                    }
                }
            }
        }
        Set<String> present = new HashSet<>();
        pods.forEach(p -> present.add(p.getMetadata().getUid()));
        bound.retainAll(present);
        reported.keySet().retainAll(present);
    }

    /** The binding: spec.nodeName set once (the mock API server has no binding subresource). */
    private boolean bind(Pod p, String node) {
        try {
            client.pods()
                    .inNamespace(p.getMetadata().getNamespace())
                    .withName(p.getMetadata().getName())
                    .edit(
                            current -> {
                                if (current.getSpec().getNodeName() == null
                                        || current.getSpec().getNodeName().isEmpty()) {
                                    current.getSpec().setNodeName(node);
                                }
                                return current;
                            });
            podEvents.record(
                    p,
                    "Normal",
                    "Scheduled",
                    PodEvents.scheduled(
                            p.getMetadata().getNamespace(), p.getMetadata().getName(), node),
                    SCHEDULER,
                    null);
            events.accept(
                    "scheduler: bound pod "
                            + p.getMetadata().getNamespace()
                            + "/"
                            + p.getMetadata().getName()
                            + " to "
                            + node);
            return true;
        } catch (KubernetesClientException e) {
            events.accept(
                    "scheduler: could not bind "
                            + p.getMetadata().getName()
                            + ": "
                            + e.getMessage());
            return false;
        }
    }

    /** The scheduler's name in Events (kube-scheduler's default profile). */
    static final String SCHEDULER = "default-scheduler";

    private void markUnschedulable(Pod p, String message) {
        podEvents.record(p, "Warning", "FailedScheduling", message, SCHEDULER, null);
        events.accept(
                "scheduler: pod "
                        + p.getMetadata().getNamespace()
                        + "/"
                        + p.getMetadata().getName()
                        + " is unschedulable: "
                        + message);
        try {
            client.pods()
                    .inNamespace(p.getMetadata().getNamespace())
                    .withName(p.getMetadata().getName())
                    .editStatus(
                            current -> {
                                var status =
                                        current.getStatus() == null
                                                ? new io.fabric8.kubernetes.api.model.PodStatus()
                                                : current.getStatus();
                                status.setPhase("Pending");
                                status.setConditions(
                                        List.of(
                                                new PodConditionBuilder()
                                                        .withType("PodScheduled")
                                                        .withStatus("False")
                                                        .withReason("Unschedulable")
                                                        .withMessage(message)
                                                        .withLastTransitionTime(
                                                                Instant.now()
                                                                        .truncatedTo(
                                                                                ChronoUnit.SECONDS)
                                                                        .toString())
                                                        .build()));
                                current.setStatus(status);
                                return current;
                            });
        } catch (KubernetesClientException e) {
            // the pod went away: nothing to report
        }
    }
}
