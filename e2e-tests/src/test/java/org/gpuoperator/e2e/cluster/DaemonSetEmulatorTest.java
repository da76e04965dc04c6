package org.gpuoperator.e2e.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.DaemonSetBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DaemonSetEmulatorTest {

    private static final String NS = "gpu-operator";

    @TempDir Path work;

    private ApiServer api;
    private KubernetesClient client;
    private DaemonSetEmulator emulator;
    private final List<String> events = new ArrayList<>();

    @BeforeEach
    void start() throws Exception {
        Files.createDirectories(work.resolve("crds"));
        api = ApiServer.start(work.resolve("crds"), work, NS);
        client = api.client();
        emulator = new DaemonSetEmulator(client, NS, events::add);
    }

    @AfterEach
    void stop() {
        api.close();
    }

    private void node(String name, String... labels) {
        NodeBuilder b = new NodeBuilder().withNewMetadata().withName(name).endMetadata();
        for (int i = 0; i < labels.length; i += 2) {
            b.editMetadata().addToLabels(labels[i], labels[i + 1]).endMetadata();
        }
        client.nodes().resource(b.build()).create();
    }

    private DaemonSet ds(String image, String strategy) {
        return new DaemonSetBuilder()
                .withNewMetadata()
                .withName("nvidia-device-plugin-daemonset")
                .withNamespace(NS)
                .endMetadata()
                .withNewSpec()
                .withNewSelector()
                .addToMatchLabels("app", "dp")
                .endSelector()
                .withNewUpdateStrategy()
                .withType(strategy)
                .endUpdateStrategy()
                .withNewTemplate()
                .withNewMetadata()
                .addToLabels("app", "dp")
                .endMetadata()
                .withNewSpec()
                .addToNodeSelector("nvidia.com/gpu.deploy.device-plugin", "true")
                .addNewContainer()
                .withName("main")
                .withImage(image)
                .endContainer()
                .endSpec()
                .endTemplate()
                .endSpec()
                .build();
    }

    private void sync() {
        emulator.sync(
                client.apps().daemonSets().inNamespace(NS).list().getItems(),
                client.nodes().list().getItems(),
                client.pods().inNamespace(NS).list().getItems());
    }

    private List<Pod> pods() {
        return client.pods().inNamespace(NS).list().getItems();
    }

    private void markAllReady() {
        for (Pod p : pods()) {
            client.pods()
                    .inNamespace(NS)
                    .withName(p.getMetadata().getName())
                    .editStatus(
                            x -> {
                                x.getStatus()
                                        .setConditions(
                                                List.of(
                                                        new io.fabric8.kubernetes.api.model
                                                                        .PodConditionBuilder()
                                                                .withType("Ready")
                                                                .withStatus("True")
                                                                .build()));
                                return x;
                            });
        }
    }

    @Test
    void placesOnePodPerMatchingNodeAndFollowsLabelChanges() {
        node("a", "nvidia.com/gpu.deploy.device-plugin", "true");
        node("b", "nvidia.com/gpu.deploy.device-plugin", "true");
        node("cpu");
        client.apps().daemonSets().inNamespace(NS).resource(ds("img:1", "RollingUpdate")).create();
        sync();
        sync();
        assertThat(pods())
                .extracting(p -> p.getSpec().getNodeName())
                .containsExactlyInAnyOrder("a", "b");

        client.nodes()
                .withName("b")
                .edit(
                        n -> {
                            n.getMetadata()
                                    .getLabels()
                                    .remove("nvidia.com/gpu.deploy.device-plugin");
                            return n;
                        });
        sync();
        assertThat(pods()).extracting(p -> p.getSpec().getNodeName()).containsExactly("a");
        DaemonSet status =
                client.apps()
                        .daemonSets()
                        .inNamespace(NS)
                        .withName("nvidia-device-plugin-daemonset")
                        .get();
        assertThat(status.getStatus().getDesiredNumberScheduled()).isEqualTo(1);
    }

    @Test
    void rollingUpdateReplacesOnePodAtATimeAndOnDeleteReplacesNone() {
        for (String n : List.of("a", "b", "c")) {
            node(n, "nvidia.com/gpu.deploy.device-plugin", "true");
        }
        client.apps().daemonSets().inNamespace(NS).resource(ds("img:1", "RollingUpdate")).create();
        sync();
        markAllReady();
        sync();
        String v1 = pods().get(0).getMetadata().getLabels().get(DaemonSetEmulator.REVISION_LABEL);

        client.apps()
                .daemonSets()
                .inNamespace(NS)
                .withName("nvidia-device-plugin-daemonset")
                .edit(
                        d -> {
                            d.getSpec()
                                    .getTemplate()
                                    .getSpec()
                                    .getContainers()
                                    .get(0)
                                    .setImage("img:2");
                            return d;
                        });
        sync(); // deletes one outdated pod (maxUnavailable 1)
        assertThat(pods()).hasSize(2);
        sync(); // recreates it with the new template; the others wait until it is ready
        assertThat(pods()).hasSize(3);
        assertThat(pods())
                .filteredOn(
                        p ->
                                !v1.equals(
                                        p.getMetadata()
                                                .getLabels()
                                                .get(DaemonSetEmulator.REVISION_LABEL)))
                .hasSize(1);
        sync();
        assertThat(pods()).hasSize(3); // the new pod is not ready yet: no second replacement

        DaemonSet od = ds("img:1", "OnDelete");
        od.getMetadata().setName("nvidia-driver-daemonset");
        client.apps().daemonSets().inNamespace(NS).resource(od).create();
        sync();
        client.apps()
                .daemonSets()
                .inNamespace(NS)
                .withName("nvidia-driver-daemonset")
                .edit(
                        d -> {
                            d.getSpec()
                                    .getTemplate()
                                    .getSpec()
                                    .getContainers()
                                    .get(0)
                                    .setImage("img:2");
                            return d;
                        });
        int before = pods().size();
        sync();
        sync();
        assertThat(pods()).hasSize(before);
    }

    @Test
    void aRequiredNodeAffinityKeepsThePodsOffNodesItExcludesAndTakesThemOffANodeThatStopsFitting() {
        node("a", "nvidia.com/gpu.deploy.device-plugin", "true");
        node(
                "b",
                "nvidia.com/gpu.deploy.device-plugin",
                "true",
                "nvidia.com/gpu.driver-pool",
                "default-ubuntu22.04-0123abcd");
        DaemonSet ds = ds("img:1", "OnDelete");
        ds.getSpec()
                .getTemplate()
                .getSpec()
                .setAffinity(
                        new io.fabric8.kubernetes.api.model.AffinityBuilder()
                                .withNewNodeAffinity()
                                .withNewRequiredDuringSchedulingIgnoredDuringExecution()
                                .addNewNodeSelectorTerm()
                                .addToMatchExpressions(
                                        new io.fabric8.kubernetes.api.model.NodeSelectorRequirement(
                                                "nvidia.com/gpu.driver-pool", "DoesNotExist", null))
                                .endNodeSelectorTerm()
                                .endRequiredDuringSchedulingIgnoredDuringExecution()
                                .endNodeAffinity()
                                .build());
        client.resource(ds).create();
        sync();
        assertThat(pods()).extracting(p -> p.getSpec().getNodeName()).containsExactly("a");

        client.nodes()
                .withName("a")
                .edit(
                        n -> {
                            n.getMetadata().getLabels().put("nvidia.com/gpu.driver-pool", "p");
                            return n;
                        });
        sync();
        assertThat(pods()).allMatch(p -> p.getMetadata().getDeletionTimestamp() != null);
    }

    /**
     * Deletes the DaemonSet with orphan propagation through the front, as the controller and
     * kubectl reach the API server.
     */
    private void deleteOrphaningItsPods() throws Exception {
        try (KubernetesClient front =
                new io.fabric8.kubernetes.client.KubernetesClientBuilder()
                        .withConfig(
                                io.fabric8.kubernetes.client.Config.fromKubeconfig(
                                        Files.readString(api.kubeconfig())))
                        .build()) {
            front.apps()
                    .daemonSets()
                    .inNamespace(NS)
                    .withName("nvidia-device-plugin-daemonset")
                    .withPropagationPolicy(
                            io.fabric8.kubernetes.api.model.DeletionPropagation.ORPHAN)
                    .delete();
        }
    }

    @Test
    void deletedWithOrphanPropagationItsPodsStayWithoutTheOwnerReferenceAndNoPassRemovesThem()
            throws Exception {
        node("a", "nvidia.com/gpu.deploy.device-plugin", "true");
        client.resource(ds("img:1", "OnDelete")).create();
        sync();
        assertThat(pods()).hasSize(1);

        deleteOrphaningItsPods();
        sync();
        sync();
        assertThat(pods())
                .singleElement()
                .satisfies(
                        p -> {
                            assertThat(p.getMetadata().getDeletionTimestamp()).isNull();
                            assertThat(p.getMetadata().getOwnerReferences()).isNullOrEmpty();
                        });
    }

    @Test
    void anOrphaningDeleteMarksTheDaemonSetBeforeItsPodsLoseTheirOwnerSoNoPassReplacesThem()
            throws Exception {
        node("a", "nvidia.com/gpu.deploy.device-plugin", "true");
        client.resource(ds("img:1", "OnDelete")).create();
        sync();
        String podName = pods().getFirst().getMetadata().getName();
        List<String> seen = new java.util.concurrent.CopyOnWriteArrayList<>();
        long[] markedAt = {-1};
        try (var watch =
                client.apps()
                        .daemonSets()
                        .inNamespace(NS)
                        .watch(
                                new io.fabric8.kubernetes.client.Watcher<DaemonSet>() {
                                    @Override
                                    public void eventReceived(Action action, DaemonSet d) {
                                        boolean marked =
                                                d.getMetadata().getDeletionTimestamp() != null;
                                        if (marked && markedAt[0] < 0) {
                                            markedAt[0] =
                                                    Long.parseLong(
                                                            d.getMetadata().getResourceVersion());
                                        }
                                        seen.add(
                                                action
                                                        + " "
                                                        + d.getMetadata().getFinalizers()
                                                        + (marked ? " marked" : ""));
                                    }

                                    @Override
                                    public void onClose(
                                            io.fabric8.kubernetes.client.WatcherException e) {}
                                })) {
            deleteOrphaningItsPods();
            org.awaitility.Awaitility.await()
                    .atMost(java.time.Duration.ofSeconds(10))
                    .until(() -> seen.stream().anyMatch(e -> e.startsWith("DELETED")));
        }
        // as the API server does it: the orphan finalizer, the mark, then the owner goes
        assertThat(seen).containsSubsequence("MODIFIED [orphan]", "MODIFIED [orphan] marked");
        assertThat(seen.getLast()).startsWith("DELETED");
        assertThat(dsNow()).isNull();
        // the pod lost its owner after the mark (one version counter for every object): no pass
        // saw it without an owner while its DaemonSet was live, and none replaces it now
        Pod pod = pods().getFirst();
        assertThat(pod.getMetadata().getOwnerReferences()).isNullOrEmpty();
        assertThat(Long.parseLong(pod.getMetadata().getResourceVersion()))
                .isGreaterThan(markedAt[0]);
        sync();
        assertThat(pods())
                .singleElement()
                .satisfies(p -> assertThat(p.getMetadata().getName()).isEqualTo(podName));
    }

    private DaemonSet dsNow() {
        return client.apps()
                .daemonSets()
                .inNamespace(NS)
                .withName("nvidia-device-plugin-daemonset")
                .get();
    }

    @Test
    void aPassWhosePodListPredatesTheOrphaningKeepsThePod() throws Exception {
        node("a", "nvidia.com/gpu.deploy.device-plugin", "true");
        client.resource(ds("img:1", "OnDelete")).create();
        sync();
        // the pod as a pass's list saw it just before the delete: still with its owner reference
        List<Pod> before = pods();
        assertThat(before.get(0).getMetadata().getOwnerReferences()).hasSize(1);
        deleteOrphaningItsPods();
        // a newer DaemonSet list (it is gone) with the older pod list
        emulator.sync(
                client.apps().daemonSets().inNamespace(NS).list().getItems(),
                client.nodes().list().getItems(),
                before);
        assertThat(pods())
                .singleElement()
                .satisfies(p -> assertThat(p.getMetadata().getDeletionTimestamp()).isNull());
        assertThat(events).noneMatch(e -> e.contains("its DaemonSet was deleted"));
    }

    @Test
    void deletedWithBackgroundPropagationItsPodsGo() {
        node("a", "nvidia.com/gpu.deploy.device-plugin", "true");
        client.resource(ds("img:1", "OnDelete")).create();
        sync();
        client.apps()
                .daemonSets()
                .inNamespace(NS)
                .withName("nvidia-device-plugin-daemonset")
                .delete();
        sync();
        assertThat(pods()).allMatch(p -> p.getMetadata().getDeletionTimestamp() != null);
    }
}
