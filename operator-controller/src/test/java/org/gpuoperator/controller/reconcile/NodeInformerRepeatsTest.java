package org.gpuoperator.controller.reconcile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeStatus;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.jdkhttp.JdkHttpClientFactory;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/**
 * fabric8's own informer, on the controller's client and node store, against the mock API server: a
 * kubelet's heartbeat reaches the store (its version) but no handler; any other change reaches them
 * as before, also in a second informer on the same client.
 */
@EnableKubernetesMockClient(crud = true)
class NodeInformerRepeatsTest {

    private static final Duration WAIT = Duration.ofSeconds(10);

    KubernetesClient client;

    /** The handler's view: the version of each update handed on. */
    private static final class Updates implements ResourceEventHandler<Node> {
        final List<String> versions = new CopyOnWriteArrayList<>();

        @Override
        public void onAdd(Node node) {}

        @Override
        public void onUpdate(Node before, Node now) {
            versions.add(now.getMetadata().getResourceVersion());
        }

        @Override
        public void onDelete(Node node, boolean unknown) {}
    }

    private void heartbeat(int second) {
        String time = String.format("2026-12-05T10:00:%02dZ", second);
        client.nodes().withName("gpu-1").editStatus(n -> RealisticNode.shape(n, time));
    }

    private String serverVersion() {
        return client.nodes().withName("gpu-1").get().getMetadata().getResourceVersion();
    }

    private static void awaitCached(TrimmedItemStore<Node> store, String version) {
        await().atMost(WAIT)
                .until(
                        () ->
                                store.get("gpu-1") != null
                                        && version.equals(
                                                store.get("gpu-1")
                                                        .getMetadata()
                                                        .getResourceVersion()));
    }

    @Test
    void aHeartbeatReachesTheStoreButNoHandlerAndAnyOtherChangeReachesThem() {
        client.nodes()
                .resource(
                        RealisticNode.shape(
                                TrimmedItemStoreTest.realNode(), "2026-12-05T10:00:00Z"))
                .create();
        try (KubernetesClient controller =
                ControllerSerialization.clientBuilder()
                        .withConfig(client.getConfiguration())
                        .withHttpClientFactory(new JdkHttpClientFactory())
                        .build()) {
            TrimmedItemStore<Node> store = TrimmedItemStore.nodes();
            Updates updates = new Updates();
            SharedIndexInformer<Node> informer = inform(controller, store, updates);
            try {
                // the list's node is none of the memo's: the first report may be an update
                heartbeat(10);
                awaitCached(store, serverVersion());
                NodeStatus read = store.get("gpu-1").getStatus();
                List<String> repeats = new ArrayList<>();
                for (int s = 20; s <= 40; s += 10) {
                    heartbeat(s);
                    repeats.add(serverVersion());
                    awaitCached(store, repeats.getLast());
                }
                assertThat(store.get("gpu-1").getStatus())
                        .as("not parsed again: the status read before")
                        .isSameAs(read);

                client.nodes().withName("gpu-1").edit(n -> withLabel(n, "example.com/x", "a"));
                String labelled = serverVersion();
                await().atMost(WAIT).until(() -> updates.versions.contains(labelled));
                assertThat(store.get("gpu-1").getMetadata().getLabels())
                        .containsEntry("example.com/x", "a");
                // a handler gets its updates in order: any heartbeat's would be in by now
                assertThat(updates.versions)
                        .as("no heartbeat is handed on")
                        .doesNotContainAnyElementsOf(repeats);

                // a second informer on the same client: the memo serves both watches, and the
                // mock server's watch opens with the node as ADDED, which the memo gives again
                // too, so both stores hold the same parts. Only the second store's listed node is
                // its own: the first heartbeat after its start may be an update to it, to no other
                TrimmedItemStore<Node> secondStore = TrimmedItemStore.nodes();
                Updates second = new Updates();
                SharedIndexInformer<Node> secondInformer = inform(controller, secondStore, second);
                try {
                    heartbeat(50);
                    String beat = serverVersion();
                    awaitCached(store, beat);
                    awaitCached(secondStore, beat);
                    List<String> bothRepeat = new ArrayList<>();
                    for (int s = 51; s <= 53; s++) {
                        heartbeat(s);
                        bothRepeat.add(serverVersion());
                        awaitCached(store, bothRepeat.getLast());
                        awaitCached(secondStore, bothRepeat.getLast());
                    }

                    client.nodes().withName("gpu-1").edit(n -> withLabel(n, "example.com/x", "b"));
                    String relabelled = serverVersion();
                    await().atMost(WAIT)
                            .until(
                                    () ->
                                            updates.versions.contains(relabelled)
                                                    && second.versions.contains(relabelled));
                    assertThat(secondStore.get("gpu-1").getMetadata().getLabels())
                            .containsEntry("example.com/x", "b");
                    assertThat(updates.versions)
                            .as("first informer")
                            .doesNotContain(beat)
                            .doesNotContainAnyElementsOf(bothRepeat);
                    assertThat(second.versions)
                            .as("second informer")
                            .doesNotContainAnyElementsOf(bothRepeat);
                } finally {
                    secondInformer.close();
                }
            } finally {
                informer.close();
            }
        }
    }

    private static SharedIndexInformer<Node> inform(
            KubernetesClient controller, TrimmedItemStore<Node> store, Updates handler) {
        SharedIndexInformer<Node> informer = controller.nodes().runnableInformer(0);
        informer.itemStore(store);
        informer.addEventHandler(handler);
        informer.run();
        return informer;
    }

    private static Node withLabel(Node n, String key, String value) {
        n.getMetadata().getLabels().put(key, value);
        return n;
    }
}
