package org.gpuoperator.gfd.publish;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Path;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import org.gpuoperator.gfd.labels.GfdLabels;
import org.gpuoperator.gfd.labels.LabelConfig;
import org.gpuoperator.gfd.labels.NodeFacts;
import org.gpuoperator.gfd.labels.Sharing;
import org.gpuoperator.node.deviceconfig.MigStrategy;
import org.gpuoperator.node.inventory.GpuInventory;
import org.gpuoperator.node.inventory.GpuSourceOptions;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Direct node labelling against the fabric8 mock API server (CRUD mode). */
class NodeLabelPublisherTest {

    static MockApi api;
    static KubernetesClient client;

    @BeforeAll
    static void startApi() {
        api = new MockApi();
        client = api.client();
    }

    @AfterAll
    static void stopApi() {
        api.close();
    }

    private static final String NODE = "gpu-node-1";
    private static final Instant TS = Instant.ofEpochSecond(1_724_632_719L);

    @TempDir Path hostRoot;

    /**
     * Labels and an annotation that belong to others: the controller, NFD, the MIG manager, a user.
     */
    private static final Map<String, String> FOREIGN =
            Map.of(
                    "kubernetes.io/hostname", NODE,
                    "feature.node.kubernetes.io/pci-10de.present", "true",
                    "nvidia.com/gpu.present", "true",
                    "nvidia.com/gpu.deploy.gpu-feature-discovery", "true",
                    "nvidia.com/gpu.deploy.driver", "pre-installed",
                    "nvidia.com/mig.config", "all-1g.5gb",
                    "nvidia.com/device-plugin.config", "a100",
                    "team", "ml");

    @BeforeEach
    void createNode() {
        client.nodes().withName(NODE).delete();
        client.nodes()
                .resource(
                        new NodeBuilder()
                                .withNewMetadata()
                                .withName(NODE)
                                .withLabels(FOREIGN)
                                .withAnnotations(Map.of("node.alpha.kubernetes.io/ttl", "0"))
                                .endMetadata()
                                .build())
                .create();
    }

    private SortedMap<String, String> labelsOf(String profile, MigStrategy mig) {
        try (GpuInventory inv =
                GpuSourceOptions.of("simulated:" + profile, hostRoot, NODE).open()) {
            NodeFacts facts =
                    new NodeFacts(
                            inv.node(), inv.gpus(), Optional.of("DGX H100"), java.util.List.of());
            return GfdLabels.compute(
                    facts, new LabelConfig(mig, Sharing.NONE), Optional.of(TS), w -> {});
        }
    }

    private Node node() {
        return client.nodes().withName(NODE).get();
    }

    @Test
    void labelsAppearOnTheNodeNextToForeignLabels() {
        SortedMap<String, String> labels = labelsOf("h100-80gb-x8", MigStrategy.NONE);

        LabelPublisher.Outcome outcome = new NodeLabelPublisher(client, NODE).publish(labels);

        assertThat(outcome.written()).isTrue();
        assertThat(outcome.set()).isEqualTo(labels.size());
        Map<String, String> onNode = node().getMetadata().getLabels();
        assertThat(onNode)
                .containsAllEntriesOf(labels)
                .containsAllEntriesOf(FOREIGN)
                .hasSize(labels.size() + FOREIGN.size());
        assertThat(onNode)
                .containsEntry("nvidia.com/gpu.product", "NVIDIA-H100-80GB-HBM3")
                .containsEntry("nvidia.com/gpu.machine", "DGX-H100");
        assertThat(node().getMetadata().getAnnotations())
                .containsEntry(
                        NodeLabelPublisher.OWNED_KEYS_ANNOTATION, String.join(",", labels.keySet()))
                .containsEntry("node.alpha.kubernetes.io/ttl", "0");
    }

    @Test
    void staleLabelsAreRemovedWhenTheInventoryChanges() {
        NodeLabelPublisher publisher = new NodeLabelPublisher(client, NODE);
        SortedMap<String, String> mixed = labelsOf("a100-40gb-x8-mig-mixed", MigStrategy.MIXED);
        publisher.publish(mixed);
        assertThat(node().getMetadata().getLabels())
                .containsKey("nvidia.com/mig-1g.5gb.count")
                .containsEntry("nvidia.com/mig.strategy", "mixed");

        // MIG turned off and the strategy back to none: every mig-* and mig.strategy label must go.
        SortedMap<String, String> plain = labelsOf("a100-40gb-x8", MigStrategy.NONE);
        LabelPublisher.Outcome outcome = publisher.publish(plain);

        Map<String, String> onNode = node().getMetadata().getLabels();
        assertThat(onNode.keySet())
                .noneMatch(k -> k.startsWith("nvidia.com/mig-"))
                .doesNotContain("nvidia.com/mig.strategy");
        assertThat(onNode)
                .containsAllEntriesOf(plain)
                .containsAllEntriesOf(FOREIGN)
                .hasSize(plain.size() + FOREIGN.size());
        assertThat(outcome.removed())
                .isEqualTo(mixed.keySet().stream().filter(k -> !plain.containsKey(k)).count());

        // Every GPU gone: only the timestamp stays, the foreign labels are untouched.
        SortedMap<String, String> none = new TreeMap<>(Map.of(GfdLabels.TIMESTAMP, "1724632719"));
        publisher.publish(none);
        Map<String, String> expected = new TreeMap<>(FOREIGN);
        expected.putAll(none);
        assertThat(node().getMetadata().getLabels()).isEqualTo(expected);
    }

    @Test
    void switchingProfilesReplacesTheProductLabels() {
        NodeLabelPublisher publisher = new NodeLabelPublisher(client, NODE);
        publisher.publish(labelsOf("h100-80gb-x8", MigStrategy.NONE));
        SortedMap<String, String> t4 = labelsOf("t4-x1", MigStrategy.NONE);
        publisher.publish(t4);

        Map<String, String> onNode = node().getMetadata().getLabels();
        assertThat(onNode)
                .containsEntry("nvidia.com/gpu.product", "Tesla-T4")
                .containsEntry("nvidia.com/gpu.count", "1")
                .containsEntry("nvidia.com/mig.capable", "false")
                .containsEntry("nvidia.com/cuda.driver-version.full", "535.161.08");
        assertThat(onNode).hasSize(t4.size() + FOREIGN.size());
    }

    @Test
    void aSecondPublishOfTheSameLabelsWritesNothing() {
        NodeLabelPublisher publisher = new NodeLabelPublisher(client, NODE);
        SortedMap<String, String> labels = labelsOf("l4-x2", MigStrategy.NONE);
        publisher.publish(labels);
        String version = node().getMetadata().getResourceVersion();

        LabelPublisher.Outcome again = publisher.publish(labels);

        assertThat(again).isEqualTo(LabelPublisher.Outcome.UNCHANGED);
        assertThat(node().getMetadata().getResourceVersion()).isEqualTo(version);
    }

    @Test
    void foreignKeysSmuggledIntoTheOwnershipAnnotationAreNotRemoved() {
        client.nodes()
                .withName(NODE)
                .edit(
                        n ->
                                new NodeBuilder(n)
                                        .editMetadata()
                                        .addToAnnotations(
                                                NodeLabelPublisher.OWNED_KEYS_ANNOTATION,
                                                "nvidia.com/gpu.present,nvidia.com/gpu.deploy.driver,team,nvidia.com/gpu.count")
                                        .addToLabels("nvidia.com/gpu.count", "3")
                                        .endMetadata()
                                        .build());

        new NodeLabelPublisher(client, NODE)
                .publish(new TreeMap<>(Map.of(GfdLabels.TIMESTAMP, "1")));

        assertThat(node().getMetadata().getLabels())
                .containsAllEntriesOf(FOREIGN)
                .doesNotContainKey("nvidia.com/gpu.count");
    }

    @Test
    void aMissingNodeIsNamedInTheError() {
        assertThatThrownBy(
                        () ->
                                new NodeLabelPublisher(client, "no-such-node")
                                        .publish(new TreeMap<>()))
                .isInstanceOf(PublishException.class)
                .hasMessageContaining("no-such-node");
    }
}
