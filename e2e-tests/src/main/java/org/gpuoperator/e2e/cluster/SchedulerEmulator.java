package org.gpuoperator.e2e.cluster;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
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

/**
 * The scheduler's part for workload pods: a pod created without {@code spec.nodeName} is bound to a
 * simulated GPU node whose labels match its {@code nodeSelector} and whose allocatable {@code
 * nvidia.com/*} resources, less what the node's other non-terminated pods ask for, fit the pod's
 * ask. Nodes are tried in name order; no taints, affinities or CPU/memory accounting (the simulated
 * nodes have no such limits that matter here).
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
    }

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
        Map<String, Integer> ask = DeviceAdmission.deviceRequests(pod);
        Map<String, String> selector =
                pod.getSpec().getNodeSelector() == null
                        ? Map.of()
                        : pod.getSpec().getNodeSelector();
        List<Node> sorted = new ArrayList<>(nodes);
        sorted.sort(Comparator.comparing(n -> n.getMetadata().getName()));
        int gpuNodes = 0;
        int selectorMisses = 0;
        Map<String, Integer> insufficient = new java.util.TreeMap<>();
        for (Node n : sorted) {
            Map<String, String> labels =
                    n.getMetadata().getLabels() == null ? Map.of() : n.getMetadata().getLabels();
            if (!"true".equals(labels.get(SimulatedCluster.SIMULATED_LABEL))
                    || n.getMetadata().getDeletionTimestamp() != null) {
                continue;
            }
            gpuNodes++;
            if (!selector.entrySet().stream()
                    .allMatch(e -> e.getValue().equals(labels.get(e.getKey())))) {
                selectorMisses++;
                continue;
            }
            Map<String, Integer> free = free(n, pods, pod.getMetadata().getUid());
            List<String> lacking =
                    ask.entrySet().stream()
                            .filter(e -> free.getOrDefault(e.getKey(), 0) < e.getValue())
                            .map(Map.Entry::getKey)
                            .toList();
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
        int others = nodes.size() - gpuNodes;
        if (others > 0) {
            reasons.add(others + " node(s) are not simulated GPU nodes");
        }
        return new Decision.Unschedulable(
                "0/" + nodes.size() + " nodes are available: " + String.join(", ", reasons) + ".");
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
        List<Pod> placed = new ArrayList<>(pods);
        for (Pod p : pods) {
            String uid = p.getMetadata().getUid();
            if (!pending(p) || bound.contains(uid)) {
                continue;
            }
            switch (choose(p, nodes, placed)) {
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

    private void markUnschedulable(Pod p, String message) {
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
