package org.gpuoperator.e2e.kind;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.gpuoperator.e2e.cluster.PolicySpecEdits.section;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.Reader;
import java.nio.file.Files;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.function.Consumer;
import java.util.stream.IntStream;
import org.gpuoperator.e2e.cluster.GateOrder;
import org.gpuoperator.e2e.cluster.NodeProgress;
import org.gpuoperator.e2e.cluster.Pods;
import org.gpuoperator.e2e.cluster.PolicySpecEdits;
import org.gpuoperator.e2e.cluster.SimulatedCluster;
import org.gpuoperator.e2e.simulate.RepoRoot;
import org.gpuoperator.node.inventory.simulated.SimulatedGpuInventory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The e2e scenarios on a real cluster: kind, set up by {@code e2e-tests/kind/run-kind-e2e.sh}
 * (operator installed with {@code kubectl apply -k deploy}, component images loaded with the tag
 * {@code -De2e.imageTag}, workers labelled {@code gpuoperator.org/simulated-gpu=true}). They mirror
 * {@code SimulatedClusterScenariosIT} where a real cluster allows: the kubelet, scheduler and
 * DaemonSet controller are Kubernetes' own, and node files are reached with {@code docker exec} on
 * the kind node containers.
 *
 * <p>Runs only with {@code -De2e.cluster=kubeconfig}; otherwise every scenario is reported as
 * skipped. The scenarios build on each other, in order, on one cluster.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class KindScenariosIT {

    static final String CLUSTER_PROPERTY = "e2e.cluster";
    static final String TAG_PROPERTY = "e2e.imageTag";
    private static final String NS = SimulatedCluster.NAMESPACE;
    private static final String POLICY = "cluster-policy";
    private static final int GPUS = 8; // h100-80gb-x8, the sample's profile
    private static final Duration CONVERGE = Duration.ofMinutes(6);
    private static final Duration SHORT = Duration.ofMinutes(2);
    private static final String CONTAINERD_CONFIG = "/etc/containerd/config.toml";
    private static final String FAULT_DIR = "/run/nvidia/simulated-gpu/faults";
    private static final String TEST_POD = "gpu-env-check";

    private static final boolean ENABLED =
            "kubeconfig".equals(System.getProperty(CLUSTER_PROPERTY));

    private static KubernetesClient client;
    private static boolean connected;
    private static String registry;
    private static String tag;
    private static List<String> gpuNodes;

    /** node -> deploy steps in the order their labels turned true */
    private static GateOrder gateOrder;

    private static final Map<String, byte[]> containerdConfigBefore = new HashMap<>();

    /** The pipeline steps the policy enables now. */
    private static final Set<String> enabledSteps =
            new LinkedHashSet<>(NodeProgress.STEPS.keySet());

    @BeforeAll
    static void connect() throws Exception {
        if (!ENABLED) {
            return; // each scenario reports the skip and its reason
        }
        tag = System.getProperty(TAG_PROPERTY, "");
        if (tag.isBlank()) {
            throw new IllegalStateException(
                    "-D"
                            + TAG_PROPERTY
                            + " is required: the tag of the component images loaded into kind");
        }
        Properties versions = new Properties();
        try (Reader r =
                Files.newBufferedReader(RepoRoot.find().resolve("images/versions.properties"))) {
            versions.load(r);
        }
        registry = versions.getProperty("registry");
        client = new KubernetesClientBuilder().build();
        try {
            client.getKubernetesVersion();
        } catch (RuntimeException e) {
            throw new IllegalStateException(
                    "-D"
                            + CLUSTER_PROPERTY
                            + "=kubeconfig but the cluster in KUBECONFIG ("
                            + client.getMasterUrl()
                            + ") cannot be reached: "
                            + e.getMessage(),
                    e);
        }
        connected = true;
        if (client.genericKubernetesResources(SimulatedCluster.CLUSTER_POLICIES)
                        .withName(POLICY)
                        .get()
                != null) {
            throw new IllegalStateException(
                    "ClusterPolicy "
                            + POLICY
                            + " already exists: the scenarios need a cluster without one");
        }
        gpuNodes =
                client
                        .nodes()
                        .withLabel(SimulatedCluster.SIMULATED_LABEL, "true")
                        .list()
                        .getItems()
                        .stream()
                        .map(n -> n.getMetadata().getName())
                        .sorted()
                        .toList();
        if (gpuNodes.isEmpty()) {
            throw new IllegalStateException(
                    "no node carries " + SimulatedCluster.SIMULATED_LABEL + "=true");
        }
        for (String node : gpuNodes) { // before the toolkit agent edits it
            containerdConfigBefore.put(node, DockerExec.run(node, "cat " + CONTAINERD_CONFIG));
        }
        gateOrder = GateOrder.watch(client);
    }

    @BeforeEach
    void requireCluster(TestInfo info) {
        assumeTrue(
                ENABLED,
                "kind scenarios need a cluster: run e2e-tests/kind/run-kind-e2e.sh (-D"
                        + CLUSTER_PROPERTY
                        + "=kubeconfig with KUBECONFIG set)");
        System.out.println(
                "=== kind scenario "
                        + info.getDisplayName()
                        + " ("
                        + java.time.Instant.now()
                        + ")");
    }

    @AfterAll
    static void disconnect() {
        if (gateOrder != null) {
            gateOrder.close();
        }
        if (client != null) {
            if (connected) {
                client.pods().inNamespace("default").withName(TEST_POD).delete();
            }
            client.close();
        }
    }

    // ---- helpers
    // ------------------------------------------------------------------------------------------------

    /**
     * The sample policy, with every operand's image set to the images the script loaded into kind.
     */
    private static GenericKubernetesResource samplePolicy() throws Exception {
        GenericKubernetesResource cp =
                Serialization.unmarshal(
                        Files.readString(
                                RepoRoot.find()
                                        .resolve("deploy/samples/clusterpolicy-simulated.yaml")),
                        GenericKubernetesResource.class);
        @SuppressWarnings("unchecked")
        Map<String, Object> spec = (Map<String, Object>) cp.getAdditionalProperties().get("spec");
        for (var operand :
                Map.of(
                                "driver",
                                "driver-agent",
                                "toolkit",
                                "toolkit-agent",
                                "devicePlugin",
                                "device-plugin",
                                "gfd",
                                "feature-discovery",
                                "dcgmExporter",
                                "dcgm-exporter")
                        .entrySet()) {
            Map<String, Object> section = section(spec, operand.getKey());
            section.put("repository", registry);
            section.put("image", operand.getValue());
            section.put("version", tag);
        }
        // sample quickly so the scenarios need not wait the default 30 s
        section(spec, "dcgmExporter").put("args", List.of("--collect-interval=1000"));
        return cp;
    }

    private static void editSpec(Consumer<Map<String, Object>> edit) {
        PolicySpecEdits.edit(client, POLICY, edit);
    }

    private static List<Pod> operandPodsOn(String node) {
        return client.pods().inNamespace(NS).withField("spec.nodeName", node).list().getItems();
    }

    private static List<Pod> operandPods(String module) {
        return client.pods()
                .inNamespace(NS)
                .withLabel("app.kubernetes.io/name", module)
                .list()
                .getItems();
    }

    private static Pod operandPodOn(String node, String module) {
        return operandPodsOn(node).stream()
                .filter(
                        p ->
                                module.equals(
                                        p.getMetadata().getLabels().get("app.kubernetes.io/name")))
                .filter(p -> p.getMetadata().getDeletionTimestamp() == null)
                .findFirst()
                .orElseThrow(() -> new AssertionError("no " + module + " pod on " + node));
    }

    private static NodeProgress progress(String node) {
        return NodeProgress.of(
                client.nodes().withName(node).get(), operandPodsOn(node), enabledSteps);
    }

    private static void awaitAllReady() {
        await().atMost(CONVERGE)
                .pollInterval(Duration.ofSeconds(2))
                .untilAsserted(
                        () -> {
                            for (String n : gpuNodes) {
                                NodeProgress p = progress(n);
                                assertThat(p.ready()).as(p.describe()).isTrue();
                            }
                        });
    }

    private static int allocatableGpus(String node) {
        Quantity q =
                client.nodes()
                        .withName(node)
                        .get()
                        .getStatus()
                        .getAllocatable()
                        .get("nvidia.com/gpu");
        return q == null ? 0 : Integer.parseInt(q.getAmount());
    }

    private static Map<String, String> labels(String node) {
        Map<String, String> l = client.nodes().withName(node).get().getMetadata().getLabels();
        return l == null ? Map.of() : l;
    }

    /** The exporter's /metrics on {@code node}, through the API server's pod proxy. */
    private static String metrics(String node) {
        Pod exporter = operandPodOn(node, "dcgm-exporter");
        String body =
                client.raw(
                        client.getMasterUrl().toString().replaceAll("/+$", "")
                                + "/api/v1/namespaces/"
                                + NS
                                + "/pods/"
                                + exporter.getMetadata().getName()
                                + ":9400/proxy/metrics");
        return body == null ? "" : body;
    }

    private static Map<String, Long> daemonSetGenerations() {
        Map<String, Long> g = new HashMap<>();
        client.apps()
                .daemonSets()
                .inNamespace(NS)
                .list()
                .getItems()
                .forEach(d -> g.put(d.getMetadata().getName(), d.getMetadata().getGeneration()));
        return g;
    }

    // ---- scenarios
    // ----------------------------------------------------------------------------------------------

    @Test
    @Order(1)
    void policyBringsEveryGpuNodeThroughTheGatesInOrder() throws Exception {
        client.genericKubernetesResources(SimulatedCluster.CLUSTER_POLICIES)
                .resource(samplePolicy())
                .create();
        awaitAllReady();
        for (String n : gpuNodes) {
            assertThat(gateOrder.of(n))
                    .as("gate order on %s", n)
                    .startsWith("driver", "container-toolkit", "device-plugin")
                    .containsExactlyInAnyOrder(NodeProgress.STEPS.keySet().toArray(String[]::new));
            await().atMost(SHORT)
                    .untilAsserted(() -> assertThat(allocatableGpus(n)).isEqualTo(GPUS));
            await().atMost(SHORT)
                    .untilAsserted(
                            () ->
                                    assertThat(labels(n))
                                            .containsEntry("nvidia.com/gpu.present", "true")
                                            .containsEntry(
                                                    "nvidia.com/gpu.count", String.valueOf(GPUS))
                                            .containsEntry(
                                                    "nvidia.com/gpu.product",
                                                    "NVIDIA-H100-80GB-HBM3")
                                            .containsKey("nvidia.com/cuda.driver.major"));
            // the pod proxy answers 503 until the exporter listens: retry on errors too
            await().atMost(SHORT)
                    .pollInterval(Duration.ofSeconds(2))
                    .ignoreExceptions()
                    .untilAsserted(
                            () ->
                                    assertThat(metrics(n))
                                            .contains("DCGM_FI_DEV_GPU_UTIL{")
                                            .contains(SimulatedGpuInventory.gpuUuid(n, 0)));
            // containerd's own view of its config, through CRI (crictl ships in the kind node
            // image)
            await().atMost(SHORT)
                    .pollInterval(Duration.ofSeconds(2))
                    .ignoreExceptions()
                    .untilAsserted(
                            () ->
                                    assertThat(DockerExec.runText(n, "crictl info"))
                                            .contains("\"nvidia\"")
                                            .contains("nvidia-container-runtime"));
        }
        for (Node cpuNode : client.nodes().list().getItems()) {
            String name = cpuNode.getMetadata().getName();
            if (!gpuNodes.contains(name)) {
                assertThat(gateOrder.of(name)).as("deploy labels on CPU node %s", name).isEmpty();
                assertThat(operandPodsOn(name))
                        .as("operand pods on CPU node %s", name)
                        .noneMatch(
                                p ->
                                        NodeProgress.STEPS.containsValue(
                                                p.getMetadata()
                                                        .getLabels()
                                                        .get("app.kubernetes.io/name")));
            }
        }
    }

    @Test
    @Order(2)
    void aGpuPodGetsUuidsFromTheInventoryAndTheExporterShowsIt() {
        Pod pod =
                new PodBuilder()
                        .withNewMetadata()
                        .withName(TEST_POD)
                        .withNamespace("default")
                        .endMetadata()
                        .withNewSpec()
                        .withRestartPolicy("Never")
                        .withTerminationGracePeriodSeconds(0L)
                        .addNewContainer()
                        .withName("main")
                        .withImage("busybox:1.37")
                        .withImagePullPolicy("IfNotPresent")
                        .withCommand("sh", "-c", "echo $NVIDIA_VISIBLE_DEVICES; sleep 3600")
                        .withNewResources()
                        .addToLimits("nvidia.com/gpu", new Quantity("1"))
                        .endResources()
                        .endContainer()
                        .endSpec()
                        .build();
        client.pods().inNamespace("default").resource(pod).create();
        await().atMost(SHORT)
                .pollInterval(Duration.ofSeconds(1))
                .untilAsserted(
                        () ->
                                assertThat(
                                                client.pods()
                                                        .inNamespace("default")
                                                        .withName(TEST_POD)
                                                        .get()
                                                        .getStatus()
                                                        .getPhase())
                                        .isEqualTo("Running"));
        String node =
                client.pods()
                        .inNamespace("default")
                        .withName(TEST_POD)
                        .get()
                        .getSpec()
                        .getNodeName();
        assertThat(gpuNodes).contains(node);
        Set<String> inventory = new LinkedHashSet<>();
        IntStream.range(0, GPUS)
                .forEach(i -> inventory.add(SimulatedGpuInventory.gpuUuid(node, i)));
        String[] visible = new String[1];
        await().atMost(Duration.ofSeconds(30))
                .ignoreExceptions()
                .untilAsserted(
                        () -> {
                            visible[0] =
                                    client.pods()
                                            .inNamespace("default")
                                            .withName(TEST_POD)
                                            .getLog()
                                            .strip();
                            assertThat(visible[0]).isNotEmpty();
                        });
        assertThat(List.of(visible[0].split(","))).hasSize(1).allMatch(inventory::contains);
        await().atMost(SHORT)
                .pollInterval(Duration.ofSeconds(2))
                .ignoreExceptions()
                .untilAsserted(
                        () ->
                                assertThat(metrics(node).lines())
                                        .anyMatch(
                                                l ->
                                                        l.startsWith("DCGM_FI_DEV_GPU_UTIL{")
                                                                && l.contains(
                                                                        "UUID=\""
                                                                                + visible[0]
                                                                                + "\"")
                                                                && l.contains(
                                                                        "pod=\"" + TEST_POD + "\"")
                                                                && l.contains(
                                                                        "namespace=\"default\"")));
        client.pods().inNamespace("default").withName(TEST_POD).delete();
        await().atMost(SHORT)
                .until(() -> client.pods().inNamespace("default").withName(TEST_POD).get() == null);
    }

    @Test
    @Order(3)
    void aKilledAgentIsRecreatedAndTheNodeRecovers() {
        String node = gpuNodes.getFirst();
        Pod old = operandPodOn(node, "device-plugin");
        client.pods().inNamespace(NS).withName(old.getMetadata().getName()).delete();
        await().atMost(SHORT)
                .pollInterval(Duration.ofSeconds(1))
                .untilAsserted(
                        () -> {
                            Pod now = operandPodOn(node, "device-plugin");
                            assertThat(now.getMetadata().getUid())
                                    .isNotEqualTo(old.getMetadata().getUid());
                            assertThat(Pods.isReady(now)).isTrue();
                        });
        awaitAllReady();
        await().atMost(SHORT)
                .untilAsserted(() -> assertThat(allocatableGpus(node)).isEqualTo(GPUS));
    }

    @Test
    @Order(4)
    void anXidMakesTheDeviceUnhealthyAndItRecovers() {
        String node = gpuNodes.getLast();
        DockerExec.run(node, "mkdir -p " + FAULT_DIR + " && echo xid=79 > " + FAULT_DIR + "/gpu-3");
        try {
            await().atMost(SHORT)
                    .pollInterval(Duration.ofSeconds(1))
                    .untilAsserted(() -> assertThat(allocatableGpus(node)).isEqualTo(GPUS - 1));
        } finally {
            DockerExec.run(node, "rm -f " + FAULT_DIR + "/gpu-3");
        }
        await().atMost(SHORT)
                .pollInterval(Duration.ofSeconds(1))
                .untilAsserted(() -> assertThat(allocatableGpus(node)).isEqualTo(GPUS));
    }

    @Test
    @Order(5)
    void aToolkitVersionChangeRollsOutNodeByNode() {
        // run-kind-e2e.sh loads the toolkit image under this second tag too
        String newVersion = tag + "-rollout";
        editSpec(spec -> section(spec, "toolkit").put("version", newVersion));
        int nodes = gpuNodes.size();
        int[] maxUnavailable = {0};
        await().atMost(CONVERGE)
                .pollInterval(Duration.ofMillis(200))
                .until(
                        () -> {
                            List<Pod> toolkit = operandPods("toolkit-agent");
                            long ready =
                                    toolkit.stream()
                                            .filter(
                                                    p ->
                                                            p.getMetadata().getDeletionTimestamp()
                                                                    == null)
                                            .filter(Pods::isReady)
                                            .count();
                            maxUnavailable[0] = Math.max(maxUnavailable[0], (int) (nodes - ready));
                            return toolkit.size() == nodes
                                    && ready == nodes
                                    && toolkit.stream()
                                            .allMatch(
                                                    p ->
                                                            p.getSpec()
                                                                    .getContainers()
                                                                    .getFirst()
                                                                    .getImage()
                                                                    .endsWith(":" + newVersion));
                        });
        assertThat(maxUnavailable[0])
                .as("toolkit pods down at once during the rollout")
                .isEqualTo(1);
        awaitAllReady();
    }

    @Test
    @Order(6)
    void disablingAnOperandRemovesItsPodsAndLabels() {
        editSpec(spec -> section(spec, "dcgmExporter").put("enabled", false));
        enabledSteps.remove("dcgm-exporter");
        await().atMost(SHORT)
                .pollInterval(Duration.ofSeconds(1))
                .untilAsserted(
                        () -> {
                            assertThat(
                                            client.apps()
                                                    .daemonSets()
                                                    .inNamespace(NS)
                                                    .withName("nvidia-dcgm-exporter")
                                                    .get())
                                    .isNull();
                            assertThat(operandPods("dcgm-exporter")).isEmpty();
                            for (String n : gpuNodes) {
                                assertThat(labels(n))
                                        .doesNotContainKey("nvidia.com/gpu.deploy.dcgm-exporter");
                            }
                        });
    }

    @Test
    @Order(7)
    void aBadPolicyIsReportedAndChangesNothingDeployed() {
        // generation, not resourceVersion: the DaemonSet controller keeps writing status on a real
        // cluster
        Map<String, Long> before = daemonSetGenerations();
        // Valid for the CRD schema, invalid for the operator: the NRI plugin needs CDI.
        editSpec(
                spec -> {
                    section(spec, "cdi").put("enabled", false);
                    section(spec, "cdi").put("nriPluginEnabled", true);
                });
        await().atMost(SHORT)
                .pollInterval(Duration.ofSeconds(1))
                .untilAsserted(
                        () -> {
                            GenericKubernetesResource cp =
                                    client.genericKubernetesResources(
                                                    SimulatedCluster.CLUSTER_POLICIES)
                                            .withName(POLICY)
                                            .get();
                            assertThat(
                                            Serialization.asJson(
                                                    cp.getAdditionalProperties().get("status")))
                                    .contains("InvalidSpec")
                                    .contains("spec.cdi.nriPluginEnabled");
                        });
        assertThat(daemonSetGenerations()).isEqualTo(before);
        editSpec(
                spec -> {
                    section(spec, "cdi").put("enabled", true);
                    section(spec, "cdi").put("nriPluginEnabled", false);
                });
        awaitAllReady();
    }

    @Test
    @Order(8)
    void deletingThePolicyRemovesLabelsAndRestoresEveryContainerdConfigByteForByte() {
        client.genericKubernetesResources(SimulatedCluster.CLUSTER_POLICIES)
                .withName(POLICY)
                .delete();
        await().atMost(CONVERGE)
                .pollInterval(Duration.ofSeconds(2))
                .untilAsserted(
                        () -> {
                            for (String n : gpuNodes) {
                                assertThat(labels(n).keySet())
                                        .as(n)
                                        .noneMatch(k -> k.startsWith("nvidia.com/gpu.deploy."))
                                        .doesNotContain("nvidia.com/gpu.present");
                                assertThat(operandPodsOn(n))
                                        .as("operand pods on %s", n)
                                        .noneMatch(
                                                p ->
                                                        NodeProgress.STEPS.containsValue(
                                                                p.getMetadata()
                                                                        .getLabels()
                                                                        .get(
                                                                                "app.kubernetes.io/name")));
                            }
                        });
        for (String n : gpuNodes) {
            await().atMost(SHORT)
                    .pollInterval(Duration.ofSeconds(1))
                    .ignoreExceptions()
                    .untilAsserted(
                            () ->
                                    assertThat(DockerExec.run(n, "cat " + CONTAINERD_CONFIG))
                                            .as("%s:%s", n, CONTAINERD_CONFIG)
                                            .isEqualTo(containerdConfigBefore.get(n)));
        }
    }
}
