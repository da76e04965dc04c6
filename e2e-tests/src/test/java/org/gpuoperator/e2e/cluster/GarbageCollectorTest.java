package org.gpuoperator.e2e.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.gpuoperator.e2e.cluster.ReplicaSetEmulatorTest.orphan;
import static org.gpuoperator.e2e.cluster.ReplicaSetEmulatorTest.pod;
import static org.gpuoperator.e2e.cluster.ReplicaSetEmulatorTest.rs;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetBuilder;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

class GarbageCollectorTest {

    @Test
    void theGarbageCollectorTakesDependentsOfDeletedDeploymentsAndReplicaSetsOnly() {
        Deployment d =
                new DeploymentBuilder()
                        .withNewMetadata()
                        .withName("web")
                        .withUid("uid-web")
                        .endMetadata()
                        .build();
        ReplicaSet ofDeployment =
                new ReplicaSetBuilder(rs(1))
                        .editMetadata()
                        .addToOwnerReferences(ReplicaSetEmulator.controllerRef("Deployment", d))
                        .endMetadata()
                        .build();
        ReplicaSet bare = rs(1);
        Pod ofRs = pod("a", "n1", "Running", true, "2026-01-01T00:00:01Z");
        Pod ofDaemonSet =
                new PodBuilder(orphan("ds", "x"))
                        .editMetadata()
                        .addNewOwnerReference()
                        .withKind("DaemonSet")
                        .withUid("gone")
                        .endOwnerReference()
                        .endMetadata()
                        .build();
        Pod plain = orphan("plain", "web");
        List<HasMetadata> all = List.of(ofDeployment, bare, ofRs, ofDaemonSet, plain);
        // everything alive: nothing to collect
        assertThat(
                        GarbageCollector.orphans(
                                all, GarbageCollector.WORKLOAD_OWNERS, Set.of("uid-web", "uid-rs")))
                .isEmpty();
        // the Deployment deleted: its ReplicaSet goes; the ReplicaSet's pods follow once it is gone
        assertThat(
                        GarbageCollector.orphans(
                                all, GarbageCollector.WORKLOAD_OWNERS, Set.of("uid-rs")))
                .containsExactly(ofDeployment);
        assertThat(GarbageCollector.orphans(all, GarbageCollector.WORKLOAD_OWNERS, Set.of()))
                .containsExactly(ofDeployment, ofRs);
    }
}
