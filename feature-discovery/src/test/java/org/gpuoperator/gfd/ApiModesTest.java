package org.gpuoperator.gfd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.TreeMap;
import org.gpuoperator.gfd.publish.LabelPublisher;
import org.gpuoperator.gfd.publish.MockApi;
import org.gpuoperator.gfd.publish.NodeFeaturePublisher;
import org.gpuoperator.gfd.publish.NodeLabelPublisher;
import org.gpuoperator.gfd.publish.PublishException;
import org.gpuoperator.node.agent.EventLog;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/** Which API publisher is chosen before and after NFD's CRD exists, and {@code cleanup}. */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ApiModesTest {

    private static final String NS = "gpu-operator";
    private static final String NODE = "gpu-node-3";

    static MockApi api;
    static KubernetesClient client;
    private final EventLog log =
            new EventLog(
                    "feature-discovery",
                    new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8));

    @BeforeAll
    static void startApi() {
        api = new MockApi();
        client = api.client();
        client.namespaces()
                .resource(
                        new NamespaceBuilder().withNewMetadata().withName(NS).endMetadata().build())
                .create();
        client.nodes()
                .resource(
                        new NodeBuilder()
                                .withNewMetadata()
                                .withName(NODE)
                                .withLabels(Map.of("nvidia.com/gpu.present", "true"))
                                .endMetadata()
                                .build())
                .create();
    }

    @AfterAll
    static void stopApi() {
        api.close();
    }

    @Test
    @Order(1)
    void withoutNfdTheNodeIsLabelledDirectly() {
        LabelPublisher auto =
                PublisherChoice.choose(client, Settings.NodeFeatureApi.AUTO, NS, null, NODE, log);

        assertThat(auto).isInstanceOf(NodeLabelPublisher.class);
        assertThat(auto.target()).isEqualTo("node/" + NODE);
        assertThatThrownBy(
                        () ->
                                PublisherChoice.choose(
                                        client, Settings.NodeFeatureApi.TRUE, NS, null, NODE, log))
                .isInstanceOf(PublishException.class)
                .hasMessageContaining("nfd.k8s-sigs.io/v1alpha1");

        TreeMap<String, String> labels =
                new TreeMap<>(Map.of("nvidia.com/gpu.count", "2", "nvidia.com/gfd.timestamp", "1"));
        auto.publish(labels);
        assertThat(client.nodes().withName(NODE).get().getMetadata().getLabels())
                .containsAllEntriesOf(labels);
    }

    @Test
    @Order(2)
    void withNfdTheNodeFeatureObjectIsUsedUnlessTurnedOff() {
        client.apiextensions()
                .v1()
                .customResourceDefinitions()
                .resource(MockApi.nodeFeatureCrd())
                .create();

        LabelPublisher auto =
                PublisherChoice.choose(client, Settings.NodeFeatureApi.AUTO, NS, null, NODE, log);
        assertThat(auto).isInstanceOf(NodeFeaturePublisher.class);
        assertThat(auto.target()).isEqualTo("nodefeature/" + NS + "/nvidia-features-for-" + NODE);
        assertThat(
                        PublisherChoice.choose(
                                client, Settings.NodeFeatureApi.FALSE, NS, null, NODE, log))
                .isInstanceOf(NodeLabelPublisher.class);

        auto.publish(new TreeMap<>(Map.of("nvidia.com/gpu.count", "2")));
        assertThat(
                        client.genericKubernetesResources(
                                        NodeFeaturePublisher.API_VERSION, NodeFeaturePublisher.KIND)
                                .inNamespace(NS)
                                .withName("nvidia-features-for-" + NODE)
                                .get())
                .isNotNull();
    }

    @Test
    @Order(3)
    void cleanupRemovesItsNodeLabelsAndTheNodeFeatureObjectOnly() {
        int rc = CleanupCommand.run(client, NODE, NS, log);

        assertThat(rc).isZero();
        assertThat(client.nodes().withName(NODE).get().getMetadata().getLabels())
                .isEqualTo(Map.of("nvidia.com/gpu.present", "true"));
        assertThat(
                        client.genericKubernetesResources(
                                        NodeFeaturePublisher.API_VERSION, NodeFeaturePublisher.KIND)
                                .inNamespace(NS)
                                .withName("nvidia-features-for-" + NODE)
                                .get())
                .isNull();
    }
}
