package org.gpuoperator.e2e.cluster;

import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.DaemonSetStatus;
import io.fabric8.kubernetes.api.model.apps.DaemonSetStatusBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Consumer;

/**
 * Plays the kube-controller-manager's DaemonSet controller on the simulated cluster, which has no
 * controllers of its own: one pod per node whose labels match the template's nodeSelector, pods
 * removed from nodes that stop matching, RollingUpdate (bounded by maxUnavailable) or OnDelete for
 * template changes, and the DaemonSet status.
 *
 * <p>Level-triggered: each {@link #sync} pass compares what is with what should be.
 */
public final class DaemonSetEmulator {

    static final String REVISION_LABEL = "controller-revision-hash";

    private final KubernetesClient client;
    private final String namespace;
    private final Consumer<String> events;

    public DaemonSetEmulator(KubernetesClient client, String namespace, Consumer<String> events) {
        this.client = client;
        this.namespace = namespace;
        this.events = events;
    }

    public void sync(List<DaemonSet> daemonSets, List<Node> nodes, List<Pod> pods) {
        for (DaemonSet ds : daemonSets) {
            if (ds.getMetadata().getDeletionTimestamp() == null) {
                syncOne(ds, nodes, pods);
            }
        }
        // Pods whose DaemonSet is gone: garbage-collected through their owner reference.
        for (Pod p : pods) {
            String owner = ownerDaemonSet(p);
            if (owner != null
                    && p.getMetadata().getDeletionTimestamp() == null // already going
                    && daemonSets.stream().noneMatch(d -> d.getMetadata().getUid().equals(owner))) {
                collectIfDangling(p);
            }
        }
    }

    /**
     * Deletes the pod if {@link GarbageCollector#danglingNow} agrees: this pass's pod list may be
     * older than its DaemonSet list, and a pod orphaned just before its DaemonSet's delete must
     * stay.
     */
    private void collectIfDangling(Pod seen) {
        Pod now = GarbageCollector.danglingNow(client, seen);
        if (now != null) {
            delete(now, "its DaemonSet was deleted");
        }
    }

    private void syncOne(DaemonSet ds, List<Node> nodes, List<Pod> allPods) {
        String uid = ds.getMetadata().getUid();
        String revision = templateHash(ds);
        Map<String, String> selector = ds.getSpec().getTemplate().getSpec().getNodeSelector();
        List<String> wanted =
                nodes.stream()
                        .filter(n -> n.getMetadata().getDeletionTimestamp() == null)
                        .filter(n -> matches(n, selector))
                        .filter(n -> fitsNodeAffinity(n, ds.getSpec().getTemplate().getSpec()))
                        .map(n -> n.getMetadata().getName())
                        .sorted()
                        .toList();
        Map<String, List<Pod>> byNode = new LinkedHashMap<>();
        for (Pod p : allPods) {
            if (uid.equals(ownerDaemonSet(p)) && p.getMetadata().getDeletionTimestamp() == null) {
                byNode.computeIfAbsent(p.getSpec().getNodeName(), k -> new ArrayList<>()).add(p);
            }
        }
        List<Pod> kept = new ArrayList<>();
        for (var e : byNode.entrySet()) {
            if (!wanted.contains(e.getKey())) {
                e.getValue().forEach(p -> delete(p, "node " + e.getKey() + " no longer matches"));
                continue;
            }
            List<Pod> onNode = e.getValue();
            kept.add(onNode.get(0));
            onNode.subList(1, onNode.size()).forEach(p -> delete(p, "duplicate"));
        }
        for (String node : wanted) {
            if (!byNode.containsKey(node)) {
                create(ds, node, revision);
            }
        }

        boolean onDelete =
                ds.getSpec().getUpdateStrategy() != null
                        && "OnDelete".equals(ds.getSpec().getUpdateStrategy().getType());
        long ready = kept.stream().filter(Pods::isReady).count();
        List<Pod> outdated =
                kept.stream()
                        .filter(p -> !revision.equals(label(p, REVISION_LABEL)))
                        .sorted(Comparator.comparing(Pods::isReady)) // replace broken pods first
                        .toList();
        if (!onDelete && !outdated.isEmpty()) {
            int maxUnavailable = maxUnavailable(ds, wanted.size());
            long unavailable = wanted.size() - ready;
            long budget = maxUnavailable - unavailable;
            for (Pod p : outdated) {
                if (!Pods.isReady(p)) {
                    delete(p, "rolling update (pod not ready)");
                } else if (budget > 0) {
                    delete(p, "rolling update");
                    budget--;
                }
            }
        }

        long updated = kept.stream().filter(p -> revision.equals(label(p, REVISION_LABEL))).count();
        DaemonSetStatus status =
                new DaemonSetStatusBuilder()
                        .withDesiredNumberScheduled(wanted.size())
                        .withCurrentNumberScheduled(kept.size())
                        .withNumberReady((int) ready)
                        .withNumberAvailable((int) ready)
                        .withNumberUnavailable((int) (wanted.size() - ready))
                        .withUpdatedNumberScheduled((int) updated)
                        .withNumberMisscheduled(0)
                        .withObservedGeneration(ds.getMetadata().getGeneration())
                        .build();
        if (!Objects.equals(normalize(ds.getStatus()), normalize(status))) {
            try {
                client.apps()
                        .daemonSets()
                        .inNamespace(namespace)
                        .withName(ds.getMetadata().getName())
                        .editStatus(
                                d -> {
                                    d.setStatus(status);
                                    return d;
                                });
            } catch (KubernetesClientException e) {
                // deleted in between; the next pass will see it
            }
        }
    }

    private static DaemonSetStatus normalize(DaemonSetStatus s) {
        if (s == null) {
            return null;
        }
        DaemonSetStatus copy = new DaemonSetStatusBuilder(s).withConditions(List.of()).build();
        copy.setCollisionCount(null);
        return copy;
    }

    private void create(DaemonSet ds, String node, String revision) {
        String name = ds.getMetadata().getName() + "-" + randomSuffix();
        Map<String, String> labels = new LinkedHashMap<>();
        if (ds.getSpec().getTemplate().getMetadata() != null
                && ds.getSpec().getTemplate().getMetadata().getLabels() != null) {
            labels.putAll(ds.getSpec().getTemplate().getMetadata().getLabels());
        }
        labels.put(REVISION_LABEL, revision);
        Pod pod =
                new PodBuilder()
                        .withNewMetadata()
                        .withName(name)
                        .withNamespace(namespace)
                        .withLabels(labels)
                        .withAnnotations(
                                ds.getSpec().getTemplate().getMetadata() == null
                                        ? null
                                        : ds.getSpec().getTemplate().getMetadata().getAnnotations())
                        .withOwnerReferences(
                                new OwnerReferenceBuilder()
                                        .withApiVersion("apps/v1")
                                        .withKind("DaemonSet")
                                        .withName(ds.getMetadata().getName())
                                        .withUid(ds.getMetadata().getUid())
                                        .withController(true)
                                        .withBlockOwnerDeletion(true)
                                        .build())
                        .endMetadata()
                        .withSpec(ds.getSpec().getTemplate().getSpec())
                        .build();
        pod.getSpec().setNodeName(node);
        pod.setStatus(
                new io.fabric8.kubernetes.api.model.PodStatusBuilder()
                        .withPhase("Pending")
                        .build());
        try {
            client.pods().inNamespace(namespace).resource(pod).create();
            events.accept(node + ": scheduled " + name);
        } catch (KubernetesClientException e) {
            events.accept(
                    node
                            + ": could not create pod for "
                            + ds.getMetadata().getName()
                            + ": "
                            + e.getMessage());
        }
    }

    private void delete(Pod p, String why) {
        try {
            client.pods()
                    .inNamespace(p.getMetadata().getNamespace())
                    .withName(p.getMetadata().getName())
                    .delete();
            events.accept(
                    p.getSpec().getNodeName()
                            + ": deleted "
                            + p.getMetadata().getName()
                            + " ("
                            + why
                            + ")");
        } catch (KubernetesClientException e) {
            // already gone
        }
    }

    static boolean matches(Node n, Map<String, String> selector) {
        if (selector == null || selector.isEmpty()) {
            return true;
        }
        Map<String, String> labels =
                n.getMetadata().getLabels() == null ? Map.of() : n.getMetadata().getLabels();
        return selector.entrySet().stream()
                .allMatch(e -> e.getValue().equals(labels.get(e.getKey())));
    }

    /**
     * The template's required node affinity, as the DaemonSet controller checks it: any term
     * matches, all of a term's expressions (In, NotIn, Exists, DoesNotExist on labels).
     */
    static boolean fitsNodeAffinity(Node n, io.fabric8.kubernetes.api.model.PodSpec spec) {
        if (spec.getAffinity() == null
                || spec.getAffinity().getNodeAffinity() == null
                || spec.getAffinity()
                                .getNodeAffinity()
                                .getRequiredDuringSchedulingIgnoredDuringExecution()
                        == null) {
            return true;
        }
        Map<String, String> labels =
                n.getMetadata().getLabels() == null ? Map.of() : n.getMetadata().getLabels();
        var terms =
                spec.getAffinity()
                        .getNodeAffinity()
                        .getRequiredDuringSchedulingIgnoredDuringExecution()
                        .getNodeSelectorTerms();
        return terms == null
                || terms.isEmpty()
                || terms.stream()
                        .anyMatch(
                                t ->
                                        t.getMatchExpressions() == null
                                                || t.getMatchExpressions().stream()
                                                        .allMatch(r -> holds(r, labels)));
    }

    private static boolean holds(
            io.fabric8.kubernetes.api.model.NodeSelectorRequirement r, Map<String, String> labels) {
        String value = labels.get(r.getKey());
        List<String> values = r.getValues() == null ? List.of() : r.getValues();
        return switch (r.getOperator()) {
            case "In" -> value != null && values.contains(value);
            case "NotIn" -> value == null || !values.contains(value);
            case "Exists" -> value != null;
            case "DoesNotExist" -> value == null;
            default ->
                    throw new IllegalArgumentException(
                            "node affinity operator " + r.getOperator() + " is not played here");
        };
    }

    static int maxUnavailable(DaemonSet ds, int desired) {
        IntOrString mu =
                ds.getSpec().getUpdateStrategy() == null
                                || ds.getSpec().getUpdateStrategy().getRollingUpdate() == null
                        ? null
                        : ds.getSpec().getUpdateStrategy().getRollingUpdate().getMaxUnavailable();
        if (mu == null) {
            return 1;
        }
        if (mu.getIntVal() != null) {
            return Math.max(1, mu.getIntVal());
        }
        String s = mu.getStrVal().trim();
        if (s.endsWith("%")) {
            return Math.max(1, desired * Integer.parseInt(s.substring(0, s.length() - 1)) / 100);
        }
        return Math.max(1, Integer.parseInt(s));
    }

    static String templateHash(DaemonSet ds) {
        try {
            byte[] d =
                    MessageDigest.getInstance("SHA-256")
                            .digest(
                                    Serialization.asJson(ds.getSpec().getTemplate())
                                            .getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(d, 0, 5);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The uid of the pod's DaemonSet, or null. */
    private static String ownerDaemonSet(Pod p) {
        if (p.getMetadata().getOwnerReferences() == null) {
            return null;
        }
        return p.getMetadata().getOwnerReferences().stream()
                .filter(o -> "DaemonSet".equals(o.getKind()))
                .map(OwnerReference::getUid)
                .findFirst()
                .orElse(null);
    }

    private static String label(Pod p, String key) {
        return p.getMetadata().getLabels() == null ? null : p.getMetadata().getLabels().get(key);
    }

    private static String randomSuffix() {
        String alphabet = "bcdfghjklmnpqrstvwxz2456789";
        StringBuilder sb = new StringBuilder(5);
        for (int i = 0; i < 5; i++) {
            sb.append(alphabet.charAt(ThreadLocalRandom.current().nextInt(alphabet.length())));
        }
        return sb.toString();
    }
}
