package org.gpuoperator.e2e.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.gpuoperator.e2e.cluster.ReplicaSetEmulatorTest.orphan;
import static org.gpuoperator.e2e.cluster.ReplicaSetEmulatorTest.pod;
import static org.gpuoperator.e2e.cluster.ReplicaSetEmulatorTest.rs;

import io.fabric8.kubernetes.api.model.DeletionPropagation;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.DaemonSetBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetBuilder;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

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

    @Test
    void anOperandDaemonSetGoesWithItsClusterPolicyOrNvidiaDriverOnly() {
        DaemonSet ofPolicy = daemonSet("nvidia-device-plugin-daemonset", "ClusterPolicy", "uid-cp");
        DaemonSet ofDriver = daemonSet("nvidia-gpu-driver-ubuntu22.04-1", "NVIDIADriver", "uid-d");
        List<HasMetadata> all = List.of(ofPolicy, ofDriver);
        Set<String> kinds = Set.of("ClusterPolicy", "NVIDIADriver");
        assertThat(GarbageCollector.orphans(all, kinds, Set.of("uid-cp", "uid-d"))).isEmpty();
        assertThat(GarbageCollector.orphans(all, kinds, Set.of("uid-cp")))
                .as("the NVIDIADriver deleted")
                .containsExactly(ofDriver);
        assertThat(GarbageCollector.orphans(all, Set.of("ClusterPolicy"), Set.of("uid-cp")))
                .as("without the NVIDIADriver CRD: what NVIDIADrivers own is left alone")
                .isEmpty();
    }

    /**
     * A pass whose pod list predates an orphaning delete of the pod's ReplicaSet still shows the
     * owner reference; the collector decides on the pod as the API server has it now, so it stays.
     * A ReplicaSet deleted in the background (the reference kept) takes its pod.
     */
    @Test
    void aPodListThatPredatesTheOrphaningKeepsThePodAndABackgroundDeleteTakesIt(@TempDir Path work)
            throws Exception {
        Files.createDirectories(work.resolve("crds"));
        try (ApiServer api = ApiServer.start(work.resolve("crds"), work, "gpu-operator");
                KubernetesClient front =
                        new KubernetesClientBuilder()
                                .withConfig(
                                        Config.fromKubeconfig(Files.readString(api.kubeconfig())))
                                .build()) {
            KubernetesClient client = api.client();
            List<String> events = new ArrayList<>();
            GarbageCollector gc = new GarbageCollector(client, "gpu-operator", events::add);
            for (String name : List.of("kept", "taken")) {
                ReplicaSet rs =
                        client.resource(
                                        new ReplicaSetBuilder(rs(1))
                                                .editMetadata()
                                                .withName(name)
                                                .withUid(null)
                                                .endMetadata()
                                                .build())
                                .create();
                client.resource(
                                new PodBuilder(orphan(name + "-pod", "web"))
                                        .editMetadata()
                                        .withUid(null)
                                        .addToOwnerReferences(
                                                ReplicaSetEmulator.controllerRef("ReplicaSet", rs))
                                        .endMetadata()
                                        .build())
                        .create();
            }
            List<Pod> before = client.pods().inNamespace("default").list().getItems();
            front.apps()
                    .replicaSets()
                    .inNamespace("default")
                    .withName("kept")
                    .withPropagationPolicy(DeletionPropagation.ORPHAN)
                    .delete();
            front.apps().replicaSets().inNamespace("default").withName("taken").delete();

            // the ReplicaSets' newer view (both gone) with the older pod list
            gc.syncWorkloads(List.of(), List.of(), before);

            assertThat(client.pods().inNamespace("default").list().getItems())
                    .filteredOn(p -> p.getMetadata().getDeletionTimestamp() == null)
                    .extracting(p -> p.getMetadata().getName())
                    .containsExactly("kept-pod");
            assertThat(events)
                    .containsExactly(
                            "garbage collector: deleted Pod default/taken-pod (its ReplicaSet is"
                                    + " gone)");
        }
    }

    private static DaemonSet daemonSet(String name, String ownerKind, String ownerUid) {
        return new DaemonSetBuilder()
                .withNewMetadata()
                .withName(name)
                .withNamespace("gpu-operator")
                .addNewOwnerReference()
                .withKind(ownerKind)
                .withName("owner")
                .withUid(ownerUid)
                .withController(true)
                .endOwnerReference()
                .endMetadata()
                .build();
    }
}
