package org.gpuoperator.e2e.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetBuilder;
import java.util.List;
import org.junit.jupiter.api.Test;

class ReplicaSetEmulatorTest {

    static ReplicaSet rs(int replicas) {
        return new ReplicaSetBuilder()
                .withNewMetadata()
                .withName("web-abc")
                .withNamespace("default")
                .withUid("uid-rs")
                .withGeneration(3L)
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
                .withImage("app:1")
                .endContainer()
                .endSpec()
                .endTemplate()
                .endSpec()
                .build();
    }

    static Pod pod(String name, String node, String phase, boolean ready, String created) {
        PodBuilder b =
                new PodBuilder()
                        .withNewMetadata()
                        .withName(name)
                        .withNamespace("default")
                        .withUid("uid-" + name)
                        .addToLabels("app", "web")
                        .withCreationTimestamp(created)
                        .addToOwnerReferences(ReplicaSetEmulator.controllerRef("ReplicaSet", rs(1)))
                        .endMetadata()
                        .withNewSpec()
                        .withNodeName(node)
                        .endSpec()
                        .withNewStatus()
                        .withPhase(phase)
                        .endStatus();
        if (ready) {
            b.editStatus()
                    .addNewCondition()
                    .withType("Ready")
                    .withStatus("True")
                    .endCondition()
                    .endStatus();
        }
        return b.build();
    }

    static Pod orphan(String name, String label) {
        return new PodBuilder()
                .withNewMetadata()
                .withName(name)
                .withNamespace("default")
                .withUid("uid-" + name)
                .addToLabels("app", label)
                .endMetadata()
                .withNewSpec()
                .withNodeName("n1")
                .endSpec()
                .build();
    }

    @Test
    void missingPodsAreCreatedFromTheTemplateWithTheOwnerReference() {
        ReplicaSetEmulator.Plan plan = ReplicaSetEmulator.plan(rs(3), List.of(), 0);
        assertThat(plan.create()).isEqualTo(3);
        assertThat(ReplicaSetEmulator.plan(rs(3), List.of(), 2).create())
                .as("pods created and not seen yet count")
                .isEqualTo(1);
        Pod p = ReplicaSetEmulator.newPod(rs(3), "x7k2q");
        assertThat(p.getMetadata().getName()).isEqualTo("web-abc-x7k2q");
        assertThat(p.getMetadata().getLabels()).containsEntry("app", "web");
        assertThat(p.getSpec().getNodeName()).as("bound by the scheduler").isNull();
        assertThat(p.getMetadata().getOwnerReferences())
                .singleElement()
                .satisfies(
                        o -> {
                            assertThat(o.getKind()).isEqualTo("ReplicaSet");
                            assertThat(o.getName()).isEqualTo("web-abc");
                            assertThat(o.getUid()).isEqualTo("uid-rs");
                            assertThat(o.getController()).isTrue();
                        });
        assertThat(ReplicaSetEmulator.randomSuffix()).matches("[bcdfghjklmnpqrstvwxz2456789]{5}");
    }

    @Test
    void surplusPodsGoUnboundFirstThenPendingThenNotReadyThenNewest() {
        Pod runningOld = pod("a", "n1", "Running", true, "2026-01-01T00:00:01Z");
        Pod runningNew = pod("b", "n1", "Running", true, "2026-01-01T00:00:05Z");
        Pod notReady = pod("c", "n1", "Running", false, "2026-01-01T00:00:00Z");
        Pod pending = pod("d", "n1", "Pending", false, "2026-01-01T00:00:00Z");
        Pod unbound = pod("e", null, "Pending", false, "2026-01-01T00:00:00Z");
        List<Pod> all = List.of(runningOld, runningNew, notReady, pending, unbound);
        assertThat(ReplicaSetEmulator.plan(rs(1), all, 0).delete())
                .containsExactly(unbound, pending, notReady, runningNew);
        assertThat(ReplicaSetEmulator.plan(rs(5), all, 0).delete()).isEmpty();
    }

    @Test
    void theStatusCountsActivePodsAndTerminatedOrDeletedOnesAreReplaced() {
        Pod ready = pod("a", "n1", "Running", true, "2026-01-01T00:00:01Z");
        Pod starting = pod("b", "n1", "Pending", false, "2026-01-01T00:00:01Z");
        Pod failed = pod("c", "n1", "Failed", false, "2026-01-01T00:00:01Z");
        Pod deleting =
                new PodBuilder(pod("d", "n1", "Running", true, "2026-01-01T00:00:01Z"))
                        .editMetadata()
                        .withDeletionTimestamp("2026-01-01T00:00:09Z")
                        .endMetadata()
                        .build();
        ReplicaSetEmulator.Plan plan =
                ReplicaSetEmulator.plan(rs(3), List.of(ready, starting, failed, deleting), 0);
        assertThat(plan.create()).isEqualTo(1);
        assertThat(plan.status().getReplicas()).isEqualTo(2);
        assertThat(plan.status().getReadyReplicas()).isEqualTo(1);
        assertThat(plan.status().getAvailableReplicas()).isEqualTo(1);
        assertThat(plan.status().getObservedGeneration()).isEqualTo(3L);
    }

    @Test
    void orphansThatMatchTheSelectorAreAdoptedAndCount() {
        Pod mine = orphan("mine", "web");
        Pod other = orphan("other", "db");
        ReplicaSetEmulator.Plan plan = ReplicaSetEmulator.plan(rs(1), List.of(mine, other), 0);
        assertThat(plan.adopt()).containsExactly(mine);
        assertThat(plan.create()).isZero();
        assertThat(plan.delete()).isEmpty();
    }

    @Test
    void podsOfAnotherControllerAreNeitherCountedNorAdopted() {
        Pod taken =
                new PodBuilder(orphan("taken", "web"))
                        .editMetadata()
                        .addToOwnerReferences(
                                ReplicaSetEmulator.controllerRef(
                                        "ReplicaSet",
                                        new ReplicaSetBuilder(rs(1))
                                                .editMetadata()
                                                .withUid("uid-other")
                                                .endMetadata()
                                                .build()))
                        .endMetadata()
                        .build();
        ReplicaSetEmulator.Plan plan = ReplicaSetEmulator.plan(rs(1), List.of(taken), 0);
        assertThat(plan.adopt()).isEmpty();
        assertThat(plan.create()).isEqualTo(1);
    }
}
