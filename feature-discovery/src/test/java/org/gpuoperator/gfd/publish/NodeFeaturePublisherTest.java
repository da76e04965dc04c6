package org.gpuoperator.gfd.publish;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.NamespaceBuilder;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The NodeFeature path against the fabric8 mock API server, before and after NFD's CRD is
 * installed.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class NodeFeaturePublisherTest {

    private static final String NS = "gpu-operator";
    private static final String NODE = "gpu-node-2";

    static MockApi api;
    static KubernetesClient client;

    @BeforeAll
    static void startApi() {
        api = new MockApi();
        client = api.client();
        client.namespaces()
                .resource(
                        new NamespaceBuilder().withNewMetadata().withName(NS).endMetadata().build())
                .create();
        client.nodes()
                .resource(new NodeBuilder().withNewMetadata().withName(NODE).endMetadata().build())
                .create();
    }

    @AfterAll
    static void stopApi() {
        api.close();
    }

    private static SortedMap<String, String> labels(String... kv) {
        SortedMap<String, String> m = new TreeMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put(kv[i], kv[i + 1]);
        }
        return m;
    }

    private static GenericKubernetesResource object() {
        return client.genericKubernetesResources(
                        NodeFeaturePublisher.API_VERSION, NodeFeaturePublisher.KIND)
                .inNamespace(NS)
                .withName("nvidia-features-for-" + NODE)
                .get();
    }

    @Test
    @Order(1)
    void withoutTheCrdTheApiIsNotServedAndTheNodeIsLabelledDirectly() {
        assertThat(NodeFeaturePublisher.apiServed(client)).isFalse();
    }

    @Test
    @Order(2)
    void withTheCrdTheObjectIsCreatedForTheNode() {
        client.apiextensions()
                .v1()
                .customResourceDefinitions()
                .resource(MockApi.nodeFeatureCrd())
                .create();
        assertThat(NodeFeaturePublisher.apiServed(client)).isTrue();

        SortedMap<String, String> l =
                labels(
                        "nvidia.com/gpu.product",
                        "Tesla-T4",
                        "nvidia.com/gpu.count",
                        "1",
                        "nvidia.com/cuda.driver.rev",
                        "");
        LabelPublisher.Outcome outcome =
                new NodeFeaturePublisher(client, NS, NODE, List.of()).publish(l);

        assertThat(outcome).isEqualTo(new LabelPublisher.Outcome(true, 3, 0));
        GenericKubernetesResource nf = object();
        assertThat(nf).isNotNull();
        assertThat(nf.getMetadata().getLabels())
                .isEqualTo(Map.of("nfd.node.kubernetes.io/node-name", NODE));
        assertThat(NodeFeaturePublisher.specLabels(nf)).isEqualTo(l);
        @SuppressWarnings("unchecked")
        Map<String, Object> spec = (Map<String, Object>) nf.getAdditionalProperties().get("spec");
        assertThat(spec).containsKey("features");
        // The node itself is left to NFD.
        assertThat(client.nodes().withName(NODE).get().getMetadata().getLabels()).isNullOrEmpty();
    }

    @Test
    @Order(3)
    void anUnchangedSetWritesNothingAndAChangedSetReplacesTheLabels() throws Exception {
        NodeFeaturePublisher publisher = new NodeFeaturePublisher(client, NS, NODE, List.of());
        SortedMap<String, String> first =
                labels(
                        "nvidia.com/gpu.product",
                        "Tesla-T4",
                        "nvidia.com/gpu.count",
                        "1",
                        "nvidia.com/cuda.driver.rev",
                        "");
        publisher.publish(first);
        String version = object().getMetadata().getResourceVersion();

        assertThat(publisher.publish(first)).isEqualTo(LabelPublisher.Outcome.UNCHANGED);
        assertThat(object().getMetadata().getResourceVersion()).isEqualTo(version);
        // a new client's first publish: one read, no API discovery (the publisher names the
        // resource itself; fabric8 would look its kind up, first among every model class it has)
        try (KubernetesClient fresh =
                new KubernetesClientBuilder().withConfig(client.getConfiguration()).build()) {
            api.takeRequests();
            assertThat(new NodeFeaturePublisher(fresh, NS, NODE, List.of()).publish(first))
                    .isEqualTo(LabelPublisher.Outcome.UNCHANGED);
            assertThat(api.takeRequests())
                    .containsExactly(
                            "GET /apis/nfd.k8s-sigs.io/v1alpha1/namespaces/"
                                    + NS
                                    + "/nodefeatures/nvidia-features-for-"
                                    + NODE);
        }

        SortedMap<String, String> second =
                labels("nvidia.com/gpu.product", "NVIDIA-L4", "nvidia.com/gpu.count", "2");
        LabelPublisher.Outcome outcome = publisher.publish(second);

        assertThat(outcome).isEqualTo(new LabelPublisher.Outcome(true, 2, 1));
        assertThat(NodeFeaturePublisher.specLabels(object())).isEqualTo(second);
    }

    @Test
    @Order(4)
    void theDaemonSetAndPodOwnTheObjectWhenThePodIsKnown() {
        String podUid =
                client.pods()
                        .inNamespace(NS)
                        .resource(
                                new PodBuilder()
                                        .withNewMetadata()
                                        .withName("gfd-abcde")
                                        .addNewOwnerReference()
                                        .withApiVersion("apps/v1")
                                        .withKind("DaemonSet")
                                        .withName("gpu-feature-discovery")
                                        .withUid("ds-uid")
                                        .withController(true)
                                        .endOwnerReference()
                                        .endMetadata()
                                        .build())
                        .create()
                        .getMetadata()
                        .getUid();

        List<OwnerReference> owners =
                NodeFeaturePublisher.ownerReferencesOf(client, NS, "gfd-abcde");
        new NodeFeaturePublisher(client, NS, NODE, owners)
                .publish(labels("nvidia.com/gpu.count", "2"));

        List<OwnerReference> refs = object().getMetadata().getOwnerReferences();
        assertThat(refs)
                .extracting(
                        OwnerReference::getKind, OwnerReference::getName, OwnerReference::getUid)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple(
                                "DaemonSet", "gpu-feature-discovery", "ds-uid"),
                        org.assertj.core.groups.Tuple.tuple("Pod", "gfd-abcde", podUid));
        assertThat(refs.getFirst().getController()).isTrue();
        assertThat(NodeFeaturePublisher.ownerReferencesOf(client, NS, "no-such-pod")).isEmpty();
    }
}
