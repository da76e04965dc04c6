package org.gpuoperator.migmanager.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.logging.Level;
import java.util.logging.Logger;
import org.gpuoperator.migmanager.config.DefaultMigConfig;
import org.gpuoperator.migmanager.reconcile.KubeMigNodeAccess;
import org.gpuoperator.migmanager.reconcile.MigLabels;
import org.gpuoperator.migmanager.reconcile.MigReconciler;
import org.gpuoperator.node.agent.EventLog;
import org.gpuoperator.node.agent.ReadinessFiles;
import org.gpuoperator.node.inventory.Gpu;
import org.gpuoperator.node.inventory.GpuInventory;
import org.gpuoperator.node.inventory.GpuSource;
import org.gpuoperator.node.inventory.MigPartitioner;
import org.gpuoperator.node.labels.AgentKubeClient;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent against an API server (fabric8's mock, CRUD mode) and a simulated 8 x A100 40GB node:
 * the label flow an admin drives with kubectl, and what every other agent on the node then reads.
 */
class MigManagerAgentTest {

    private static final Logger MOCK_LOG = Logger.getLogger("io.fabric8.mockwebserver");
    private static final String NODE = "gpu-node-1";
    private static final String SOURCE = "simulated:a100-40gb-x8";
    private static final Duration WAIT = Duration.ofSeconds(15);
    private static final String PLUGIN = "nvidia.com/gpu.deploy.device-plugin";

    static KubernetesMockServer server;
    static KubernetesClient client;

    @TempDir Path hostRoot;
    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private MigManagerAgent agent;

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
    void createNode() {
        client.pods().inAnyNamespace().delete();
        client.nodes().withName(NODE).delete();
        await().atMost(WAIT).until(() -> client.nodes().withName(NODE).get() == null);
        Map<String, String> labels = new HashMap<>();
        MigLabels.CLIENTS.keySet().forEach(k -> labels.put(k, "true"));
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

    @AfterEach
    void stopAgent() {
        if (agent != null) {
            agent.close();
        }
    }

    private void startAgent(boolean allowGpuPods) {
        GpuSource source = GpuSource.parse(SOURCE);
        List<Gpu> gpus;
        try (GpuInventory inventory = source.open(hostRoot, NODE, null)) {
            gpus = inventory.gpus();
        }
        MigPartitioner partitioner = source.openPartitioner(hostRoot, NODE, null, null);
        EventLog log =
                new EventLog("mig-manager", new PrintStream(out, true, StandardCharsets.UTF_8));
        MigReconciler reconciler =
                new MigReconciler(
                        // fabric8's mock ignores the spec.nodeName field selector: filter here
                        new KubeMigNodeAccess(
                                client,
                                NODE,
                                node ->
                                        client
                                                .genericKubernetesResources(AgentKubeClient.PODS)
                                                .inAnyNamespace()
                                                .list()
                                                .getItems()
                                                .stream()
                                                .filter(p -> node.equals(p.get("spec", "nodeName")))
                                                .toList()),
                        partitioner,
                        gpus.size(),
                        MigPlanning.of(DefaultMigConfig::file, gpus, partitioner),
                        new ToolkitCdiFollow(
                                new ReadinessFiles(hostRoot.resolve("run/nvidia/validations")),
                                false,
                                Duration.ofSeconds(1),
                                Clock.systemUTC(),
                                log),
                        null,
                        allowGpuPods,
                        Duration.ofSeconds(5),
                        d -> Thread.sleep(d),
                        Clock.systemUTC(),
                        log,
                        null);
        agent = new MigManagerAgent(client, NODE, reconciler, Duration.ofMillis(500), log);
        agent.start();
    }

    private void label(String value) {
        client.nodes()
                .withName(NODE)
                .edit(
                        n -> {
                            n.getMetadata().getLabels().put(MigLabels.CONFIG, value);
                            return n;
                        });
    }

    private Node node() {
        return client.nodes().withName(NODE).get();
    }

    private String state() {
        return node().getMetadata().getLabels().get(MigLabels.STATE);
    }

    /** What a device plugin or feature discovery started now would read. */
    private List<Gpu.MigDevice> migDevices() {
        try (GpuInventory inventory = GpuSource.parse(SOURCE).open(hostRoot, NODE, null)) {
            return inventory.gpus().stream().flatMap(g -> g.mig().devices().stream()).toList();
        }
    }

    @Test
    void allOneGigLayoutsThenBackToDisabledAsTheLabelSays() {
        startAgent(false);
        await().atMost(WAIT).until(agent::ready);
        // no label, no default: the GPUs are left as they are
        assertThat(state()).isNull();

        label("all-1g.5gb");
        await().atMost(WAIT).until(() -> MigLabels.SUCCESS.equals(state()));
        assertThat(migDevices()).hasSize(56).allMatch(d -> d.profile().equals("1g.5gb"));
        Map<String, String> labels = node().getMetadata().getLabels();
        MigLabels.CLIENTS.keySet().forEach(k -> assertThat(labels).containsEntry(k, "true"));

        label("all-disabled");
        await().atMost(WAIT).until(() -> migDevices().isEmpty());
        await().atMost(WAIT).until(() -> MigLabels.SUCCESS.equals(state()));
        String log = out.toString(StandardCharsets.UTF_8);
        assertThat(log)
                .contains("event=mig-config-requested config=all-1g.5gb")
                .contains("event=mig-config-pending config=all-1g.5gb")
                .contains("event=mig-config-applied config=all-1g.5gb")
                .contains("event=mig-config-applied config=all-disabled");
    }

    @Test
    void anUnknownConfigFailsWithItsReasonAndAFixedLabelRecovers() {
        startAgent(false);
        label("all-9g.99gb");
        await().atMost(WAIT).until(() -> MigLabels.FAILED.equals(state()));
        assertThat(node().getMetadata().getAnnotations().get(MigLabels.ERROR_ANNOTATION))
                .contains("all-9g.99gb");
        assertThat(node().getMetadata().getLabels()).containsEntry(PLUGIN, "true");

        label("all-3g.20gb");
        await().atMost(WAIT).until(() -> MigLabels.SUCCESS.equals(state()));
        assertThat(migDevices()).hasSize(16);
        assertThat(node().getMetadata().getAnnotations())
                .doesNotContainKey(MigLabels.ERROR_ANNOTATION);
    }

    @Test
    void aRunningGpuPodBlocksTheChangeUntilItIsGone() {
        client.pods()
                .inNamespace("default")
                .resource(
                        new PodBuilder()
                                .withNewMetadata()
                                .withName("train-0")
                                .withNamespace("default")
                                .endMetadata()
                                .withNewSpec()
                                .withNodeName(NODE)
                                .addNewContainer()
                                .withName("main")
                                .withImage("cuda")
                                .withNewResources()
                                .addToLimits("nvidia.com/gpu", new Quantity("1"))
                                .endResources()
                                .endContainer()
                                .endSpec()
                                .build())
                .create();
        startAgent(false);
        label("all-1g.5gb");
        await().atMost(WAIT).until(() -> MigLabels.FAILED.equals(state()));
        assertThat(node().getMetadata().getAnnotations().get(MigLabels.ERROR_ANNOTATION))
                .contains("default/train-0", "ALLOW_REPARTITION_WITH_GPU_PODS");
        assertThat(migDevices()).isEmpty();

        // the pod finishes: the next retry applies the layout
        client.pods().inNamespace("default").withName("train-0").delete();
        await().atMost(WAIT).until(() -> MigLabels.SUCCESS.equals(state()));
        assertThat(migDevices()).hasSize(56);
    }
}
