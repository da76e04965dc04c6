package org.gpuoperator.e2e.cluster;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.PodTemplateSpecBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentCondition;
import io.fabric8.kubernetes.api.model.apps.DeploymentConditionBuilder;
import io.fabric8.kubernetes.api.model.apps.DeploymentStatus;
import io.fabric8.kubernetes.api.model.apps.DeploymentStatusBuilder;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Consumer;

/**
 * Plays the kube-controller-manager's Deployment controller: each Deployment owns one ReplicaSet
 * per pod template, {@code <deployment>-<pod-template-hash>}, whose replicas it moves from the old
 * ReplicaSets to the new one, RollingUpdate within maxSurge / maxUnavailable (25% each by default)
 * or Recreate; the {@code deployment.kubernetes.io/revision} annotations; and the status that
 * {@code kubectl rollout status} and {@code kubectl wait --for=condition=available} read, with the
 * controller's condition reasons and messages. The pods are the {@link ReplicaSetEmulator}'s.
 *
 * <p>{@link #plan} is the pure decision, one step of a rollout per pass as the real controller
 * takes; {@link #sync} runs it from the cluster's loop.
 */
final class DeploymentEmulator {

    static final String HASH_LABEL = "pod-template-hash";
    static final String REVISION = "deployment.kubernetes.io/revision";
    static final String DESIRED_REPLICAS = "deployment.kubernetes.io/desired-replicas";
    static final String MAX_REPLICAS = "deployment.kubernetes.io/max-replicas";

    /** Kubernetes' alphabet for generated names (no vowels, no look-alikes). */
    static final String SAFE_CHARS = "bcdfghjklmnpqrstvwxz2456789";

    static final String AVAILABLE = "Available";
    static final String PROGRESSING = "Progressing";

    /**
     * What one pass does to one Deployment.
     *
     * @param create the new ReplicaSet to create, or null
     * @param scale ReplicaSet name -> its new {@code spec.replicas}
     * @param revision the Deployment's {@code deployment.kubernetes.io/revision}, which the new
     *     ReplicaSet carries too
     * @param revise the existing new ReplicaSet whose revision annotation must become {@code
     *     revision} (an older template brought back), or null
     * @param status the Deployment's status after this pass
     */
    record Plan(
            ReplicaSet create,
            Map<String, Integer> scale,
            String revision,
            String revise,
            DeploymentStatus status) {}

    private static final ObjectMapper SORTED =
            new ObjectMapper().configure(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS, true);

    private final KubernetesClient client;
    private final Consumer<String> events;

    DeploymentEmulator(KubernetesClient client, Consumer<String> events) {
        this.client = client;
        this.events = events;
    }

    static int replicas(Deployment d) {
        Integer r = d.getSpec().getReplicas();
        return r == null ? 1 : r;
    }

    static boolean recreate(Deployment d) {
        return d.getSpec().getStrategy() != null
                && "Recreate".equals(d.getSpec().getStrategy().getType());
    }

    /**
     * An int-or-percent of {@code total}: a percentage rounds up for maxSurge and down for
     * maxUnavailable, as the controller does.
     */
    static int resolve(IntOrString value, String field, int total, boolean roundUp) {
        if (value == null) {
            value = new IntOrString("25%");
        }
        if (value.getIntVal() != null) {
            return value.getIntVal();
        }
        String s = value.getStrVal().trim();
        try {
            if (s.endsWith("%")) {
                int pct = Integer.parseInt(s.substring(0, s.length() - 1));
                return roundUp ? (total * pct + 99) / 100 : total * pct / 100;
            }
            return Integer.parseInt(s);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(
                    field + ": \"" + s + "\" is neither an integer nor a percentage", e);
        }
    }

    /** maxSurge and maxUnavailable; both 0 means maxUnavailable 1, as the controller resolves. */
    static int[] surgeAndUnavailable(Deployment d) {
        var ru =
                d.getSpec().getStrategy() == null
                        ? null
                        : d.getSpec().getStrategy().getRollingUpdate();
        int desired = replicas(d);
        int surge =
                resolve(
                        ru == null ? null : ru.getMaxSurge(),
                        "spec.strategy.rollingUpdate.maxSurge",
                        desired,
                        true);
        int unavailable =
                resolve(
                        ru == null ? null : ru.getMaxUnavailable(),
                        "spec.strategy.rollingUpdate.maxUnavailable",
                        desired,
                        false);
        if (surge == 0 && unavailable == 0) {
            unavailable = 1;
        }
        return new int[] {surge, unavailable};
    }

    /** The unavailability the Available condition allows: none for Recreate. */
    static int maxUnavailable(Deployment d) {
        if (recreate(d) || replicas(d) == 0) {
            return 0;
        }
        return Math.min(surgeAndUnavailable(d)[1], replicas(d));
    }

    /**
     * The template's hash as the controller names its ReplicaSets: FNV-1a (32 bit) of the template,
     * its decimal digits written in {@link #SAFE_CHARS}.
     */
    static String templateHash(PodTemplateSpec template) {
        int h = 0x811c9dc5;
        for (byte b : canonical(template).getBytes(StandardCharsets.UTF_8)) {
            h ^= (b & 0xff);
            h *= 0x01000193;
        }
        String digits = Long.toString(Integer.toUnsignedLong(h));
        StringBuilder sb = new StringBuilder();
        for (char c : digits.toCharArray()) {
            sb.append(SAFE_CHARS.charAt(c % SAFE_CHARS.length()));
        }
        return sb.toString();
    }

    /** The template as JSON with sorted keys and without the hash label. */
    static String canonical(PodTemplateSpec template) {
        PodTemplateSpec t = new PodTemplateSpecBuilder(template).build();
        if (t.getMetadata() != null && t.getMetadata().getLabels() != null) {
            Map<String, String> labels = new LinkedHashMap<>(t.getMetadata().getLabels());
            labels.remove(HASH_LABEL);
            t.getMetadata().setLabels(labels);
        }
        try {
            return SORTED.writeValueAsString(Serialization.jsonMapper().convertValue(t, Map.class));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException(e);
        }
    }

    static int revision(ReplicaSet rs) {
        var a = rs.getMetadata().getAnnotations();
        try {
            return a == null || a.get(REVISION) == null ? 0 : Integer.parseInt(a.get(REVISION));
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    private static int specReplicas(ReplicaSet rs) {
        return rs.getSpec().getReplicas() == null ? 1 : rs.getSpec().getReplicas();
    }

    private static int statusOf(
            ReplicaSet rs,
            java.util.function.Function<
                            io.fabric8.kubernetes.api.model.apps.ReplicaSetStatus, Integer>
                    field) {
        if (rs.getStatus() == null) {
            return 0;
        }
        Integer v = field.apply(rs.getStatus());
        return v == null ? 0 : v;
    }

    /**
     * One pass for one Deployment.
     *
     * @param owned the ReplicaSets it controls (owner reference with its uid, controller=true)
     * @param now for the conditions' times and the progress deadline
     */
    static Plan plan(Deployment d, List<ReplicaSet> owned, Instant now) {
        int desired = replicas(d);
        String hash = templateHash(d.getSpec().getTemplate());
        String wanted = canonical(d.getSpec().getTemplate());
        List<ReplicaSet> sorted = new ArrayList<>(owned);
        sorted.sort(
                Comparator.comparing(
                                (ReplicaSet rs) ->
                                        Objects.toString(
                                                rs.getMetadata().getCreationTimestamp(), ""))
                        .thenComparing(rs -> rs.getMetadata().getName()));
        ReplicaSet newRs =
                sorted.stream()
                        .filter(rs -> canonical(rs.getSpec().getTemplate()).equals(wanted))
                        .findFirst()
                        .orElse(null);
        List<ReplicaSet> old = sorted.stream().filter(rs -> rs != newRs).toList();
        int maxOldRevision = old.stream().mapToInt(DeploymentEmulator::revision).max().orElse(0);
        Map<String, Integer> target = new LinkedHashMap<>();
        for (ReplicaSet rs : sorted) {
            target.put(rs.getMetadata().getName(), specReplicas(rs));
        }
        ReplicaSet create = null;
        String newName = newRs != null ? newRs.getMetadata().getName() : name(d, hash);
        // a template brought back takes the next revision, as a new one does
        String revision =
                String.valueOf(
                        newRs != null && revision(newRs) > maxOldRevision
                                ? revision(newRs)
                                : maxOldRevision + 1);
        String revise =
                newRs != null && !revision.equals(String.valueOf(revision(newRs))) ? newName : null;
        int[] su = surgeAndUnavailable(d);
        boolean paused = Boolean.TRUE.equals(d.getSpec().getPaused());

        if (!paused && recreate(d)) {
            boolean oldPodsRunning = false;
            for (ReplicaSet rs : old) {
                if (specReplicas(rs) > 0) {
                    target.put(rs.getMetadata().getName(), 0);
                }
                oldPodsRunning |= statusOf(rs, s -> s.getReplicas()) > 0 || specReplicas(rs) > 0;
            }
            if (!oldPodsRunning) {
                if (newRs == null) {
                    create = newReplicaSet(d, hash, desired, revision, su[0]);
                } else {
                    target.put(newName, desired);
                }
            }
        } else if (!paused) {
            int all = target.values().stream().mapToInt(Integer::intValue).sum();
            int current = newRs == null ? 0 : specReplicas(newRs);
            int next;
            if (current > desired || old.isEmpty()) {
                next = desired;
            } else {
                int room = desired + su[0] - all;
                next = current + Math.max(0, Math.min(room, desired - current));
            }
            if (newRs == null) {
                create = newReplicaSet(d, hash, next, revision, su[0]);
            } else {
                target.put(newName, next);
            }
            if (next == current && newRs != null) {
                scaleDownOld(old, newRs, target, desired - su[1]);
            }
        }

        Map<String, Integer> scale = new LinkedHashMap<>();
        for (ReplicaSet rs : sorted) {
            int t = target.get(rs.getMetadata().getName());
            if (t != specReplicas(rs)) {
                scale.put(rs.getMetadata().getName(), t);
            }
        }
        return new Plan(
                create,
                scale,
                revision,
                revise,
                status(d, sorted, newRs, newName, create != null, now));
    }

    /**
     * The rolling update's scale-down of old ReplicaSets: first their pods that are not available,
     * then available ones as long as {@code minAvailable} pods stay available.
     */
    private static void scaleDownOld(
            List<ReplicaSet> old, ReplicaSet newRs, Map<String, Integer> target, int minAvailable) {
        int oldCount = old.stream().mapToInt(rs -> target.get(rs.getMetadata().getName())).sum();
        if (oldCount == 0) {
            return;
        }
        int all = target.values().stream().mapToInt(Integer::intValue).sum();
        int newUnavailable =
                Math.max(0, specReplicas(newRs) - statusOf(newRs, s -> s.getAvailableReplicas()));
        int maxScaledDown = all - minAvailable - newUnavailable;
        if (maxScaledDown <= 0) {
            return;
        }
        int cleaned = 0;
        for (ReplicaSet rs : old) {
            String n = rs.getMetadata().getName();
            int unhealthy =
                    Math.max(0, target.get(n) - statusOf(rs, s -> s.getAvailableReplicas()));
            int down = Math.min(unhealthy, maxScaledDown - cleaned);
            if (down > 0) {
                target.put(n, target.get(n) - down);
                cleaned += down;
            }
        }
        int available = statusOf(newRs, s -> s.getAvailableReplicas());
        for (ReplicaSet rs : old) {
            available +=
                    Math.min(
                            target.get(rs.getMetadata().getName()),
                            statusOf(rs, s -> s.getAvailableReplicas()));
        }
        int budget = Math.min(available - minAvailable, maxScaledDown - cleaned);
        for (ReplicaSet rs : old) {
            if (budget <= 0) {
                break;
            }
            String n = rs.getMetadata().getName();
            int down = Math.min(target.get(n), budget);
            target.put(n, target.get(n) - down);
            budget -= down;
        }
    }

    static String name(Deployment d, String hash) {
        return d.getMetadata().getName() + "-" + hash;
    }

    /** The ReplicaSet for the Deployment's current template. */
    static ReplicaSet newReplicaSet(
            Deployment d, String hash, int replicas, String revision, int maxSurge) {
        PodTemplateSpec template = new PodTemplateSpecBuilder(d.getSpec().getTemplate()).build();
        Map<String, String> labels = new LinkedHashMap<>();
        if (template.getMetadata() == null) {
            template.setMetadata(new io.fabric8.kubernetes.api.model.ObjectMeta());
        }
        if (template.getMetadata().getLabels() != null) {
            labels.putAll(template.getMetadata().getLabels());
        }
        labels.put(HASH_LABEL, hash);
        template.getMetadata().setLabels(labels);
        LabelSelector selector =
                new LabelSelectorBuilder(d.getSpec().getSelector())
                        .addToMatchLabels(HASH_LABEL, hash)
                        .build();
        return new ReplicaSetBuilder()
                .withNewMetadata()
                .withName(name(d, hash))
                .withNamespace(d.getMetadata().getNamespace())
                .withLabels(labels)
                .addToAnnotations(REVISION, revision)
                .addToAnnotations(DESIRED_REPLICAS, String.valueOf(replicas(d)))
                .addToAnnotations(MAX_REPLICAS, String.valueOf(replicas(d) + maxSurge))
                .withOwnerReferences(ReplicaSetEmulator.controllerRef("Deployment", d))
                .endMetadata()
                .withNewSpec()
                .withReplicas(replicas)
                .withMinReadySeconds(d.getSpec().getMinReadySeconds())
                .withSelector(selector)
                .withTemplate(template)
                .endSpec()
                .build();
    }

    /** The Deployment's status from its ReplicaSets, with the controller's conditions. */
    static DeploymentStatus status(
            Deployment d,
            List<ReplicaSet> all,
            ReplicaSet newRs,
            String newName,
            boolean creating,
            Instant now) {
        int desired = replicas(d);
        int replicas = all.stream().mapToInt(rs -> statusOf(rs, s -> s.getReplicas())).sum();
        int updated = newRs == null ? 0 : statusOf(newRs, s -> s.getReplicas());
        int ready = all.stream().mapToInt(rs -> statusOf(rs, s -> s.getReadyReplicas())).sum();
        int available =
                all.stream().mapToInt(rs -> statusOf(rs, s -> s.getAvailableReplicas())).sum();
        int total = all.stream().mapToInt(DeploymentEmulator::specReplicas).sum();
        DeploymentStatus before = d.getStatus() == null ? new DeploymentStatus() : d.getStatus();
        Map<String, DeploymentCondition> conditions = new LinkedHashMap<>();
        if (before.getConditions() != null) {
            before.getConditions().forEach(c -> conditions.put(c.getType(), c));
        }
        String time = now.truncatedTo(ChronoUnit.SECONDS).toString();
        boolean minimum = available >= desired - maxUnavailable(d);
        set(
                conditions,
                AVAILABLE,
                minimum ? "True" : "False",
                minimum ? "MinimumReplicasAvailable" : "MinimumReplicasUnavailable",
                minimum
                        ? "Deployment has minimum availability."
                        : "Deployment does not have minimum availability.",
                time,
                false);
        long generation =
                d.getMetadata().getGeneration() == null ? 0 : d.getMetadata().getGeneration();
        boolean complete = updated == desired && replicas == desired && available == desired;
        DeploymentCondition progressing = conditions.get(PROGRESSING);
        if (creating) {
            set(
                    conditions,
                    PROGRESSING,
                    "True",
                    "NewReplicaSetCreated",
                    "Created new replica set \"" + newName + "\"",
                    time,
                    true);
        } else if (complete && newRs != null) {
            set(
                    conditions,
                    PROGRESSING,
                    "True",
                    "NewReplicaSetAvailable",
                    "ReplicaSet \"" + newName + "\" has successfully progressed.",
                    time,
                    false);
        } else if (newRs != null
                && (progressing == null
                        || updated > nz(before.getUpdatedReplicas())
                        || replicas < nz(before.getReplicas())
                        || ready > nz(before.getReadyReplicas())
                        || available > nz(before.getAvailableReplicas()))) {
            set(
                    conditions,
                    PROGRESSING,
                    "True",
                    progressing == null ? "FoundNewReplicaSet" : "ReplicaSetUpdated",
                    progressing == null
                            ? "Found new replica set \"" + newName + "\""
                            : "ReplicaSet \"" + newName + "\" is progressing.",
                    time,
                    true);
        } else if (progressing != null
                && "True".equals(progressing.getStatus())
                && !"NewReplicaSetAvailable".equals(progressing.getReason())
                && progressing.getLastUpdateTime() != null
                && Duration.between(Instant.parse(progressing.getLastUpdateTime()), now)
                                .getSeconds()
                        > deadline(d)) {
            set(
                    conditions,
                    PROGRESSING,
                    "False",
                    "ProgressDeadlineExceeded",
                    "ReplicaSet \"" + newName + "\" has timed out progressing.",
                    time,
                    false);
        }
        return new DeploymentStatusBuilder()
                .withObservedGeneration(generation)
                .withReplicas(replicas)
                .withUpdatedReplicas(updated)
                .withReadyReplicas(ready)
                .withAvailableReplicas(available)
                .withUnavailableReplicas(Math.max(0, total - available))
                .withConditions(new ArrayList<>(conditions.values()))
                .withCollisionCount(before.getCollisionCount())
                .build();
    }

    private static int deadline(Deployment d) {
        Integer s = d.getSpec().getProgressDeadlineSeconds();
        return s == null ? 600 : s;
    }

    private static int nz(Integer i) {
        return i == null ? 0 : i;
    }

    /**
     * Sets a condition; its transition time moves only when its status does, its update time when
     * anything of it changes (or, with {@code touch}, on every progress).
     */
    private static void set(
            Map<String, DeploymentCondition> conditions,
            String type,
            String status,
            String reason,
            String message,
            String time,
            boolean touch) {
        DeploymentCondition c = conditions.get(type);
        boolean same =
                c != null
                        && status.equals(c.getStatus())
                        && reason.equals(c.getReason())
                        && message.equals(c.getMessage());
        if (same && !touch) {
            return;
        }
        conditions.put(
                type,
                new DeploymentConditionBuilder()
                        .withType(type)
                        .withStatus(status)
                        .withReason(reason)
                        .withMessage(message)
                        .withLastUpdateTime(time)
                        .withLastTransitionTime(
                                c != null && status.equals(c.getStatus())
                                        ? c.getLastTransitionTime()
                                        : time)
                        .build());
    }

    /** One pass over every Deployment of the cluster. */
    void sync(List<Deployment> deployments, List<ReplicaSet> replicaSets) {
        Map<String, List<ReplicaSet>> byOwner = new HashMap<>();
        for (ReplicaSet rs : replicaSets) {
            String owner = ReplicaSetEmulator.controllerUid(rs);
            if (owner != null && rs.getMetadata().getDeletionTimestamp() == null) {
                byOwner.computeIfAbsent(owner, k -> new ArrayList<>()).add(rs);
            }
        }
        Instant now = Instant.now();
        for (Deployment d : deployments) {
            if (d.getMetadata().getDeletionTimestamp() != null) {
                continue;
            }
            String where = "deployment " + d.getMetadata().getName();
            Plan plan;
            try {
                plan = plan(d, byOwner.getOrDefault(d.getMetadata().getUid(), List.of()), now);
            } catch (IllegalArgumentException e) {
                events.accept(where + ": " + e.getMessage());
                continue;
            }
            String ns = d.getMetadata().getNamespace();
            try {
                if (plan.create() != null) {
                    client.apps().replicaSets().inNamespace(ns).resource(plan.create()).create();
                    events.accept(
                            where
                                    + ": created replica set "
                                    + plan.create().getMetadata().getName()
                                    + " with "
                                    + plan.create().getSpec().getReplicas()
                                    + " replicas");
                }
                plan.scale()
                        .forEach(
                                (name, n) -> {
                                    client.apps()
                                            .replicaSets()
                                            .inNamespace(ns)
                                            .withName(name)
                                            .edit(
                                                    rs -> {
                                                        rs.getSpec().setReplicas(n);
                                                        return rs;
                                                    });
                                    events.accept(
                                            where + ": scaled replica set " + name + " to " + n);
                                });
                if (plan.revise() != null) {
                    client.apps()
                            .replicaSets()
                            .inNamespace(ns)
                            .withName(plan.revise())
                            .edit(
                                    rs -> {
                                        Map<String, String> a =
                                                rs.getMetadata().getAnnotations() == null
                                                        ? new LinkedHashMap<>()
                                                        : new LinkedHashMap<>(
                                                                rs.getMetadata().getAnnotations());
                                        a.put(REVISION, plan.revision());
                                        rs.getMetadata().setAnnotations(a);
                                        return rs;
                                    });
                }
                var annotations = d.getMetadata().getAnnotations();
                if (annotations == null || !plan.revision().equals(annotations.get(REVISION))) {
                    client.apps()
                            .deployments()
                            .inNamespace(ns)
                            .withName(d.getMetadata().getName())
                            .edit(
                                    current -> {
                                        Map<String, String> a =
                                                current.getMetadata().getAnnotations() == null
                                                        ? new LinkedHashMap<>()
                                                        : new LinkedHashMap<>(
                                                                current.getMetadata()
                                                                        .getAnnotations());
                                        a.put(REVISION, plan.revision());
                                        current.getMetadata().setAnnotations(a);
                                        return current;
                                    });
                }
                if (!Objects.equals(d.getStatus(), plan.status())) {
                    client.apps()
                            .deployments()
                            .inNamespace(ns)
                            .withName(d.getMetadata().getName())
                            .editStatus(
                                    current -> {
                                        current.setStatus(plan.status());
                                        return current;
                                    });
                }
            } catch (KubernetesClientException e) {
                // changed or deleted in between (a conflict, an existing name): the next pass
                // sees it
            }
        }
    }
}
