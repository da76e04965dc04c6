package org.gpuoperator.e2e.cluster;

import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorRequirement;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetStatus;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetStatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Consumer;

/**
 * Plays the kube-controller-manager's ReplicaSet controller: {@code spec.replicas} active pods
 * named {@code <replicaset>-<5 random chars>} from the template, each controlled by the ReplicaSet
 * (owner reference, controller=true); orphan pods that match the selector are adopted; surplus pods
 * are deleted in the controller's order (unbound, pending, not ready, more restarts, newest first);
 * the status counts the pods. Pods are bound by the scheduler.
 *
 * <p>{@link #plan} is the pure decision; {@link #sync} runs it from the cluster's loop.
 */
final class ReplicaSetEmulator {

    /** What one pass does to one ReplicaSet. */
    record Plan(int create, List<Pod> adopt, List<Pod> delete, ReplicaSetStatus status) {}

    /** How long a created pod counts as there without being seen (a lost watch event). */
    static final long EXPECTATION_MS = 10_000;

    private final KubernetesClient client;
    private final Consumer<String> events;

    /** ReplicaSet uid -> names of pods created and not seen yet -> when created */
    private final Map<String, Map<String, Long>> creating = new HashMap<>();

    /** uids of pods deleted, hidden from the next passes until the informer drops them */
    private final java.util.Set<String> deleting = new java.util.HashSet<>();

    ReplicaSetEmulator(KubernetesClient client, Consumer<String> events) {
        this.client = client;
        this.events = events;
    }

    /** Pods the controller counts: not being deleted and not finished. */
    static boolean active(Pod p) {
        return p.getMetadata().getDeletionTimestamp() == null && !SchedulerEmulator.terminated(p);
    }

    /** The UID of the pod's controlling owner, or null. */
    static String controllerUid(io.fabric8.kubernetes.api.model.HasMetadata o) {
        List<OwnerReference> refs = o.getMetadata().getOwnerReferences();
        if (refs == null) {
            return null;
        }
        return refs.stream()
                .filter(r -> Boolean.TRUE.equals(r.getController()))
                .map(OwnerReference::getUid)
                .findFirst()
                .orElse(null);
    }

    /** Whether {@code labels} satisfy a label selector (matchLabels and matchExpressions). */
    static boolean selects(LabelSelector selector, Map<String, String> labels) {
        if (selector == null) {
            return false; // a nil selector selects nothing
        }
        Map<String, String> l = labels == null ? Map.of() : labels;
        if (selector.getMatchLabels() != null
                && !selector.getMatchLabels().entrySet().stream()
                        .allMatch(e -> e.getValue().equals(l.get(e.getKey())))) {
            return false;
        }
        if (selector.getMatchExpressions() != null) {
            for (LabelSelectorRequirement r : selector.getMatchExpressions()) {
                List<String> values = r.getValues() == null ? List.of() : r.getValues();
                boolean ok =
                        switch (r.getOperator()) {
                            case "In" -> values.contains(l.get(r.getKey()));
                            case "NotIn" -> !values.contains(l.get(r.getKey()));
                            case "Exists" -> l.containsKey(r.getKey());
                            case "DoesNotExist" -> !l.containsKey(r.getKey());
                            default ->
                                    throw new IllegalArgumentException(
                                            "selector operator " + r.getOperator() + " unknown");
                        };
                if (!ok) {
                    return false;
                }
            }
        }
        return true;
    }

    static int replicas(ReplicaSet rs) {
        Integer r = rs.getSpec().getReplicas();
        return r == null ? 1 : r;
    }

    /**
     * One ReplicaSet's pass: how many pods to create, which orphans to adopt, which pods to delete,
     * and the status that the pods (before these changes) give.
     *
     * @param pods the pods of the ReplicaSet's namespace
     * @param creating pods this controller created that {@code pods} does not show yet (the
     *     controller's expectations: they count as there, so that a slow watch makes no duplicates)
     */
    static Plan plan(ReplicaSet rs, List<Pod> pods, int creating) {
        String uid = rs.getMetadata().getUid();
        List<Pod> owned = new ArrayList<>();
        List<Pod> adopt = new ArrayList<>();
        for (Pod p : pods) {
            if (!active(p)) {
                continue;
            }
            String controller = controllerUid(p);
            if (uid.equals(controller)) {
                owned.add(p);
            } else if (controller == null
                    && rs.getMetadata().getDeletionTimestamp() == null
                    && selects(rs.getSpec().getSelector(), p.getMetadata().getLabels())) {
                adopt.add(p);
            }
        }
        List<Pod> mine = new ArrayList<>(owned);
        mine.addAll(adopt);
        int diff = mine.size() + creating - replicas(rs);
        List<Pod> delete =
                diff > 0
                        ? mine.stream()
                                .sorted(DELETION_ORDER)
                                .limit(Math.min(diff, mine.size()))
                                .toList()
                        : List.of();
        int ready = (int) mine.stream().filter(Pods::isReady).count();
        ReplicaSetStatus status =
                new ReplicaSetStatusBuilder()
                        .withReplicas(mine.size())
                        .withFullyLabeledReplicas(mine.size())
                        .withReadyReplicas(ready)
                        .withAvailableReplicas(ready)
                        .withObservedGeneration(rs.getMetadata().getGeneration())
                        .build();
        return new Plan(Math.max(0, -diff), adopt, delete, status);
    }

    /**
     * The ReplicaSet controller's order of pods to delete first: not bound to a node, Pending
     * before Running, not ready before ready, more restarts, newer.
     */
    static final Comparator<Pod> DELETION_ORDER =
            Comparator.<Pod>comparingInt(p -> p.getSpec().getNodeName() == null ? 0 : 1)
                    .thenComparingInt(ReplicaSetEmulator::phaseRank)
                    .thenComparingInt(p -> Pods.isReady(p) ? 1 : 0)
                    .thenComparing(Comparator.comparingInt(ReplicaSetEmulator::restarts).reversed())
                    .thenComparing(
                            p -> Objects.toString(p.getMetadata().getCreationTimestamp(), ""),
                            Comparator.reverseOrder());

    private static int phaseRank(Pod p) {
        String phase = p.getStatus() == null ? null : p.getStatus().getPhase();
        return "Running".equals(phase) ? 2 : "Pending".equals(phase) || phase == null ? 0 : 1;
    }

    private static int restarts(Pod p) {
        if (p.getStatus() == null || p.getStatus().getContainerStatuses() == null) {
            return 0;
        }
        return p.getStatus().getContainerStatuses().stream()
                .mapToInt(c -> c.getRestartCount() == null ? 0 : c.getRestartCount())
                .sum();
    }

    /** The pod a ReplicaSet creates: its template, its owner reference, no node yet. */
    static Pod newPod(ReplicaSet rs, String suffix) {
        var template = rs.getSpec().getTemplate();
        Map<String, String> labels = new LinkedHashMap<>();
        Map<String, String> annotations = null;
        if (template.getMetadata() != null) {
            if (template.getMetadata().getLabels() != null) {
                labels.putAll(template.getMetadata().getLabels());
            }
            annotations = template.getMetadata().getAnnotations();
        }
        return new PodBuilder()
                .withNewMetadata()
                .withName(rs.getMetadata().getName() + "-" + suffix)
                .withNamespace(rs.getMetadata().getNamespace())
                .withLabels(labels)
                .withAnnotations(annotations)
                .withOwnerReferences(controllerRef("ReplicaSet", rs))
                .endMetadata()
                .withSpec(template.getSpec())
                .withStatus(new PodStatusBuilder().withPhase("Pending").build())
                .build();
    }

    static OwnerReference controllerRef(
            String kind, io.fabric8.kubernetes.api.model.HasMetadata o) {
        return new OwnerReferenceBuilder()
                .withApiVersion("apps/v1")
                .withKind(kind)
                .withName(o.getMetadata().getName())
                .withUid(o.getMetadata().getUid())
                .withController(true)
                .withBlockOwnerDeletion(true)
                .build();
    }

    /** One pass over every ReplicaSet of the cluster. */
    void sync(List<ReplicaSet> replicaSets, List<Pod> pods) {
        Map<String, List<Pod>> byNamespace = new HashMap<>();
        java.util.Set<String> names = new java.util.HashSet<>();
        java.util.Set<String> uids = new java.util.HashSet<>();
        for (Pod p : pods) {
            names.add(p.getMetadata().getNamespace() + "/" + p.getMetadata().getName());
            uids.add(p.getMetadata().getUid());
        }
        deleting.retainAll(uids);
        long now = System.currentTimeMillis();
        for (Map<String, Long> m : creating.values()) {
            m.entrySet()
                    .removeIf(
                            e -> names.contains(e.getKey()) || now - e.getValue() > EXPECTATION_MS);
        }
        creating.values().removeIf(Map::isEmpty);
        for (Pod p : pods) {
            if (deleting.contains(p.getMetadata().getUid())) {
                continue;
            }
            byNamespace
                    .computeIfAbsent(p.getMetadata().getNamespace(), k -> new ArrayList<>())
                    .add(p);
        }
        for (ReplicaSet rs : replicaSets) {
            if (rs.getMetadata().getDeletionTimestamp() != null) {
                continue;
            }
            String uid = rs.getMetadata().getUid();
            Plan plan =
                    plan(
                            rs,
                            byNamespace.getOrDefault(rs.getMetadata().getNamespace(), List.of()),
                            creating.getOrDefault(uid, Map.of()).size());
            plan.adopt().forEach(p -> adopt(rs, p));
            for (int i = 0; i < plan.create(); i++) {
                create(rs);
            }
            plan.delete().forEach(p -> delete(rs, p));
            if (!Objects.equals(withoutConditions(rs.getStatus()), plan.status())) {
                writeStatus(rs, plan.status());
            }
        }
    }

    private static ReplicaSetStatus withoutConditions(ReplicaSetStatus s) {
        return s == null ? null : new ReplicaSetStatusBuilder(s).withConditions(List.of()).build();
    }

    private void adopt(ReplicaSet rs, Pod p) {
        try {
            client.pods()
                    .inNamespace(p.getMetadata().getNamespace())
                    .withName(p.getMetadata().getName())
                    .edit(
                            current -> {
                                if (controllerUid(current) == null) {
                                    List<OwnerReference> refs =
                                            current.getMetadata().getOwnerReferences() == null
                                                    ? new ArrayList<>()
                                                    : new ArrayList<>(
                                                            current.getMetadata()
                                                                    .getOwnerReferences());
                                    refs.add(controllerRef("ReplicaSet", rs));
                                    current.getMetadata().setOwnerReferences(refs);
                                }
                                return current;
                            });
            events.accept(
                    "replicaset "
                            + rs.getMetadata().getName()
                            + ": adopted pod "
                            + p.getMetadata().getName());
        } catch (KubernetesClientException e) {
            // gone or changed: the next pass sees it
        }
    }

    private void create(ReplicaSet rs) {
        Pod pod = newPod(rs, randomSuffix());
        try {
            client.pods().inNamespace(rs.getMetadata().getNamespace()).resource(pod).create();
            creating.computeIfAbsent(rs.getMetadata().getUid(), k -> new HashMap<>())
                    .put(
                            rs.getMetadata().getNamespace() + "/" + pod.getMetadata().getName(),
                            System.currentTimeMillis());
            events.accept(
                    "replicaset "
                            + rs.getMetadata().getName()
                            + ": created pod "
                            + pod.getMetadata().getName());
        } catch (KubernetesClientException e) {
            events.accept(
                    "replicaset "
                            + rs.getMetadata().getName()
                            + ": could not create a pod: "
                            + e.getMessage());
        }
    }

    private void delete(ReplicaSet rs, Pod p) {
        try {
            client.pods()
                    .inNamespace(p.getMetadata().getNamespace())
                    .withName(p.getMetadata().getName())
                    .delete();
            deleting.add(p.getMetadata().getUid());
            events.accept(
                    "replicaset "
                            + rs.getMetadata().getName()
                            + ": deleted pod "
                            + p.getMetadata().getName()
                            + " (more than "
                            + replicas(rs)
                            + " replicas)");
        } catch (KubernetesClientException e) {
            // already gone
        }
    }

    private void writeStatus(ReplicaSet rs, ReplicaSetStatus status) {
        try {
            client.apps()
                    .replicaSets()
                    .inNamespace(rs.getMetadata().getNamespace())
                    .withName(rs.getMetadata().getName())
                    .editStatus(
                            current -> {
                                current.setStatus(status);
                                return current;
                            });
        } catch (KubernetesClientException e) {
            // deleted in between; the next pass sees it
        }
    }

    static String randomSuffix() {
        StringBuilder sb = new StringBuilder(5);
        for (int i = 0; i < 5; i++) {
            sb.append(
                    DeploymentEmulator.SAFE_CHARS.charAt(
                            ThreadLocalRandom.current()
                                    .nextInt(DeploymentEmulator.SAFE_CHARS.length())));
        }
        return sb.toString();
    }
}
