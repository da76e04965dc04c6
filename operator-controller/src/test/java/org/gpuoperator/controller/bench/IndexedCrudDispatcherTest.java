package org.gpuoperator.controller.bench;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.jdkhttp.JdkHttpClientFactory;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.gpuoperator.api.v1.ClusterPolicy;
import org.gpuoperator.api.v1.ClusterPolicyStatus;
import org.gpuoperator.controller.reconcile.PodEvictions;
import org.junit.jupiter.api.Test;

/** The benchmark's indexed mock must answer exactly as the stock CRUD mock does. */
class IndexedCrudDispatcherTest {

    @Test
    void answersLikeTheStockDispatcher() throws Exception {
        List<String> stock = script(new KubernetesCrudDispatcher());
        List<String> indexed = script(new IndexedCrudDispatcher());
        assertThat(indexed).isEqualTo(stock);
        // and the script saw what a Kubernetes API server would answer
        assertThat(stock)
                .contains(
                        "get n1 -> {gpu=yes}",
                        "get missing -> null",
                        "pod a/p -> a",
                        "pod b/p -> b",
                        "patch n2 -> {gpu=no, extra=1}",
                        "patch missing -> 404",
                        "status -> ready",
                        "after delete a/p -> null",
                        "b/p still -> b",
                        "duplicate -> 409",
                        "recreated a/p -> a2",
                        "list gpu=yes -> [n1]");
    }

    /**
     * The Eviction API the controller's upgrade calls ({@link PodEvictions#of}): the stock mock has
     * none (it answers 409 and keeps the pod); the indexed one deletes the pod.
     */
    @Test
    void anEvictionDeletesThePodWhereTheStockMockRefusesIt() throws Exception {
        assertThat(evictions(new KubernetesCrudDispatcher(), false))
                .containsExactly("evict a/p -> 409", "a/p after -> a", "b/p after -> b");
        assertThat(evictions(new IndexedCrudDispatcher(), true))
                .containsExactly(
                        "evict a/p -> EVICTED",
                        "a/p after -> null",
                        "b/p after -> b",
                        "evict a/p again -> GONE",
                        "recreated a/p -> a2");
    }

    /** kube-apiserver's paged lists, which the stock mock lacks (it sends every item at once). */
    @Test
    void aListWithALimitComesInPagesAndAPagingInformerGetsEveryItem() throws Exception {
        KubernetesMockServer server = server(new IndexedCrudDispatcher());
        try (KubernetesClient client = client(server)) {
            for (int i = 0; i < 5; i++) {
                client.nodes()
                        .resource(
                                new NodeBuilder()
                                        .withNewMetadata()
                                        .withName("n" + i)
                                        .endMetadata()
                                        .build())
                        .create();
            }
            List<String> pages = new ArrayList<>();
            String next = null;
            do {
                var page =
                        client.nodes()
                                .list(
                                        new io.fabric8.kubernetes.api.model.ListOptionsBuilder()
                                                .withLimit(2L)
                                                .withContinue(next)
                                                .build());
                next = page.getMetadata().getContinue();
                pages.add(
                        page.getItems().stream().map(n -> n.getMetadata().getName()).toList()
                                + " next "
                                + next);
            } while (next != null);
            assertThat(pages)
                    .containsExactly("[n0, n1] next 2", "[n2, n3] next 4", "[n4] next null");
            // without a limit: all at once, as before
            assertThat(client.nodes().list().getItems()).hasSize(5);

            var informer = client.nodes().withLimit(2L).inform();
            try {
                assertThat(informer.getStore().list()).hasSize(5);
            } finally {
                informer.close();
            }
        } finally {
            server.destroy();
        }
    }

    private static List<String> evictions(KubernetesCrudDispatcher dispatcher, boolean indexed)
            throws Exception {
        KubernetesMockServer server = server(dispatcher);
        List<String> seen = new ArrayList<>();
        try (KubernetesClient client = client(server)) {
            for (String ns : List.of("a", "b")) {
                client.pods().inNamespace(ns).resource(pod("p", ns)).create();
            }
            PodEvictions evictions = PodEvictions.of(client);
            try {
                seen.add("evict a/p -> " + evictions.evict("a", "p"));
            } catch (KubernetesClientException e) {
                seen.add("evict a/p -> " + e.getCode());
            }
            seen.add("a/p after -> " + label(client, "a"));
            seen.add("b/p after -> " + label(client, "b"));
            if (indexed) {
                // the stock mock never answers an eviction of a missing pod (it fails inside)
                seen.add("evict a/p again -> " + evictions.evict("a", "p"));
                client.pods().inNamespace("a").resource(pod("p", "a2")).create();
                seen.add("recreated a/p -> " + label(client, "a"));
            }
        } finally {
            server.destroy();
        }
        return seen;
    }

    private static io.fabric8.kubernetes.api.model.Pod pod(String name, String label) {
        return new PodBuilder()
                .withNewMetadata()
                .withName(name)
                .withLabels(Map.of("ns", label))
                .endMetadata()
                .build();
    }

    private static String label(KubernetesClient client, String ns) {
        var p = client.pods().inNamespace(ns).withName("p").get();
        return p == null ? null : p.getMetadata().getLabels().get("ns");
    }

    private static KubernetesMockServer server(KubernetesCrudDispatcher dispatcher) {
        KubernetesMockServer server =
                new KubernetesMockServer(
                        new Context(), new MockWebServer(), new HashMap<>(), dispatcher, false);
        server.init();
        return server;
    }

    private static KubernetesClient client(KubernetesMockServer server) {
        return new KubernetesClientBuilder()
                .withConfig(server.createClient().getConfiguration())
                .withHttpClientFactory(new JdkHttpClientFactory())
                .build();
    }

    private static List<String> script(KubernetesCrudDispatcher dispatcher) throws Exception {
        KubernetesMockServer server = server(dispatcher);
        List<String> seen = new ArrayList<>();
        try (KubernetesClient client = client(server)) {
            try (InputStream in =
                    ClusterPolicy.class.getResourceAsStream(
                            "/META-INF/fabric8/clusterpolicies.nvidia.com-v1.yml")) {
                client.apiextensions().v1().customResourceDefinitions().load(in).create();
            }
            client.nodes()
                    .resource(
                            new NodeBuilder()
                                    .withNewMetadata()
                                    .withName("n1")
                                    .withLabels(Map.of("gpu", "yes"))
                                    .endMetadata()
                                    .build())
                    .create();
            client.nodes()
                    .resource(
                            new NodeBuilder()
                                    .withNewMetadata()
                                    .withName("n2")
                                    .withLabels(Map.of("gpu", "no"))
                                    .endMetadata()
                                    .build())
                    .create();
            for (String ns : List.of("a", "b")) {
                client.pods()
                        .inNamespace(ns)
                        .resource(
                                new PodBuilder()
                                        .withNewMetadata()
                                        .withName("p")
                                        .withLabels(Map.of("ns", ns))
                                        .endMetadata()
                                        .build())
                        .create();
            }
            seen.add("get n1 -> " + client.nodes().withName("n1").get().getMetadata().getLabels());
            seen.add("get missing -> " + client.nodes().withName("missing").get());
            seen.add(
                    "pod a/p -> "
                            + client.pods()
                                    .inNamespace("a")
                                    .withName("p")
                                    .get()
                                    .getMetadata()
                                    .getLabels()
                                    .get("ns"));
            seen.add(
                    "pod b/p -> "
                            + client.pods()
                                    .inNamespace("b")
                                    .withName("p")
                                    .get()
                                    .getMetadata()
                                    .getLabels()
                                    .get("ns"));
            String add = "[{\"op\":\"add\",\"path\":\"/metadata/labels/extra\",\"value\":\"1\"}]";
            seen.add(
                    "patch n2 -> "
                            + new java.util.TreeMap<>(
                                            client.nodes()
                                                    .withName("n2")
                                                    .patch(PatchContext.of(PatchType.JSON), add)
                                                    .getMetadata()
                                                    .getLabels())
                                    .descendingMap());
            seen.add(
                    "patch missing -> "
                            + code(
                                    () ->
                                            client.nodes()
                                                    .withName("missing")
                                                    .patch(PatchContext.of(PatchType.JSON), add)));
            ClusterPolicy policy = new ClusterPolicy();
            policy.setMetadata(
                    new io.fabric8.kubernetes.api.model.ObjectMetaBuilder().withName("cp").build());
            client.resource(policy).create();
            ClusterPolicyStatus status = new ClusterPolicyStatus();
            status.setState(org.gpuoperator.api.v1.State.READY);
            policy.setStatus(status);
            client.resource(policy).patchStatus();
            seen.add(
                    "status -> "
                            + client.resources(ClusterPolicy.class)
                                    .withName("cp")
                                    .get()
                                    .getStatus()
                                    .getState()
                                    .toString()
                                    .toLowerCase());
            client.pods().inNamespace("a").withName("p").withGracePeriod(0).delete();
            seen.add("after delete a/p -> " + client.pods().inNamespace("a").withName("p").get());
            seen.add(
                    "b/p still -> "
                            + client.pods()
                                    .inNamespace("b")
                                    .withName("p")
                                    .get()
                                    .getMetadata()
                                    .getLabels()
                                    .get("ns"));
            seen.add(
                    "duplicate -> "
                            + code(
                                    () ->
                                            client.pods()
                                                    .inNamespace("b")
                                                    .resource(
                                                            new PodBuilder()
                                                                    .withNewMetadata()
                                                                    .withName("p")
                                                                    .endMetadata()
                                                                    .build())
                                                    .create()));
            client.pods()
                    .inNamespace("a")
                    .resource(
                            new PodBuilder()
                                    .withNewMetadata()
                                    .withName("p")
                                    .withLabels(Map.of("ns", "a2"))
                                    .endMetadata()
                                    .build())
                    .create();
            seen.add(
                    "recreated a/p -> "
                            + client.pods()
                                    .inNamespace("a")
                                    .withName("p")
                                    .get()
                                    .getMetadata()
                                    .getLabels()
                                    .get("ns"));
            seen.add(
                    "list gpu=yes -> "
                            + client.nodes().withLabel("gpu", "yes").list().getItems().stream()
                                    .map(n -> n.getMetadata().getName())
                                    .toList());
        } finally {
            server.destroy();
        }
        return seen;
    }

    private static int code(Supplier<?> call) {
        try {
            call.get();
            return 200;
        } catch (KubernetesClientException e) {
            return e.getCode();
        }
    }
}
