package org.gpuoperator.e2e.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.apps.DeploymentCondition;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetBuilder;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetStatusBuilder;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

class DeploymentEmulatorTest {

    static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

    static Deployment deployment(int replicas, String image) {
        return new DeploymentBuilder()
                .withNewMetadata()
                .withName("web")
                .withNamespace("default")
                .withUid("uid-web")
                .withGeneration(1L)
                .endMetadata()
                .withNewSpec()
                .withReplicas(replicas)
                .withNewSelector()
                .addToMatchLabels("app", "web")
                .endSelector()
                .withNewTemplate()
                .withNewMetadata()
                .addToLabels("app", "web")
                .endMetadata()
                .withNewSpec()
                .addNewContainer()
                .withName("c")
                .withImage(image)
                .endContainer()
                .endSpec()
                .endTemplate()
                .endSpec()
                .build();
    }

    static Deployment withImage(Deployment d, String image) {
        return new DeploymentBuilder(d)
                .editSpec()
                .editTemplate()
                .editSpec()
                .editFirstContainer()
                .withImage(image)
                .endContainer()
                .endSpec()
                .endTemplate()
                .endSpec()
                .editMetadata()
                .withGeneration(d.getMetadata().getGeneration() + 1)
                .endMetadata()
                .build();
    }

    static Condition condition(Deployment d, String type) {
        DeploymentCondition c =
                d.getStatus().getConditions().stream()
                        .filter(x -> type.equals(x.getType()))
                        .findFirst()
                        .orElseThrow();
        return new Condition(c.getStatus(), c.getReason(), c.getMessage());
    }

    record Condition(String status, String reason, String message) {}

    /**
     * The cluster around the pure decision: applies each plan, and the ReplicaSets' pods come up
     * (all available one pass after their ReplicaSet asks for them, unless {@code up} says fewer).
     */
    static final class World {
        Deployment d;
        final List<ReplicaSet> sets = new ArrayList<>();
        Function<ReplicaSet, Integer> up = rs -> rs.getSpec().getReplicas();
        int created;
        Instant now = T0;

        World(Deployment d) {
            this.d = d;
        }

        DeploymentEmulator.Plan step() {
            now = now.plusSeconds(1);
            DeploymentEmulator.Plan plan = DeploymentEmulator.plan(d, List.copyOf(sets), now);
            // pods follow the ReplicaSets' previous specs (the ReplicaSet controller's pass)
            for (int i = 0; i < sets.size(); i++) {
                ReplicaSet rs = sets.get(i);
                int have = Math.min(rs.getSpec().getReplicas(), up.apply(rs));
                int running = rs.getSpec().getReplicas();
                sets.set(
                        i,
                        new ReplicaSetBuilder(rs)
                                .withStatus(
                                        new ReplicaSetStatusBuilder()
                                                .withReplicas(running)
                                                .withReadyReplicas(have)
                                                .withAvailableReplicas(have)
                                                .build())
                                .build());
            }
            if (plan.create() != null) {
                ReplicaSet rs =
                        new ReplicaSetBuilder(plan.create())
                                .editMetadata()
                                .withUid("uid-rs-" + created)
                                .withCreationTimestamp("2026-01-01T00:00:0" + created++ + "Z")
                                .endMetadata()
                                .build();
                sets.add(rs);
            }
            for (int i = 0; i < sets.size(); i++) {
                Integer n = plan.scale().get(sets.get(i).getMetadata().getName());
                if (n != null) {
                    sets.set(
                            i,
                            new ReplicaSetBuilder(sets.get(i))
                                    .editSpec()
                                    .withReplicas(n)
                                    .endSpec()
                                    .build());
                }
            }
            d =
                    new DeploymentBuilder(d)
                            .withStatus(plan.status())
                            .editMetadata()
                            .addToAnnotations(DeploymentEmulator.REVISION, plan.revision())
                            .endMetadata()
                            .build();
            return plan;
        }

        int pods() {
            return sets.stream().mapToInt(rs -> rs.getSpec().getReplicas()).sum();
        }

        int available() {
            return sets.stream()
                    .mapToInt(
                            rs ->
                                    Math.min(
                                            rs.getSpec().getReplicas(),
                                            rs.getStatus() == null
                                                    ? 0
                                                    : rs.getStatus().getAvailableReplicas()))
                    .sum();
        }

        Map<String, Integer> replicasByImage() {
            Map<String, Integer> m = new java.util.TreeMap<>();
            for (ReplicaSet rs : sets) {
                m.put(
                        rs.getSpec().getTemplate().getSpec().getContainers().get(0).getImage(),
                        rs.getSpec().getReplicas());
            }
            return m;
        }
    }

    @Test
    void aNewDeploymentGetsItsReplicaSetNamedByTheTemplateHashAndBecomesAvailable() {
        World w = new World(deployment(3, "app:1"));
        DeploymentEmulator.Plan first = w.step();
        ReplicaSet rs = first.create();
        String hash = DeploymentEmulator.templateHash(w.d.getSpec().getTemplate());
        assertThat(hash).matches("[bcdfghjklmnpqrstvwxz2456789]{1,10}");
        assertThat(rs.getMetadata().getName()).isEqualTo("web-" + hash);
        assertThat(rs.getMetadata().getLabels()).containsEntry("pod-template-hash", hash);
        assertThat(rs.getSpec().getSelector().getMatchLabels())
                .containsEntry("app", "web")
                .containsEntry("pod-template-hash", hash);
        assertThat(rs.getSpec().getTemplate().getMetadata().getLabels())
                .containsEntry("pod-template-hash", hash);
        assertThat(rs.getMetadata().getOwnerReferences())
                .singleElement()
                .satisfies(
                        o -> {
                            assertThat(o.getKind()).isEqualTo("Deployment");
                            assertThat(o.getUid()).isEqualTo("uid-web");
                            assertThat(o.getController()).isTrue();
                        });
        assertThat(rs.getMetadata().getAnnotations())
                .containsEntry("deployment.kubernetes.io/revision", "1");
        assertThat(rs.getSpec().getReplicas()).isEqualTo(3);
        assertThat(condition(w.d, "Progressing"))
                .isEqualTo(
                        new Condition(
                                "True",
                                "NewReplicaSetCreated",
                                "Created new replica set \"web-" + hash + "\""));
        assertThat(condition(w.d, "Available"))
                .isEqualTo(
                        new Condition(
                                "False",
                                "MinimumReplicasUnavailable",
                                "Deployment does not have minimum availability."));

        for (int i = 0; i < 3; i++) {
            w.step();
        }
        assertThat(w.d.getStatus().getObservedGeneration()).isEqualTo(1L);
        assertThat(w.d.getStatus().getReplicas()).isEqualTo(3);
        assertThat(w.d.getStatus().getUpdatedReplicas()).isEqualTo(3);
        assertThat(w.d.getStatus().getReadyReplicas()).isEqualTo(3);
        assertThat(w.d.getStatus().getAvailableReplicas()).isEqualTo(3);
        assertThat(w.d.getStatus().getUnavailableReplicas()).isZero();
        assertThat(condition(w.d, "Available"))
                .isEqualTo(
                        new Condition(
                                "True",
                                "MinimumReplicasAvailable",
                                "Deployment has minimum availability."));
        assertThat(condition(w.d, "Progressing"))
                .isEqualTo(
                        new Condition(
                                "True",
                                "NewReplicaSetAvailable",
                                "ReplicaSet \"web-" + hash + "\" has successfully progressed."));
        assertThat(w.step().scale()).as("a settled deployment changes nothing").isEmpty();
    }

    @Test
    void theHashIgnoresMapOrderAndTheHashLabelButFollowsTheTemplate() {
        Deployment d = deployment(1, "app:1");
        String hash = DeploymentEmulator.templateHash(d.getSpec().getTemplate());
        var relabelled =
                new io.fabric8.kubernetes.api.model.PodTemplateSpecBuilder(
                                d.getSpec().getTemplate())
                        .editMetadata()
                        .addToLabels("pod-template-hash", "x")
                        .endMetadata()
                        .build();
        assertThat(DeploymentEmulator.templateHash(relabelled)).isEqualTo(hash);
        assertThat(DeploymentEmulator.templateHash(withImage(d, "app:2").getSpec().getTemplate()))
                .isNotEqualTo(hash);
    }

    @Test
    void aRollingUpdateStaysWithinMaxSurgeAndMaxUnavailableAndEndsOnTheNewReplicaSet() {
        World w = new World(deployment(4, "app:1"));
        for (int i = 0; i < 4; i++) {
            w.step();
        }
        w.d = withImage(w.d, "app:2");
        // defaults 25% of 4: one pod more, one pod less
        for (int i = 0; i < 30; i++) {
            w.step();
            assertThat(w.pods()).as("pods at step %d", i).isLessThanOrEqualTo(5);
            assertThat(w.available()).as("available at step %d", i).isGreaterThanOrEqualTo(3);
        }
        assertThat(w.replicasByImage()).isEqualTo(Map.of("app:1", 0, "app:2", 4));
        assertThat(w.d.getMetadata().getAnnotations())
                .containsEntry("deployment.kubernetes.io/revision", "2");
        assertThat(w.sets.get(1).getMetadata().getAnnotations())
                .containsEntry("deployment.kubernetes.io/revision", "2");
        assertThat(w.d.getStatus().getUpdatedReplicas()).isEqualTo(4);
        assertThat(w.d.getStatus().getReplicas()).isEqualTo(4);
        assertThat(w.d.getStatus().getObservedGeneration()).isEqualTo(2L);
        assertThat(condition(w.d, "Progressing").reason()).isEqualTo("NewReplicaSetAvailable");
    }

    @Test
    void aRollingUpdateWhoseNewPodsNeverBecomeAvailableKeepsTheOldOnesUp() {
        World w = new World(deployment(4, "app:1"));
        for (int i = 0; i < 4; i++) {
            w.step();
        }
        w.d = withImage(w.d, "app:broken");
        w.up =
                rs ->
                        rs.getSpec()
                                        .getTemplate()
                                        .getSpec()
                                        .getContainers()
                                        .get(0)
                                        .getImage()
                                        .equals("app:broken")
                                ? 0
                                : rs.getSpec().getReplicas();
        for (int i = 0; i < 20; i++) {
            w.step();
        }
        // 1 surge + 1 unavailable: two new pods, three old
        assertThat(w.replicasByImage()).isEqualTo(Map.of("app:1", 3, "app:broken", 2));
        assertThat(w.available()).isEqualTo(3);
        assertThat(condition(w.d, "Available").status()).isEqualTo("True");
        assertThat(condition(w.d, "Progressing").reason()).isEqualTo("ReplicaSetUpdated");
        assertThat(w.d.getStatus().getUnavailableReplicas()).isEqualTo(2);

        w.now = w.now.plusSeconds(601);
        w.step();
        assertThat(condition(w.d, "Progressing"))
                .isEqualTo(
                        new Condition(
                                "False",
                                "ProgressDeadlineExceeded",
                                "ReplicaSet \""
                                        + w.sets.get(1).getMetadata().getName()
                                        + "\" has timed out progressing."));
    }

    @Test
    void recreateStopsEveryOldPodBeforeTheNewReplicaSetStarts() {
        Deployment d =
                new DeploymentBuilder(deployment(2, "app:1"))
                        .editSpec()
                        .withNewStrategy()
                        .withType("Recreate")
                        .endStrategy()
                        .endSpec()
                        .build();
        World w = new World(d);
        for (int i = 0; i < 3; i++) {
            w.step();
        }
        w.d = withImage(w.d, "app:2");
        boolean sawNoPods = false;
        for (int i = 0; i < 8; i++) {
            w.step();
            int oldRunning = w.sets.get(0).getStatus().getReplicas();
            if (w.sets.size() > 1) {
                assertThat(oldRunning).as("old pods when the new set exists").isZero();
            }
            if (w.d.getStatus().getAvailableReplicas() == 0) {
                sawNoPods = true;
                assertThat(condition(w.d, "Available"))
                        .as("Recreate allows no unavailability")
                        .isEqualTo(
                                new Condition(
                                        "False",
                                        "MinimumReplicasUnavailable",
                                        "Deployment does not have minimum availability."));
            }
        }
        assertThat(sawNoPods).isTrue();
        assertThat(w.replicasByImage()).isEqualTo(Map.of("app:1", 0, "app:2", 2));
        assertThat(condition(w.d, "Available").status()).isEqualTo("True");
    }

    @Test
    void scalingChangesOnlyTheCurrentReplicaSet() {
        World w = new World(deployment(2, "app:1"));
        for (int i = 0; i < 3; i++) {
            w.step();
        }
        w.d = new DeploymentBuilder(w.d).editSpec().withReplicas(5).endSpec().build();
        w.step();
        assertThat(w.replicasByImage()).isEqualTo(Map.of("app:1", 5));
        w.d = new DeploymentBuilder(w.d).editSpec().withReplicas(1).endSpec().build();
        w.step();
        assertThat(w.replicasByImage()).isEqualTo(Map.of("app:1", 1));
        assertThat(w.sets).hasSize(1);
    }

    @Test
    void goingBackToAnOldTemplateReusesItsReplicaSetUnderTheNextRevision() {
        World w = new World(deployment(1, "app:1"));
        for (int i = 0; i < 3; i++) {
            w.step();
        }
        w.d = withImage(w.d, "app:2");
        for (int i = 0; i < 6; i++) {
            w.step();
        }
        w.d = withImage(w.d, "app:1");
        DeploymentEmulator.Plan p = w.step();
        assertThat(p.create()).isNull();
        assertThat(p.revision()).isEqualTo("3");
        assertThat(p.revise()).isEqualTo(w.sets.get(0).getMetadata().getName());
        for (int i = 0; i < 6; i++) {
            w.step();
        }
        assertThat(w.replicasByImage()).isEqualTo(Map.of("app:1", 1, "app:2", 0));
    }

    @Test
    void maxSurgeAndMaxUnavailableResolveAsTheControllerDoes() {
        Deployment d =
                new DeploymentBuilder(deployment(10, "a"))
                        .editSpec()
                        .withNewStrategy()
                        .withType("RollingUpdate")
                        .withNewRollingUpdate()
                        .withMaxSurge(new IntOrString("15%"))
                        .withMaxUnavailable(new IntOrString("15%"))
                        .endRollingUpdate()
                        .endStrategy()
                        .endSpec()
                        .build();
        assertThat(DeploymentEmulator.surgeAndUnavailable(d)).containsExactly(2, 1);
        Deployment zero =
                new DeploymentBuilder(d)
                        .editSpec()
                        .editStrategy()
                        .editRollingUpdate()
                        .withMaxSurge(new IntOrString(0))
                        .withMaxUnavailable(new IntOrString(0))
                        .endRollingUpdate()
                        .endStrategy()
                        .endSpec()
                        .build();
        assertThat(DeploymentEmulator.surgeAndUnavailable(zero)).containsExactly(0, 1);
        Deployment bad =
                new DeploymentBuilder(d)
                        .editSpec()
                        .editStrategy()
                        .editRollingUpdate()
                        .withMaxSurge(new IntOrString("lots"))
                        .endRollingUpdate()
                        .endStrategy()
                        .endSpec()
                        .build();
        assertThatThrownBy(() -> DeploymentEmulator.surgeAndUnavailable(bad))
                .hasMessageContaining("spec.strategy.rollingUpdate.maxSurge")
                .hasMessageContaining("lots");
    }
}
