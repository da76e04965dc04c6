package org.gpuoperator.node.labels;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceList;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Status;
import io.fabric8.kubernetes.api.model.WatchEvent;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.fabric8.mockwebserver.http.Response;
import io.fabric8.mockwebserver.http.WebSocket;
import io.fabric8.mockwebserver.http.WebSocketListener;
import java.net.InetAddress;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.logging.Level;
import java.util.logging.Logger;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class AgentKubeClientTest {

    private static final Duration WAIT = Duration.ofSeconds(15);

    @Test
    void theSerializationWarmsUpOnADaemonThreadThatEndsAndEachTypeReadsAndWritesAnEmptyObject()
            throws InterruptedException {
        try (KubernetesClient client =
                AgentKubeClient.build(
                        new ConfigBuilder().withMasterUrl("https://127.0.0.1:1").build())) {
            Thread warmUp =
                    AgentKubeClient.warmUpSerialization(client, AgentKubeClient.OWN_NODE_TYPES);
            assertThat(warmUp.isDaemon()).as("an agent that exits does not wait for it").isTrue();
            assertThat(warmUp.join(WAIT)).isTrue();
        }
        // the warm-up swallows a failure, which would leave that type's work to the first request
        KubernetesSerialization s = AgentKubeClient.serialization();
        assertThat(AgentKubeClient.OWN_NODE_TYPES)
                .containsExactly(
                        Status.class,
                        GenericKubernetesResource.class,
                        GenericKubernetesResourceList.class);
        for (Class<?> type :
                List.of(
                        Status.class,
                        GenericKubernetesResource.class,
                        GenericKubernetesResourceList.class,
                        Node.class,
                        Pod.class)) {
            Object empty = s.unmarshal("{}", type);
            assertThat(empty).as(type.getSimpleName()).isInstanceOf(type);
            assertThat(s.asJson(empty)).as(type.getSimpleName()).startsWith("{");
        }
    }

    @Test
    void aWatchEventsNodeIsAGenericResourceAndNothingSearchesTheClassPath() {
        KubernetesSerialization s = AgentKubeClient.serialization();
        WatchEvent node =
                s.unmarshal(
                        """
                        {"type":"MODIFIED","object":{"apiVersion":"v1","kind":"Node",
                         "metadata":{"name":"gpu-node-1","resourceVersion":"7",
                                     "labels":{"nvidia.com/mig.config":"all-1g.5gb"}},
                         "status":{"allocatable":{"nvidia.com/gpu":"8"}}}}""",
                        WatchEvent.class);
        // what OwnNodeInformer watches: no reader of fabric8's Node model is built for it
        assertThat(node.getObject()).isExactlyInstanceOf(GenericKubernetesResource.class);
        GenericKubernetesResource generic = (GenericKubernetesResource) node.getObject();
        assertThat(generic.getMetadata().getLabels())
                .containsEntry("nvidia.com/mig.config", "all-1g.5gb");
        assertThat(generic.<String>get("status", "allocatable", "nvidia.com/gpu")).isEqualTo("8");
        assertThat(s.getRegisteredKubernetesResource("v1", "Node")).isNull();

        // how the API server ends a watch whose version is gone; fabric8 relists only on a Status
        WatchEvent gone =
                s.unmarshal(
                        """
                        {"type":"ERROR","object":{"apiVersion":"v1","kind":"Status",
                         "status":"Failure","reason":"Expired","code":410,
                         "message":"too old resource version: 1 (5)"}}""",
                        WatchEvent.class);
        assertThat(gone.getObject()).isInstanceOf(Status.class);
        assertThat(((Status) gone.getObject()).getCode()).isEqualTo(410);

        // fabric8's default serialization finds Pod by loading every model class it lists
        assertThat(new KubernetesSerialization().getRegisteredKubernetesResource("v1", "Pod"))
                .isNotNull();
        assertThat(s.getRegisteredKubernetesResource("v1", "Pod")).isNull();
    }

    /**
     * A CRUD API server whose versions below {@code compactedBelow} are gone: a watch from one gets
     * a 410 Status and ends, as a real API server's does after a compaction. The first watch is
     * held open until {@code compact} is counted down.
     */
    private static final class CompactingApi extends KubernetesCrudDispatcher {
        private static final Pattern VERSION = Pattern.compile("[?&]resourceVersion=(\\d+)");
        final AtomicLong compactedBelow = new AtomicLong(0);
        final CountDownLatch compact = new CountDownLatch(1);
        final List<String> watches = new CopyOnWriteArrayList<>();
        private boolean first = true;

        CompactingApi() {
            super(List.of());
        }

        @Override
        public synchronized MockResponse dispatch(RecordedRequest request) {
            String path = request.getPath();
            if (!path.startsWith("/api/v1/nodes") || !path.contains("watch=true")) {
                return super.dispatch(request);
            }
            watches.add(path);
            Matcher m = VERSION.matcher(path);
            long version = m.find() ? Long.parseLong(m.group(1)) : Long.MAX_VALUE;
            boolean held = first;
            first = false;
            if (!held && version >= compactedBelow.get()) {
                return super.dispatch(request);
            }
            return new MockResponse()
                    .withWebSocketUpgrade(
                            new WebSocketListener() {
                                @Override
                                public void onOpen(WebSocket ws, Response response) {
                                    Thread.ofPlatform()
                                            .daemon()
                                            .start(() -> gone(ws, held, version));
                                }
                            });
        }

        private void gone(WebSocket ws, boolean held, long version) {
            try {
                if (held && !compact.await(30, TimeUnit.SECONDS)) {
                    return;
                }
            } catch (InterruptedException e) {
                return;
            }
            ws.send(
                    "{\"type\":\"ERROR\",\"object\":{\"apiVersion\":\"v1\",\"kind\":\"Status\","
                            + "\"status\":\"Failure\",\"reason\":\"Expired\",\"code\":410,"
                            + "\"message\":\"too old resource version: "
                            + version
                            + " ("
                            + compactedBelow.get()
                            + ")\"}}");
            ws.close(1000, "");
        }
    }

    @Test
    void theOwnNodeInformerListsAgainWhenItsWatchIsGone() throws Exception {
        Logger.getLogger("io.fabric8.mockwebserver").setLevel(Level.WARNING);
        CompactingApi api = new CompactingApi();
        KubernetesMockServer server =
                new KubernetesMockServer(
                        new Context(), new MockWebServer(), new HashMap<>(), api, false);
        server.init(InetAddress.getLoopbackAddress(), 0);
        List<String> seen = new CopyOnWriteArrayList<>();
        try (KubernetesClient admin = server.createClient();
                KubernetesClient agent = AgentKubeClient.build(admin.getConfiguration())) {
            admin.nodes()
                    .resource(
                            new NodeBuilder()
                                    .withNewMetadata()
                                    .withName("gpu-node-1")
                                    .withLabels(Map.of("stage", "listed"))
                                    .endMetadata()
                                    .build())
                    .create();
            SharedIndexInformer<GenericKubernetesResource> informer =
                    OwnNodeInformer.inform(
                            agent, "gpu-node-1", n -> seen.add(n.getLabels().get("stage")));
            try {
                await().atMost(WAIT).until(() -> seen.contains("listed") && !api.watches.isEmpty());
                // a change the held watch never brings, then the versions before it are gone
                Node changed =
                        admin.nodes()
                                .withName("gpu-node-1")
                                .edit(
                                        n -> {
                                            n.getMetadata().getLabels().put("stage", "relisted");
                                            return n;
                                        });
                api.compactedBelow.set(Long.parseLong(changed.getMetadata().getResourceVersion()));
                api.compact.countDown();

                // only a new list brings it: every watch from an older version is answered 410
                await().atMost(WAIT).until(() -> seen.contains("relisted"));
                // and it watches again, from the new list's version (after its handlers ran)
                await().atMost(WAIT).until(() -> api.watches.size() >= 2);
            } finally {
                informer.close();
            }
        } finally {
            server.destroy();
        }
    }
}
