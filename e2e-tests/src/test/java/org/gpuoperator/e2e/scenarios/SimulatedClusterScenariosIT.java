package org.gpuoperator.e2e.scenarios;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.gpuoperator.e2e.cluster.PolicySpecEdits.section;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.UnaryOperator;
import java.util.stream.IntStream;
import org.gpuoperator.e2e.cluster.GateOrder;
import org.gpuoperator.e2e.cluster.NodeProgress;
import org.gpuoperator.e2e.cluster.PolicySpecEdits;
import org.gpuoperator.e2e.cluster.Pods;
import org.gpuoperator.e2e.cluster.SimulatedCluster;
import org.gpuoperator.e2e.node.AgentProcess;
import org.gpuoperator.kubelet.cri.CriClient;
import org.gpuoperator.e2e.node.SimulatedNode;
import org.gpuoperator.e2e.simulate.ControllerLauncher;
import org.gpuoperator.e2e.simulate.RepoRoot;
import org.gpuoperator.node.inventory.simulated.SimulatedGpuInventory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The e2e scenarios on the simulated cluster: the real controller, and on each node the real agents as processes
 * over simulated GPUs, a real containerd where installed, and kubelet emulators speaking the real gRPC protocols.
 * The scenarios build on each other, in order, on one cluster.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SimulatedClusterScenariosIT {

    private static final String PROFILE = "h100-80gb-x8";
    private static final int GPUS = 8;
    private static final Duration CONVERGE = Duration.ofMinutes(3);
    private static final String POLICY = "cluster-policy";
    private static final HttpClient HTTP = HttpClient.newHttpClient();

    private static SimulatedCluster cluster;
    private static KubernetesClient client;
    private static final List<String> events = Collections.synchronizedList(new ArrayList<>());
    /** node -> deploy steps in the order their labels turned true */
    private static GateOrder gateOrder;
    private static final Map<String, byte[]> containerdConfigBefore = new HashMap<>();
    /** The pipeline steps the policy enables now. */
    private static final Set<String> enabledSteps = new LinkedHashSet<>(NodeProgress.STEPS.keySet());

    @BeforeAll
    static void startCluster() throws Exception {
        Path repo = RepoRoot.find();
        cluster = SimulatedCluster.start(new SimulatedCluster.Options(repo, true, ControllerLauncher::start, events::add));
        client = cluster.client();
        for (int i = 1; i <= 3; i++) {
            SimulatedNode n = cluster.addGpuNode("gpu-node-" + i);
            if (n.containerd() != null) {
                containerdConfigBefore.put(n.name(), Files.readAllBytes(n.containerd().config()));
            }
        }
        cluster.addCpuNode("cpu-node-1");
        gateOrder = GateOrder.watch(client);
        cluster.startController();
    }

    @org.junit.jupiter.api.BeforeEach
    void announce(org.junit.jupiter.api.TestInfo info) {
        System.out.println("=== scenario " + info.getDisplayName() + " (" + java.time.Instant.now() + ")");
    }

    @AfterAll
    static void stopCluster() {
        synchronized (events) { // the last cluster events, for a failure's context
            events.subList(Math.max(0, events.size() - 150), events.size()).forEach(e -> System.out.println("  event: " + e));
        }
        if (gateOrder != null) {
            gateOrder.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    private static void applyPolicy(UnaryOperator<Map<String, Object>> specEdit) throws Exception {
        GenericKubernetesResource cp = Serialization.unmarshal(
                Files.readString(RepoRoot.find().resolve("deploy/samples/clusterpolicy-simulated.yaml")),
                GenericKubernetesResource.class);
        @SuppressWarnings("unchecked")
        Map<String, Object> spec = (Map<String, Object>) cp.getAdditionalProperties().get("spec");
        cp.getAdditionalProperties().put("spec", specEdit.apply(spec));
        client.genericKubernetesResources(SimulatedCluster.CLUSTER_POLICIES).resource(cp).create();
    }

    private static void editSpec(java.util.function.Consumer<Map<String, Object>> edit) {
        PolicySpecEdits.edit(client, POLICY, edit);
    }

    private static List<SimulatedNode> gpuNodes() {
        return cluster.gpuNodes();
    }

    private static NodeProgress progress(String node) {
        return NodeProgress.of(client.nodes().withName(node).get(), cluster.podsOn(node), enabledSteps);
    }

    private static void awaitAllReady() {
        await().atMost(CONVERGE).pollInterval(Duration.ofMillis(500)).untilAsserted(() -> {
            for (SimulatedNode n : gpuNodes()) {
                assertThat(progress(n.name()).ready()).as(progress(n.name()).describe()).isTrue();
            }
        });
    }

    private static int allocatableGpus(String node) {
        var q = client.nodes().withName(node).get().getStatus().getAllocatable().get(SimulatedNode.GPU_RESOURCE);
        return q == null ? 0 : Integer.parseInt(q.getAmount());
    }

    private static String metrics(SimulatedNode n) throws Exception {
        AgentProcess exporter = n.kubelet().processes().values().stream()
                .filter(p -> p.spec().module().equals("dcgm-exporter") && p.alive()).findFirst().orElseThrow();
        int port = exporter.spec().ports().get(9400);
        return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics")).build(),
                HttpResponse.BodyHandlers.ofString()).body();
    }

    @Test
    @Order(1)
    void policyBringsEveryGpuNodeThroughTheGatesInOrder() throws Exception {
        applyPolicy(spec -> {
            // sample quickly so the scenarios need not wait the default 30 s
            section(spec, "dcgmExporter").put("args", List.of("--collect-interval=1000"));
            return spec;
        });
        awaitAllReady();
        for (SimulatedNode n : gpuNodes()) {
            List<String> order = gateOrder.of(n.name());
            assertThat(order).as("gate order on %s", n.name()).startsWith("driver", "container-toolkit", "device-plugin")
                    .containsExactlyInAnyOrder(NodeProgress.STEPS.keySet().toArray(String[]::new));
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(allocatableGpus(n.name())).isEqualTo(GPUS));
            Map<String, String> labels = client.nodes().withName(n.name()).get().getMetadata().getLabels();
            assertThat(labels).containsEntry("nvidia.com/gpu.present", "true")
                    .containsEntry("nvidia.com/gpu.count", String.valueOf(GPUS))
                    .containsEntry("nvidia.com/gpu.product", "NVIDIA-H100-80GB-HBM3")
                    .containsKey("nvidia.com/cuda.driver.major");
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
                    assertThat(metrics(n)).contains("DCGM_FI_DEV_GPU_UTIL{")
                            .contains(SimulatedGpuInventory.gpuUuid(n.name(), 0)));
            if (n.containerd() != null) {
                await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> {
                    String config;
                    try (CriClient cri = new CriClient(n.containerd().socket())) {
                        config = cri.status().getInfoMap().get("config");
                    }
                    assertThat(config).contains("\"nvidia\"").contains("nvidia-container-runtime");
                });
            }
        }
        assertThat(gateOrder.of("cpu-node-1")).isEmpty();
        assertThat(cluster.podsOn("cpu-node-1")).isEmpty();
    }

    @Test
    @Order(2)
    void allocationGivesUuidsFromTheInventoryAndTheExporterShowsThePod() throws Exception {
        SimulatedNode n = cluster.node("gpu-node-1");
        SimulatedNode.Allocation a = n.allocate("default", "trainer", "main", SimulatedNode.GPU_RESOURCE, 2);
        Set<String> inventory = new LinkedHashSet<>();
        IntStream.range(0, GPUS).forEach(i -> inventory.add(SimulatedGpuInventory.gpuUuid(n.name(), i)));
        String visible = a.envs().get("NVIDIA_VISIBLE_DEVICES");
        assertThat(visible).isNotNull();
        assertThat(List.of(visible.split(","))).hasSize(2).allMatch(inventory::contains);
        String uuid = visible.split(",")[0];
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(metrics(n).lines())
                .anyMatch(l -> l.startsWith("DCGM_FI_DEV_GPU_UTIL{") && l.contains("UUID=\"" + uuid + "\"")
                        && l.contains("pod=\"trainer\"") && l.contains("namespace=\"default\"")));
        n.release("default", "trainer");
    }

    @Test
    @Order(3)
    void aNodeAddedLaterConverges() throws Exception {
        cluster.addGpuNode("gpu-node-4");
        awaitAllReady();
        assertThat(gateOrder.of("gpu-node-4")).startsWith("driver", "container-toolkit", "device-plugin");
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(allocatableGpus("gpu-node-4")).isEqualTo(GPUS));
    }

    @Test
    @Order(4)
    void aKilledAgentIsRestartedAndTheNodeRecovers() {
        SimulatedNode n = cluster.node("gpu-node-2");
        var entry = n.kubelet().processes().entrySet().stream()
                .filter(e -> e.getValue().spec().module().equals("device-plugin")).findFirst().orElseThrow();
        long oldPid = entry.getValue().pid();
        entry.getValue().kill();
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
            Pod pod = client.pods().inNamespace(SimulatedCluster.NAMESPACE).withName(entry.getKey()).get();
            assertThat(pod.getStatus().getContainerStatuses().get(0).getRestartCount()).isGreaterThanOrEqualTo(1);
            assertThat(entry.getValue().pid()).isNotEqualTo(oldPid);
        });
        awaitAllReady();
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(allocatableGpus(n.name())).isEqualTo(GPUS));
    }

    @Test
    @Order(5)
    void anXidMakesTheDeviceUnhealthyAndItRecovers() {
        SimulatedNode n = cluster.node("gpu-node-3");
        n.faults().injectXid(3, 79);
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(allocatableGpus(n.name())).isEqualTo(GPUS - 1));
        n.faults().recover(3);
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(allocatableGpus(n.name())).isEqualTo(GPUS));
    }

    @Test
    @Order(6)
    void aToolkitVersionChangeRollsOutNodeByNode() {
        DaemonSet before = client.apps().daemonSets().inNamespace(SimulatedCluster.NAMESPACE)
                .withName("nvidia-container-toolkit-daemonset").get();
        String oldImage = before.getSpec().getTemplate().getSpec().getContainers().get(0).getImage();
        editSpec(spec -> section(spec, "toolkit").put("version", "9.9.9-e2e"));
        int nodes = gpuNodes().size();
        int[] maxUnavailable = {0};
        await().atMost(CONVERGE).pollInterval(Duration.ofMillis(100)).until(() -> {
            List<Pod> toolkit = client.pods().inNamespace(SimulatedCluster.NAMESPACE)
                    .withLabel("app.kubernetes.io/name", "toolkit-agent").list().getItems();
            long ready = toolkit.stream().filter(Pods::isReady).count();
            maxUnavailable[0] = Math.max(maxUnavailable[0], (int) (nodes - ready));
            return toolkit.size() == nodes && ready == nodes && toolkit.stream().allMatch(p ->
                    p.getSpec().getContainers().get(0).getImage().endsWith(":9.9.9-e2e"));
        });
        assertThat(oldImage).doesNotEndWith(":9.9.9-e2e");
        assertThat(maxUnavailable[0]).as("toolkit pods down at once during the rollout").isEqualTo(1);
        awaitAllReady();
    }

    @Test
    @Order(7)
    void disablingAnOperandRemovesItsPodsAndLabels() {
        editSpec(spec -> section(spec, "dcgmExporter").put("enabled", false));
        enabledSteps.remove("dcgm-exporter");
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
            assertThat(client.apps().daemonSets().inNamespace(SimulatedCluster.NAMESPACE).withName("nvidia-dcgm-exporter").get())
                    .isNull();
            assertThat(client.pods().inNamespace(SimulatedCluster.NAMESPACE)
                    .withLabel("app.kubernetes.io/name", "dcgm-exporter").list().getItems()).isEmpty();
            for (SimulatedNode n : gpuNodes()) {
                assertThat(client.nodes().withName(n.name()).get().getMetadata().getLabels())
                        .doesNotContainKey("nvidia.com/gpu.deploy.dcgm-exporter");
                assertThat(n.kubelet().processes().values()).noneMatch(p -> p.spec().module().equals("dcgm-exporter"));
            }
        });
    }

    @Test
    @Order(8)
    void aBadPolicyIsReportedAndChangesNothingDeployed() {
        Map<String, String> versions = new HashMap<>();
        client.apps().daemonSets().inNamespace(SimulatedCluster.NAMESPACE).list().getItems()
                .forEach(d -> versions.put(d.getMetadata().getName(), d.getMetadata().getResourceVersion()));
        // Valid for the CRD schema, invalid for the operator: the NRI plugin needs CDI.
        editSpec(spec -> {
            section(spec, "cdi").put("enabled", false);
            section(spec, "cdi").put("nriPluginEnabled", true);
        });
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
            GenericKubernetesResource cp = client.genericKubernetesResources(SimulatedCluster.CLUSTER_POLICIES).withName(POLICY).get();
            String status = Serialization.asJson(cp.getAdditionalProperties().get("status"));
            assertThat(status).contains("InvalidSpec").contains("spec.cdi.nriPluginEnabled");
        });
        Map<String, String> after = new HashMap<>();
        client.apps().daemonSets().inNamespace(SimulatedCluster.NAMESPACE).list().getItems()
                .forEach(d -> after.put(d.getMetadata().getName(), d.getMetadata().getResourceVersion()));
        assertThat(after).isEqualTo(versions);
        editSpec(spec -> {
            section(spec, "cdi").put("enabled", true);
            section(spec, "cdi").put("nriPluginEnabled", false);
        });
        awaitAllReady();
    }

    @Test
    @Order(9)
    void deletingThePolicyRemovesLabelsAndRestoresEveryContainerdConfigByteForByte() {
        client.genericKubernetesResources(SimulatedCluster.CLUSTER_POLICIES).withName(POLICY).delete();
        await().atMost(CONVERGE).untilAsserted(() -> {
            for (SimulatedNode n : gpuNodes()) {
                Map<String, String> labels = client.nodes().withName(n.name()).get().getMetadata().getLabels();
                assertThat(labels.keySet()).noneMatch(k -> k.startsWith("nvidia.com/gpu.deploy."))
                        .doesNotContain("nvidia.com/gpu.present");
                assertThat(n.kubelet().processes()).isEmpty();
            }
        });
        assumeTrue(!containerdConfigBefore.isEmpty(), "containerd is not installed: config restore not checked");
        for (SimulatedNode n : gpuNodes()) {
            if (containerdConfigBefore.containsKey(n.name())) {
                await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
                        assertThat(Files.readAllBytes(n.containerd().config())).as(n.name())
                                .isEqualTo(containerdConfigBefore.get(n.name())));
            }
        }
    }
}
