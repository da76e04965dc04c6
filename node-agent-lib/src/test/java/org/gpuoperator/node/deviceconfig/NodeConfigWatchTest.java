package org.gpuoperator.node.deviceconfig;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.gpuoperator.node.agent.EventLog;
import org.gpuoperator.node.labels.AgentKubeClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The node informer and the config report against the fabric8 mock API server (CRUD mode). */
class NodeConfigWatchTest {

    private static final Logger MOCK_LOG = Logger.getLogger("io.fabric8.mockwebserver");
    static final String NODE = "gpu-node-1";
    static final Duration WAIT = Duration.ofSeconds(10);

    static KubernetesMockServer server;
    static KubernetesClient client;

    @TempDir Path dir;
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    EventLog log = new EventLog("test", new PrintStream(out, true, StandardCharsets.UTF_8));
    List<String> applied = Collections.synchronizedList(new ArrayList<>());

    @BeforeAll
    static void startApi() {
        MOCK_LOG.setLevel(Level.WARNING);
        server =
                new KubernetesMockServer(
                        new Context(),
                        new MockWebServer(),
                        new HashMap<>(),
                        new KubernetesCrudDispatcher(List.of()),
                        false);
        server.init(InetAddress.getLoopbackAddress(), 0);
        // the agents' own client: its watch reads only the kinds registered
        try (KubernetesClient mock = server.createClient()) {
            client = AgentKubeClient.build(mock.getConfiguration());
        }
    }

    @AfterAll
    static void stopApi() {
        client.close();
        server.destroy();
    }

    @BeforeEach
    void setUp() throws Exception {
        client.nodes().withName(NODE).delete();
        await().atMost(WAIT).until(() -> client.nodes().withName(NODE).get() == null);
        Files.writeString(
                dir.resolve("ts-4"),
                "version: v1\nsharing: {timeSlicing: {resources: [{name: gpu, replicas: 4}]}}\n");
        Files.writeString(
                dir.resolve("broken"),
                "version: v1\nsharing: {timeSlicing: {resources: [{name: gpu, replicas: 1}]}}\n");
    }

    private void createNode(Map<String, String> labels) {
        client.nodes()
                .resource(
                        new NodeBuilder()
                                .withNewMetadata()
                                .withName(NODE)
                                .withLabels(labels)
                                .endMetadata()
                                .build())
                .create();
    }

    private void label(String value) {
        client.nodes()
                .withName(NODE)
                .edit(
                        n -> {
                            Map<String, String> l = new HashMap<>(n.getMetadata().getLabels());
                            if (value == null) {
                                l.remove(ConfigSelection.LABEL);
                            } else {
                                l.put(ConfigSelection.LABEL, value);
                            }
                            n.getMetadata().setLabels(l);
                            return n;
                        });
    }

    private Map<String, String> annotations() {
        Node n = client.nodes().withName(NODE).get();
        Map<String, String> a = n.getMetadata().getAnnotations();
        return a == null ? Map.of() : a;
    }

    private NodeConfigWatch watch(String defaultName) {
        return new NodeConfigWatch(client, NODE, new ConfigSelection(dir, defaultName), true, log);
    }

    @Test
    void startsWithTheLabelledConfigAndAppliesEachLabelChange() {
        createNode(Map.of(ConfigSelection.LABEL, "ts-4", "other", "x"));
        try (NodeConfigWatch watch = watch(null)) {
            assertThat(watch.initial(c -> {}).name()).isEqualTo("ts-4");
            assertThat(annotations())
                    .containsEntry(NodeConfigWatch.APPLIED_ANNOTATION, "ts-4")
                    .doesNotContainKey(NodeConfigWatch.ERROR_ANNOTATION);
            watch.start(c -> applied.add(c.describe()));

            label(null); // no default: none
            await().atMost(WAIT).until(() -> applied.contains("(none)"));
            await().atMost(WAIT)
                    .untilAsserted(
                            () ->
                                    assertThat(annotations())
                                            .doesNotContainKey(NodeConfigWatch.APPLIED_ANNOTATION));
            label("ts-4");
            await().atMost(WAIT).until(() -> applied.equals(List.of("(none)", "ts-4")));
        }
        // the first event of the informer (the label already applied) changed nothing
        assertThat(applied).containsExactly("(none)", "ts-4");
    }

    @Test
    void aRefusedConfigIsReportedOnTheNodeAndTheAgentKeepsItsConfig() {
        createNode(Map.of(ConfigSelection.LABEL, "ts-4"));
        try (NodeConfigWatch watch = watch(null)) {
            watch.initial(c -> {});
            watch.start(c -> applied.add(c.describe()));

            label("nope");
            await().atMost(WAIT)
                    .untilAsserted(
                            () ->
                                    assertThat(annotations())
                                            .containsEntry(
                                                    NodeConfigWatch.APPLIED_ANNOTATION, "ts-4")
                                            .hasEntrySatisfying(
                                                    NodeConfigWatch.ERROR_ANNOTATION,
                                                    e ->
                                                            assertThat(e)
                                                                    .startsWith(
                                                                            "config 'nope' (node label")));
            label("broken");
            await().atMost(WAIT)
                    .untilAsserted(
                            () ->
                                    assertThat(annotations().get(NodeConfigWatch.ERROR_ANNOTATION))
                                            .startsWith("config 'broken': ")
                                            .contains("replicas: must be at least 2"));
            assertThat(applied).isEmpty();
            assertThat(out.toString(StandardCharsets.UTF_8))
                    .contains("event=config-refused")
                    .contains("action=\"keeping the config in force\"");

            label("ts-4");
            await().atMost(WAIT)
                    .untilAsserted(
                            () ->
                                    assertThat(annotations())
                                            .doesNotContainKey(NodeConfigWatch.ERROR_ANNOTATION));
            assertThat(applied).containsExactly("ts-4");
        }
    }

    @Test
    void anAgentThatCannotUseTheConfigRefusesItTooAndAtStartARefusalIsThrown() {
        createNode(Map.of());
        try (NodeConfigWatch watch = watch("nope")) {
            assertThatThrownBy(() -> watch.initial(c -> {})).hasMessageContaining("config 'nope'");
            assertThat(annotations().get(NodeConfigWatch.ERROR_ANNOTATION))
                    .contains("devicePlugin.config.default");
        }
        try (NodeConfigWatch watch = watch("ts-4")) {
            // the agent cannot load it at start: refused and reported like an unknown name
            assertThatThrownBy(
                            () ->
                                    watch.initial(
                                            c -> {
                                                throw new IllegalArgumentException(
                                                        "config '" + c.name() + "': no GPUs fit");
                                            }))
                    .hasMessage("config 'ts-4': no GPUs fit");
            assertThat(annotations().get(NodeConfigWatch.ERROR_ANNOTATION))
                    .isEqualTo("config 'ts-4': no GPUs fit");
        }
        try (NodeConfigWatch watch = watch(null)) {
            assertThat(watch.initial(c -> {}).none()).isTrue();
            watch.start(
                    c -> {
                        throw new IllegalArgumentException("MIG strategy single needs MIG GPUs");
                    });
            label("ts-4");
            await().atMost(WAIT)
                    .untilAsserted(
                            () ->
                                    assertThat(annotations().get(NodeConfigWatch.ERROR_ANNOTATION))
                                            .isEqualTo("MIG strategy single needs MIG GPUs"));
        }
    }
}
