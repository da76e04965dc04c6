package org.gpuoperator.e2e.scenarios;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.gpuoperator.e2e.cluster.PolicySpecEdits.section;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
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
import java.util.stream.Stream;
import org.awaitility.core.ConditionTimeoutException;
import org.gpuoperator.e2e.cluster.GateOrder;
import org.gpuoperator.e2e.cluster.NodeProgress;
import org.gpuoperator.e2e.cluster.Pods;
import org.gpuoperator.e2e.cluster.PolicySpecEdits;
import org.gpuoperator.e2e.cluster.SimulatedCluster;
import org.gpuoperator.e2e.node.SimulatedNode;
import org.gpuoperator.e2e.simulate.RepoRoot;
import org.gpuoperator.node.cdi.CdiRegistry;
import org.gpuoperator.node.cdi.CdiSpec;
import org.gpuoperator.node.inventory.simulated.SimulatedGpuInventory;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The e2e scenarios on the simulated cluster: the real controller, and on each node the real agents
 * as processes over simulated GPUs, a real containerd where installed, and kubelet emulators
 * speaking the real gRPC protocols. The scenarios build on each other, in order, on one cluster.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SimulatedClusterScenariosIT {

    private static final String PROFILE = "h100-80gb-x8";
    private static final int GPUS = 8;
    private static final Duration CONVERGE = Duration.ofMinutes(3);
    private static final String POLICY = "cluster-policy";

    private static SimulatedCluster cluster;
    private static KubernetesClient client;
    private static final List<String> events = Collections.synchronizedList(new ArrayList<>());

    /** node -> deploy steps in the order their labels turned true */
    private static GateOrder gateOrder;

    private static final Map<String, byte[]> containerdConfigBefore = new HashMap<>();

    /**
     * The toolkit DaemonSet's pod template as the controller rendered it for the sample policy
     * (scenario 13).
     */
    private static PodSpec renderedToolkitPod;

    /** The operands' RBAC as the controller created it for the first policy (scenario 1). */
    private static List<io.fabric8.kubernetes.api.model.HasMetadata> renderedRbac = List.of();

    /** The pipeline steps the policy enables now. */
    private static final Set<String> enabledSteps =
            new LinkedHashSet<>(NodeProgress.STEPS.keySet());

    @BeforeAll
    static void startCluster() throws Exception {
        cluster = Scenarios.start(events);
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
        Scenarios.announce(info);
    }

    @AfterAll
    static void stopCluster() {
        Scenarios.printLastEvents(events, 150);
        if (gateOrder != null) {
            gateOrder.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    private static void applyPolicy(UnaryOperator<Map<String, Object>> specEdit) throws Exception {
        GenericKubernetesResource cp = Scenarios.samplePolicy(Scenarios.SIMULATED_POLICY);
        cp.getAdditionalProperties().put("spec", specEdit.apply(Scenarios.spec(cp)));
        client.genericKubernetesResources(SimulatedCluster.CLUSTER_POLICIES).resource(cp).create();
    }

    private static void editSpec(java.util.function.Consumer<Map<String, Object>> edit) {
        PolicySpecEdits.edit(client, POLICY, edit);
    }

    private static List<SimulatedNode> gpuNodes() {
        return cluster.gpuNodes();
    }

    private static NodeProgress progress(String node) {
        return Scenarios.progress(cluster, node, enabledSteps);
    }

    /** The node passed every enabled step. */
    private static void assertReady(String node) {
        NodeProgress p = progress(node);
        assertThat(p.ready()).as(p.describe()).isTrue();
    }

    /**
     * A wait's timeout as the failure to report: its message, then each not-Ready operand pod of
     * every GPU node with its state and log tail (read once, not at every poll).
     */
    private static AssertionError notReadyAfter(ConditionTimeoutException timeout) {
        return new AssertionError(
                timeout.getMessage()
                        + Scenarios.whyNotReady(
                                cluster, gpuNodes().stream().map(SimulatedNode::name).toList()),
                timeout);
    }

    private static void awaitAllReady() {
        try {
            await().atMost(CONVERGE)
                    .pollInterval(Duration.ofMillis(500))
                    .untilAsserted(
                            () -> {
                                for (SimulatedNode n : gpuNodes()) {
                                    assertReady(n.name());
                                }
                            });
        } catch (ConditionTimeoutException e) {
            throw notReadyAfter(e);
        }
    }

    private static int allocatableGpus(String node) {
        return Scenarios.allocatable(client, node, SimulatedNode.GPU_RESOURCE);
    }

    /** The node's operand pod of {@code module}, from the API server. */
    private static Pod operandPod(SimulatedNode n, String module) {
        return Scenarios.operandPod(cluster, n.name(), module)
                .orElseThrow(() -> new AssertionError("no " + module + " pod on " + n.name()));
    }

    /** A scrape of the node's exporter. */
    private static String metrics(SimulatedNode n) throws Exception {
        return Scenarios.exporterMetrics(cluster, n.name());
    }

    @Test
    @Order(10)
    void policyBringsEveryGpuNodeThroughTheGatesInOrder() throws Exception {
        applyPolicy(
                spec -> {
                    // sample quickly so the scenarios need not wait the default 30 s
                    section(spec, "dcgmExporter").put("args", List.of("--collect-interval=1000"));
                    return spec;
                });
        awaitAllReady();
        renderedRbac = AgentRbac.rendered(client);
        for (SimulatedNode n : gpuNodes()) {
            List<String> order = gateOrder.of(n.name());
            assertThat(order)
                    .as("gate order on %s", n.name())
                    .startsWith("driver", "container-toolkit", "device-plugin")
                    .containsExactlyInAnyOrder(NodeProgress.STEPS.keySet().toArray(String[]::new));
            await().atMost(Duration.ofSeconds(30))
                    .untilAsserted(() -> assertThat(allocatableGpus(n.name())).isEqualTo(GPUS));
            Map<String, String> labels =
                    client.nodes().withName(n.name()).get().getMetadata().getLabels();
            assertThat(labels)
                    .containsEntry("nvidia.com/gpu.present", "true")
                    .containsEntry("nvidia.com/gpu.count", String.valueOf(GPUS))
                    .containsEntry("nvidia.com/gpu.product", "NVIDIA-H100-80GB-HBM3")
                    .containsKey("nvidia.com/cuda.driver.major");
            await().atMost(Duration.ofSeconds(30))
                    .untilAsserted(
                            () ->
                                    assertThat(metrics(n))
                                            .contains("DCGM_FI_DEV_GPU_UTIL{")
                                            .contains(SimulatedGpuInventory.gpuUuid(n.name(), 0)));
            if (n.containerd() != null) {
                await().atMost(Duration.ofSeconds(30))
                        .untilAsserted(
                                () ->
                                        assertThat(Scenarios.criConfig(n))
                                                .contains("\"nvidia\"")
                                                .contains("nvidia-container-runtime"));
            }
        }
        assertThat(gateOrder.of("cpu-node-1")).isEmpty();
        assertThat(cluster.podsOn("cpu-node-1")).isEmpty();
    }

    /**
     * Scenario 12: the sample policy leaves the restart mode to the toolkit, and its default works
     * from the pod.
     */
    @Test
    @Order(15)
    void theToolkitsDefaultRestartReloadsContainerdFromItsPod() throws Exception {
        assertThat(Files.readString(RepoRoot.find().resolve(Scenarios.SIMULATED_POLICY)))
                .doesNotContain("RUNTIME_RESTART_MODE");
        DaemonSet toolkit =
                client.apps()
                        .daemonSets()
                        .inNamespace(SimulatedCluster.NAMESPACE)
                        .withName("nvidia-container-toolkit-daemonset")
                        .get();
        assertThat(toolkit.getSpec().getTemplate().getSpec().getContainers().getFirst().getEnv())
                .noneMatch(e -> e.getName().equals("RUNTIME_RESTART_MODE"));
        renderedToolkitPod = toolkit.getSpec().getTemplate().getSpec();
        for (SimulatedNode n : gpuNodes()) {
            assumeTrue(n.containerd() != null, "containerd is not installed: no restart to check");
            // the signal from the pod made containerd exit; its supervisor started it with the
            // nvidia runtime
            assertThat(n.containerd().starts())
                    .as("containerd starts on %s", n.name())
                    .isGreaterThanOrEqualTo(2);
            assertThat(Scenarios.criConfig(n)).contains("\"nvidia\"");
            // the ready line, written once CRI answers again: containerd writes the pod's log, and
            // the runtime-reloaded line written while it restarted can be lost
            assertThat(podLog(operandPod(n, "toolkit-agent")))
                    .anyMatch(
                            l ->
                                    l.contains("event=ready")
                                            && l.contains("runtime-reloaded=signal:"));
        }
    }

    @Test
    @Order(20)
    void allocationGivesUuidsFromTheInventoryAndTheExporterShowsThePod() throws Exception {
        SimulatedNode n = cluster.node("gpu-node-1");
        SimulatedNode.Allocation a =
                n.allocate("default", "trainer", "main", SimulatedNode.GPU_RESOURCE, 2);
        Set<String> inventory = new LinkedHashSet<>();
        IntStream.range(0, GPUS)
                .forEach(i -> inventory.add(SimulatedGpuInventory.gpuUuid(n.name(), i)));
        assertThat(a.deviceIds()).hasSize(2).allMatch(inventory::contains);
        // CDI (the policy's default): the response names the spec's devices, for CRI and in the
        // annotation the nvidia runtime reads on containerd 1.6
        List<String> cdi = a.deviceIds().stream().map(id -> "nvidia.com/gpu=" + id).toList();
        assertThat(a.response().getCdiDevicesList())
                .extracting(d -> d.getName())
                .containsExactlyInAnyOrderElementsOf(cdi);
        assertThat(a.response().getAnnotationsMap()).hasSize(1);
        var annotation = a.response().getAnnotationsMap().entrySet().iterator().next();
        assertThat(annotation.getKey()).startsWith("cdi.k8s.io/nvidia-device-plugin_");
        assertThat(List.of(annotation.getValue().split(",")))
                .containsExactlyInAnyOrderElementsOf(cdi);
        String uuid = a.deviceIds().get(0);
        await().atMost(Duration.ofSeconds(30))
                .untilAsserted(
                        () ->
                                assertThat(metrics(n).lines())
                                        .anyMatch(
                                                l ->
                                                        l.startsWith("DCGM_FI_DEV_GPU_UTIL{")
                                                                && l.contains(
                                                                        "UUID=\"" + uuid + "\"")
                                                                && l.contains("pod=\"trainer\"")
                                                                && l.contains(
                                                                        "namespace=\"default\"")));
        n.release("default", "trainer");
    }

    @Test
    @Order(30)
    void aNodeAddedLaterConverges() throws Exception {
        cluster.addGpuNode("gpu-node-4");
        awaitAllReady();
        assertThat(gateOrder.of("gpu-node-4"))
                .startsWith("driver", "container-toolkit", "device-plugin");
        await().atMost(Duration.ofSeconds(30))
                .untilAsserted(() -> assertThat(allocatableGpus("gpu-node-4")).isEqualTo(GPUS));
    }

    @Test
    @Order(40)
    void aKilledAgentIsRestartedAndTheNodeRecovers() {
        SimulatedNode n = cluster.node("gpu-node-2");
        Pod before = operandPod(n, "device-plugin");
        String name = before.getMetadata().getName();
        int restarts = before.getStatus().getContainerStatuses().get(0).getRestartCount();
        n.pods().crash(name);
        await().atMost(Duration.ofSeconds(60))
                .untilAsserted(
                        () -> {
                            Pod pod =
                                    client.pods()
                                            .inNamespace(SimulatedCluster.NAMESPACE)
                                            .withName(name)
                                            .get();
                            assertThat(
                                            pod.getStatus()
                                                    .getContainerStatuses()
                                                    .get(0)
                                                    .getRestartCount())
                                    .isGreaterThan(restarts);
                            assertThat(n.pods().runningPods()).contains(name);
                        });
        awaitAllReady();
        await().atMost(Duration.ofSeconds(30))
                .untilAsserted(() -> assertThat(allocatableGpus(n.name())).isEqualTo(GPUS));
    }

    @Test
    @Order(50)
    void anXidMakesTheDeviceUnhealthyAndItRecovers() {
        SimulatedNode n = cluster.node("gpu-node-3");
        n.faults().injectXid(3, 79);
        await().atMost(Duration.ofSeconds(30))
                .untilAsserted(() -> assertThat(allocatableGpus(n.name())).isEqualTo(GPUS - 1));
        n.faults().recover(3);
        await().atMost(Duration.ofSeconds(30))
                .untilAsserted(() -> assertThat(allocatableGpus(n.name())).isEqualTo(GPUS));
    }

    @Test
    @Order(60)
    void aToolkitVersionChangeRollsOutNodeByNode() throws Exception {
        DaemonSet before =
                client.apps()
                        .daemonSets()
                        .inNamespace(SimulatedCluster.NAMESPACE)
                        .withName("nvidia-container-toolkit-daemonset")
                        .get();
        String oldImage =
                before.getSpec().getTemplate().getSpec().getContainers().get(0).getImage();
        // the new version's image: each node pulls it from the simulated registry
        editSpec(spec -> section(spec, "toolkit").put("version", "9.9.9-e2e"));
        int nodes = gpuNodes().size();
        int[] maxUnavailable = {0};
        try {
            await().atMost(CONVERGE)
                    .pollInterval(Duration.ofMillis(100))
                    .untilAsserted(
                            () -> {
                                List<Pod> toolkit =
                                        client.pods()
                                                .inNamespace(SimulatedCluster.NAMESPACE)
                                                .withLabel(
                                                        "app.kubernetes.io/name", "toolkit-agent")
                                                .list()
                                                .getItems();
                                long ready = toolkit.stream().filter(Pods::isReady).count();
                                maxUnavailable[0] =
                                        Math.max(maxUnavailable[0], (int) (nodes - ready));
                                assertThat(
                                                toolkit.size() == nodes
                                                        && ready == nodes
                                                        && toolkit.stream()
                                                                .allMatch(
                                                                        p ->
                                                                                p.getSpec()
                                                                                        .getContainers()
                                                                                        .get(0)
                                                                                        .getImage()
                                                                                        .endsWith(
                                                                                                ":9.9.9-e2e")))
                                        .as(() -> rollout(toolkit))
                                        .isTrue();
                            });
        } catch (ConditionTimeoutException e) {
            throw notReadyAfter(e);
        }
        assertThat(oldImage).doesNotEndWith(":9.9.9-e2e");
        assertThat(maxUnavailable[0])
                .as("toolkit pods down at once during the rollout")
                .isEqualTo(1);
        awaitAllReady();
    }

    /** The toolkit pods of a rollout: node, image, readiness, deletion. */
    private static String rollout(List<Pod> toolkit) {
        StringBuilder sb = new StringBuilder("toolkit pods:");
        for (Pod p : toolkit) {
            sb.append("\n  ")
                    .append(p.getMetadata().getName())
                    .append(" on ")
                    .append(p.getSpec().getNodeName())
                    .append(' ')
                    .append(p.getSpec().getContainers().get(0).getImage())
                    .append(Pods.isReady(p) ? " ready" : " not ready")
                    .append(p.getMetadata().getDeletionTimestamp() != null ? " deleting" : "");
        }
        return sb.toString();
    }

    /**
     * Issue 17: CDI off and on again. Each toggle changes the toolkit's runtimes, so each toolkit
     * pod is replaced: the old one's cleanup restarts containerd once, the new one's configure
     * once. No other restart.
     */
    @Test
    @Order(65)
    void turningCdiOffAndOnAgainConvergesWithOnlyTheNeededContainerdRestarts() throws Exception {
        assumeTrue(cluster.podsAsContainers(), "CDI resolution needs the nodes' containerd");
        Map<String, Integer> startsBefore = new HashMap<>();
        gpuNodes().forEach(n -> startsBefore.put(n.name(), n.containerd().starts()));

        editSpec(spec -> section(spec, "cdi").put("enabled", false));
        awaitCdi(false);
        editSpec(spec -> section(spec, "cdi").put("enabled", true));
        awaitCdi(true);

        for (SimulatedNode n : gpuNodes()) {
            assertThat(n.containerd().starts() - startsBefore.get(n.name()))
                    .as("containerd restarts on %s for two toggles", n.name())
                    .isLessThanOrEqualTo(4);
        }
    }

    /** Waits until every node and the cluster show CDI {@code on} or off, and all are ready. */
    private static void awaitCdi(boolean on) {
        try {
            awaitCdiState(on);
        } catch (ConditionTimeoutException e) {
            // what held a node back: the toolkit and device-plugin events here, the not-Ready
            // pods' states and logs in the failure
            synchronized (events) {
                events.stream()
                        .skip(Math.max(0, events.size() - 300))
                        .filter(ev -> ev.contains("device-plugin") || ev.contains("toolkit"))
                        .forEach(ev -> System.out.println("  event: " + ev));
            }
            throw notReadyAfter(e);
        }
    }

    private static void awaitCdiState(boolean on) {
        await().atMost(CONVERGE)
                .pollInterval(Duration.ofMillis(500))
                .ignoreExceptions() // containerd restarts while the toolkit pods are replaced
                .untilAsserted(
                        () -> {
                            for (String rc : List.of("nvidia-cdi", "nvidia-legacy")) {
                                var found =
                                        client.resources(
                                                        io.fabric8.kubernetes.api.model.node.v1
                                                                .RuntimeClass.class)
                                                .withName(rc)
                                                .get();
                                assertThat(found != null).as("RuntimeClass " + rc).isEqualTo(on);
                            }
                            for (SimulatedNode n : gpuNodes()) {
                                assertThat(
                                                Files.exists(
                                                        n.root()
                                                                .resolve(
                                                                        "var/run/cdi/nvidia.yaml")))
                                        .as("CDI spec on %s", n.name())
                                        .isEqualTo(on);
                                assertThat(Scenarios.criConfig(n).contains("\"nvidia-cdi\""))
                                        .as(
                                                "nvidia-cdi handler on %s, registered with CDI"
                                                        + " off too (as upstream)",
                                                n.name())
                                        .isTrue();
                                assertReady(n.name());
                            }
                        });
    }

    @Test
    @Order(70)
    void disablingAnOperandRemovesItsPodsAndLabels() {
        editSpec(spec -> section(spec, "dcgmExporter").put("enabled", false));
        enabledSteps.remove("dcgm-exporter");
        await().atMost(Duration.ofSeconds(60))
                .untilAsserted(
                        () -> {
                            assertThat(
                                            client.apps()
                                                    .daemonSets()
                                                    .inNamespace(SimulatedCluster.NAMESPACE)
                                                    .withName("nvidia-dcgm-exporter")
                                                    .get())
                                    .isNull();
                            assertThat(
                                            client.pods()
                                                    .inNamespace(SimulatedCluster.NAMESPACE)
                                                    .withLabel(
                                                            "app.kubernetes.io/name",
                                                            "dcgm-exporter")
                                                    .list()
                                                    .getItems())
                                    .isEmpty();
                            for (SimulatedNode n : gpuNodes()) {
                                assertThat(
                                                client.nodes()
                                                        .withName(n.name())
                                                        .get()
                                                        .getMetadata()
                                                        .getLabels())
                                        .doesNotContainKey("nvidia.com/gpu.deploy.dcgm-exporter");
                                assertThat(n.pods().runningPods())
                                        .noneMatch(p -> p.startsWith("nvidia-dcgm-exporter-"));
                            }
                        });
    }

    @Test
    @Order(80)
    void aBadPolicyIsReportedAndChangesNothingDeployed() throws Exception {
        // their specs, not their resourceVersions: the DaemonSet controller writes their status
        // whenever a pod's readiness changes, which is not something deployed
        Map<String, String> specs = new HashMap<>();
        client.apps()
                .daemonSets()
                .inNamespace(SimulatedCluster.NAMESPACE)
                .list()
                .getItems()
                .forEach(
                        d ->
                                specs.put(
                                        d.getMetadata().getName(),
                                        Serialization.asJson(d.getSpec())));
        // Valid for the CRD schema, invalid for the operator: the NRI plugin needs CDI.
        editSpec(
                spec -> {
                    section(spec, "cdi").put("enabled", false);
                    section(spec, "cdi").put("nriPluginEnabled", true);
                });
        await().atMost(Duration.ofSeconds(60))
                .untilAsserted(
                        () -> {
                            String status =
                                    Serialization.asJson(Scenarios.policyStatus(client, POLICY));
                            assertThat(status)
                                    .contains("InvalidSpec")
                                    .contains("spec.cdi.nriPluginEnabled");
                        });
        // the controller's Events, as an admin reads them: on the policy the invalid spec and the
        // DaemonSets it created, on a node the gates it passed
        await().atMost(Duration.ofSeconds(60))
                .untilAsserted(
                        () -> {
                            String policy = describeEvents("clusterpolicy", POLICY);
                            assertThat(policy)
                                    .containsPattern(
                                            "Warning\\s+InvalidSpec\\s+.*\\sgpu-operator\\s+.*spec\\.cdi\\.nriPluginEnabled")
                                    .containsPattern(
                                            "Normal\\s+DaemonSetCreated\\s+.*\\sgpu-operator\\s+DaemonSet"
                                                    + " gpu-operator/nvidia-device-plugin-daemonset created");
                            assertThat(describeEvents("node", "gpu-node-1"))
                                    .containsPattern(
                                            "Normal\\s+GatePassed\\s+.*\\sgpu-operator\\s+passed the gate of"
                                                    + " device-plugin");
                        });
        Map<String, String> after = new HashMap<>();
        client.apps()
                .daemonSets()
                .inNamespace(SimulatedCluster.NAMESPACE)
                .list()
                .getItems()
                .forEach(
                        d ->
                                after.put(
                                        d.getMetadata().getName(),
                                        Serialization.asJson(d.getSpec())));
        assertThat(after).isEqualTo(specs);
        editSpec(
                spec -> {
                    section(spec, "cdi").put("enabled", true);
                    section(spec, "cdi").put("nriPluginEnabled", false);
                });
        awaitAllReady();
    }

    @Test
    @Order(90)
    void deletingThePolicyRemovesLabelsAndRestoresEveryContainerdConfigByteForByte() {
        client.genericKubernetesResources(SimulatedCluster.CLUSTER_POLICIES)
                .withName(POLICY)
                .delete();
        await().atMost(CONVERGE)
                .untilAsserted(
                        () -> {
                            for (SimulatedNode n : gpuNodes()) {
                                Map<String, String> labels =
                                        client.nodes()
                                                .withName(n.name())
                                                .get()
                                                .getMetadata()
                                                .getLabels();
                                assertThat(labels.keySet())
                                        .noneMatch(k -> k.startsWith("nvidia.com/gpu.deploy."))
                                        .doesNotContain("nvidia.com/gpu.present");
                                assertThat(n.pods().runningPods()).isEmpty();
                            }
                        });
        assumeTrue(
                !containerdConfigBefore.isEmpty(),
                "containerd is not installed: config restore not checked");
        for (SimulatedNode n : gpuNodes()) {
            if (containerdConfigBefore.containsKey(n.name())) {
                await().atMost(Duration.ofSeconds(30))
                        .untilAsserted(
                                () ->
                                        assertThat(Files.readAllBytes(n.containerd().config()))
                                                .as(n.name())
                                                .isEqualTo(containerdConfigBefore.get(n.name())));
            }
        }
    }

    /**
     * Scenario 13: the toolkit's pod spec exactly as rendered, less one volume it needs (the
     * runtime's socket), on a fresh node without the policy (so no other toolkit restarts its
     * containerd meanwhile): the agent cannot reach containerd, says which path, exits, and the
     * kubelet backs off. Nothing of the node is lost on the way: the agent reverts what it wrote.
     */
    @Test
    @Order(91)
    void aRenderedPodSpecWithoutANeededVolumeCrashLoopsAndItsLogNamesThePath() throws Exception {
        assumeTrue(
                cluster.podsAsContainers(),
                "pods run as processes here: volumes are mapped, not mounted");
        SimulatedNode n = cluster.addGpuNode("gpu-node-5");
        byte[] original = Files.readAllBytes(n.containerd().config());
        // the driver step done, as a validated host driver leaves it: the toolkit goes on to its
        // own work
        Path driverReady = n.root().resolve("run/nvidia/validations/driver-ready");
        Files.writeString(driverReady, "IS_HOST_DRIVER=true\nNVIDIA_DRIVER_ROOT=/\n");
        assertThat(renderedToolkitPod)
                .as("the toolkit's pod template, kept by the first scenario")
                .isNotNull();
        PodSpec spec = Serialization.clone(renderedToolkitPod);
        // without its writable config directory the toolkit sees the host's config only through
        // the read-only host root, and cannot write it
        assertThat(spec.getVolumes()).extracting(Volume::getName).contains("containerd-config");
        spec.getVolumes().removeIf(v -> v.getName().equals("containerd-config"));
        spec.getContainers()
                .getFirst()
                .getVolumeMounts()
                .removeIf(m -> m.getName().equals("containerd-config"));
        spec.setNodeSelector(null);
        spec.setNodeName(n.name());
        client.pods()
                .inNamespace(SimulatedCluster.NAMESPACE)
                .resource(
                        new PodBuilder()
                                .withNewMetadata()
                                .withName("toolkit-without-config-dir")
                                .withNamespace(SimulatedCluster.NAMESPACE)
                                .withUid(java.util.UUID.randomUUID().toString())
                                .endMetadata()
                                .withSpec(spec)
                                .build())
                .create();
        try {
            // ignoreExceptions: until the kubelet has written a status, its parts are null
            await().atMost(Duration.ofSeconds(90))
                    .ignoreExceptions()
                    .untilAsserted(
                            () -> {
                                Pod pod =
                                        client.pods()
                                                .inNamespace(SimulatedCluster.NAMESPACE)
                                                .withName("toolkit-without-config-dir")
                                                .get();
                                assertThat(pod.getStatus()).isNotNull();
                                assertThat(pod.getStatus().getContainerStatuses()).isNotEmpty();
                                var status = pod.getStatus().getContainerStatuses().getFirst();
                                assertThat(status.getLastState())
                                        .as("no exit yet: %s", status)
                                        .isNotNull(); // awaited, not an NPE
                                assertThat(status.getLastState().getTerminated()).isNotNull();
                                assertThat(status.getState().getWaiting()).isNotNull();
                                assertThat(status.getState().getWaiting().getReason())
                                        .isEqualTo("CrashLoopBackOff");
                                assertThat(status.getLastState().getTerminated().getExitCode())
                                        .isEqualTo(1);
                                assertThat(status.getRestartCount()).isGreaterThanOrEqualTo(1);
                            });
            assertThat(
                            podLog(
                                    client.pods()
                                            .inNamespace(SimulatedCluster.NAMESPACE)
                                            .withName("toolkit-without-config-dir")
                                            .get()))
                    .anyMatch(l -> l.contains("/host/etc/containerd"));
        } finally {
            client.pods()
                    .inNamespace(SimulatedCluster.NAMESPACE)
                    .withName("toolkit-without-config-dir")
                    .delete();
        }
        await().atMost(Duration.ofSeconds(60))
                .untilAsserted(
                        () ->
                                assertThat(n.pods().runningPods())
                                        .doesNotContain("toolkit-without-config-dir"));
        assertThat(Files.readAllBytes(n.containerd().config())).isEqualTo(original);
        Files.delete(driverReady);
    }

    /**
     * Scenario 11: the policy again; each node's toolkit is killed right after it rewrote
     * containerd's config, and restarted by the kubelet. Deleting the policy still gives back every
     * node's original bytes: the backups live on the host, not in the pod.
     */
    @Test
    @Order(92)
    void aToolkitKilledMidRolloutStillRestoresEveryConfigByteForByte() throws Exception {
        assumeTrue(
                !containerdConfigBefore.isEmpty(),
                "containerd is not installed: config restore not checked");
        enabledSteps.addAll(NodeProgress.STEPS.keySet());
        applyPolicy(spec -> spec);
        Set<String> killed = new LinkedHashSet<>();
        await().atMost(CONVERGE)
                .pollInterval(Duration.ofMillis(50))
                .until(
                        () -> {
                            for (SimulatedNode n : gpuNodes()) {
                                byte[] before = containerdConfigBefore.get(n.name());
                                if (before == null
                                        || killed.contains(n.name())
                                        || java.util.Arrays.equals(
                                                Files.readAllBytes(n.containerd().config()),
                                                before)) {
                                    continue;
                                }
                                String toolkit;
                                try {
                                    toolkit =
                                            operandPod(n, "toolkit-agent").getMetadata().getName();
                                } catch (AssertionError replacedJustNow) {
                                    continue; // its DaemonSet is replacing it: the next poll
                                }
                                if (n.pods().runningPods().contains(toolkit)) {
                                    try {
                                        n.pods().crash(toolkit);
                                        killed.add(n.name());
                                    } catch (IllegalArgumentException | IllegalStateException e) {
                                        // its container stopped between the look and the kill:
                                        // the next poll tries again
                                        System.out.println(
                                                "  kill missed on " + n.name() + ": " + e);
                                    }
                                }
                            }
                            return killed.size() == containerdConfigBefore.size();
                        });
        awaitAllReady();
        for (String name : killed) {
            Pod toolkit = operandPod(cluster.node(name), "toolkit-agent");
            assertThat(toolkit.getStatus().getContainerStatuses().getFirst().getRestartCount())
                    .as(name)
                    .isGreaterThanOrEqualTo(1);
        }
    }

    /**
     * What admission gave a pod's {@code main} container on its node and what pod-resources lists
     * for it, both read at one moment while the node holds its devices.
     */
    private record HeldGpus(
            Map<String, org.gpuoperator.e2e.node.DeviceAdmission.ContainerDevices> admitted,
            Map<String, List<String>> assigned) {

        /** Null while the pod is not admitted with devices on a node (yet, or any more). */
        static HeldGpus of(SimulatedCluster cluster, Pod p) {
            if (p == null || p.getSpec().getNodeName() == null) {
                return null;
            }
            SimulatedNode node = cluster.node(p.getSpec().getNodeName());
            String ns = p.getMetadata().getNamespace();
            String name = p.getMetadata().getName();
            var admitted = node.admitted(ns, name);
            var assigned = node.assigned(ns, name, "main");
            // a reclaim between the two reads leaves one of them empty: read again next time
            return admitted.isEmpty()
                            || assigned.isEmpty()
                            || !node.admitted(ns, name).equals(admitted)
                    ? null
                    : new HeldGpus(admitted, assigned);
        }
    }

    private static final java.util.regex.Pattern SMI_LINE =
            java.util.regex.Pattern.compile(
                    "GPU (\\d+): NVIDIA H100 80GB HBM3 \\(UUID: (GPU-[0-9a-f-]+)\\)");

    /**
     * Scenario 10 (issue 14): a GPU workload applied with kubectl is scheduled, admitted through
     * the node's device manager (GetPreferredAllocation, Allocate), and runs through CRI under the
     * {@code nvidia} handler that the toolkit agent installed; {@code nvidia-smi -L} in it lists
     * exactly its allocated GPUs. A pod without a GPU request, under the same handler, sees none.
     * Both run as the busybox stand-in: the CUDA image is not local.
     */
    @Test
    @Order(93)
    void aGpuWorkloadAppliedWithKubectlSeesExactlyItsAllocatedGpus() throws Exception {
        assumeTrue(
                cluster.podsAsContainers(),
                "pods run as processes here: no runtime to run a workload");
        awaitAllReady(); // the policy of the previous scenario
        Path manifest = cluster.workDir().resolve("workload.yaml");
        Files.writeString(
                manifest,
                """
                apiVersion: v1
                kind: Pod
                metadata:
                  name: cuda-smi
                  namespace: default
                spec:
                  runtimeClassName: nvidia
                  restartPolicy: Never
                  containers:
                  - name: main
                    image: %1$s
                    command: ["sh", "-c", "nvidia-smi -L; ls -1d /dev/nvidia* /usr/lib/x86_64-linux-gnu/* /usr/bin/nvidia* 2>/dev/null | sed 's/^/path /'"]
                    resources:
                      limits:
                        nvidia.com/gpu: 2
                ---
                apiVersion: v1
                kind: Pod
                metadata:
                  name: no-gpu
                  namespace: default
                spec:
                  runtimeClassName: nvidia
                  restartPolicy: Never
                  containers:
                  - name: main
                    image: %1$s
                    command: ["sh", "-c", "command -v nvidia-smi || echo no-gpu; ls /dev | grep -c nvidia || true"]
                """
                        .formatted(Workloads.IMAGE));
        boolean kubectl = onPath("kubectl");
        if (kubectl) {
            assertThat(kubectl("apply", "-f", manifest.toString()))
                    .contains("pod/cuda-smi created", "pod/no-gpu created");
        } else {
            System.out.println(
                    "kubectl is not on PATH: the workload is created with the fabric8 client and its log read"
                            + " through the API server's log endpoint instead");
            client.load(Files.newInputStream(manifest)).inNamespace("default").create();
        }
        // what admission gave cuda-smi and what pod-resources lists for it, read while it holds its
        // GPUs: once it has ended, the next GPU pod admitted on its node (the validator's CUDA
        // workload, every recheck) reclaims them, as the kubelet does, and both records go
        var admission = new java.util.concurrent.atomic.AtomicReference<HeldGpus>();
        try {
            for (String name : List.of("cuda-smi", "no-gpu")) {
                await().atMost(Duration.ofSeconds(120))
                        .pollInterval(Duration.ofMillis(250))
                        .untilAsserted(
                                () -> {
                                    Pod p =
                                            client.pods()
                                                    .inNamespace("default")
                                                    .withName(name)
                                                    .get();
                                    if (name.equals("cuda-smi") && admission.get() == null) {
                                        admission.set(HeldGpus.of(cluster, p));
                                    }
                                    assertThat(p.getStatus()).as(name).isNotNull();
                                    assertThat(p.getStatus().getPhase())
                                            .as(name + ": " + p.getStatus())
                                            .isEqualTo("Succeeded");
                                });
            }
            Pod gpuPod = client.pods().inNamespace("default").withName("cuda-smi").get();
            SimulatedNode n = cluster.node(gpuPod.getSpec().getNodeName());
            assertThat(admission.get())
                    .as("cuda-smi's admission, seen while it held its GPUs")
                    .isNotNull();
            // what Allocate answered is what pod-resources reports for the pod, and it is the
            // node's own GPUs
            // CDI (the policy's default): the Allocate response names the spec's devices in an
            // annotation with the CDI prefix, which the nvidia runtime resolves on containerd 1.6
            List<String> cdiNames =
                    admission.get().admitted().get("main").annotations().entrySet().stream()
                            .filter(a -> a.getKey().startsWith("cdi.k8s.io/nvidia-device-plugin_"))
                            .flatMap(a -> Stream.of(a.getValue().split(",")))
                            .toList();
            assertThat(cdiNames)
                    .as("CDI names of the Allocate response")
                    .hasSize(2)
                    .allMatch(c -> c.startsWith("nvidia.com/gpu=GPU-"));
            List<String> allocated =
                    cdiNames.stream().map(c -> c.substring("nvidia.com/gpu=".length())).toList();
            assertThat(allocated).hasSize(2).doesNotHaveDuplicates();
            assertThat(admission.get().assigned().get(SimulatedNode.GPU_RESOURCE))
                    .containsExactlyInAnyOrderElementsOf(allocated);
            Set<String> inventory = new LinkedHashSet<>();
            IntStream.range(0, GPUS)
                    .forEach(i -> inventory.add(SimulatedGpuInventory.gpuUuid(n.name(), i)));
            assertThat(inventory).containsAll(allocated);

            List<String> gpuLog =
                    kubectl
                            ? kubectl("logs", "-n", "default", "cuda-smi").lines().toList()
                            : podLog(gpuPod);
            System.out.println(
                    "kubectl logs cuda-smi (node " + n.name() + ", allocated " + allocated + "):");
            gpuLog.forEach(l -> System.out.println("  " + l));
            List<String> smiLines = gpuLog.stream().filter(l -> !l.startsWith("path ")).toList();
            assertThat(smiLines).hasSize(2).allMatch(l -> SMI_LINE.matcher(l).matches());
            // the container sees exactly the device nodes and the mounts the node's spec gives
            // these two devices
            CdiSpec.ContainerEdits edits = CdiRegistry.load(n.root()).resolve(cdiNames);
            Set<String> paths =
                    gpuLog.stream()
                            .filter(l -> l.startsWith("path "))
                            .map(l -> l.substring("path ".length()))
                            .collect(java.util.stream.Collectors.toSet());
            Set<String> specNodes =
                    edits.deviceNodes().stream()
                            .map(CdiSpec.DeviceNode::path)
                            .collect(java.util.stream.Collectors.toSet());
            assertThat(specNodes).contains("/dev/nvidiactl").hasSizeGreaterThan(2);
            assertThat(paths).containsAll(specNodes);
            assertThat(paths.stream().filter(p -> p.matches("/dev/nvidia[0-9]+")))
                    .as("GPU device nodes in the container")
                    .containsExactlyInAnyOrderElementsOf(
                            specNodes.stream()
                                    .filter(p -> p.matches("/dev/nvidia[0-9]+"))
                                    .toList());
            List<String> libraries =
                    edits.mounts().stream()
                            .map(CdiSpec.Mount::containerPath)
                            .filter(p -> p.contains("/lib"))
                            .toList();
            assertThat(libraries).anyMatch(p -> p.contains("libcuda.so."));
            assertThat(paths).containsAll(libraries);
            List<String> seen =
                    smiLines.stream()
                            .map(
                                    l -> {
                                        var m = SMI_LINE.matcher(l);
                                        assertThat(m.matches()).isTrue();
                                        return m.group(2);
                                    })
                            .toList();
            assertThat(seen).containsExactlyInAnyOrderElementsOf(allocated);
            assertThat(smiLines.get(0)).startsWith("GPU 0: ");
            assertThat(smiLines.get(1)).startsWith("GPU 1: ");

            Pod plain = client.pods().inNamespace("default").withName("no-gpu").get();
            List<String> plainLog =
                    kubectl
                            ? kubectl("logs", "-n", "default", "no-gpu").lines().toList()
                            : podLog(plain);
            System.out.println("kubectl logs no-gpu (node " + plain.getSpec().getNodeName() + "):");
            plainLog.forEach(l -> System.out.println("  " + l));
            assertThat(plainLog).containsExactly("no-gpu", "0");
            assertThat(cluster.node(plain.getSpec().getNodeName()).admitted("default", "no-gpu"))
                    .isEmpty();

            // the nvidia handler ran both: the shim log of the runtime the toolkit agent installed
            // on the node
            for (Pod p : List.of(gpuPod, plain)) {
                String id =
                        p.getStatus()
                                .getContainerStatuses()
                                .getFirst()
                                .getContainerID()
                                .replace("containerd://", "");
                Path shimLog =
                        cluster.node(p.getSpec().getNodeName())
                                .root()
                                .resolve("var/log/nvidia-container-runtime-shim.log");
                assertThat(Files.readAllLines(shimLog))
                        .as("%s in %s", id, shimLog)
                        .anyMatch(
                                l ->
                                        l.startsWith("nvidia-container-runtime ")
                                                && l.contains(" create ")
                                                && l.contains(id));
            }
            // pulled from the simulated registry (served by the busybox stand-in), with the
            // kubelet's Pulled event on the pod (the first of the two pods on a node pulls it,
            // the other finds it present)
            assertThat(client.v1().events().inNamespace("default").list().getItems())
                    .anyMatch(
                            e ->
                                    "cuda-smi".equals(e.getInvolvedObject().getName())
                                            && "Pulled".equals(e.getReason())
                                            && e.getMessage().contains(Workloads.IMAGE));
            if (kubectl) {
                assertThat(kubectl("get", "events", "-n", "default", "-o", "yaml"))
                        .contains("reason: Pulled");
            }
            synchronized (events) {
                assertThat(events)
                        .anyMatch(
                                e ->
                                        e.contains("pulled " + Workloads.IMAGE)
                                                && e.contains("from the simulated registry"));
                events.stream()
                        .filter(e -> e.contains("default/cuda-smi") || e.contains("default/no-gpu"))
                        .forEach(e -> System.out.println("  event: " + e));
            }
        } finally {
            if (kubectl) {
                kubectl("delete", "-f", manifest.toString(), "--wait=false");
            } else {
                client.pods().inNamespace("default").withName("cuda-smi").delete();
                client.pods().inNamespace("default").withName("no-gpu").delete();
            }
        }
        await().atMost(Duration.ofSeconds(60))
                .untilAsserted(
                        () -> {
                            assertThat(client.pods().inNamespace("default").list().getItems())
                                    .isEmpty();
                            for (SimulatedNode n : gpuNodes()) {
                                assertThat(n.admitted("default", "cuda-smi"))
                                        .as(n.name())
                                        .isEmpty();
                                assertThat(n.assigned("default", "cuda-smi", "main"))
                                        .as(n.name())
                                        .isEmpty();
                                assertThat(allocatableGpus(n.name())).as(n.name()).isEqualTo(GPUS);
                                assertThat(n.pods().runningPods())
                                        .noneMatch(p -> p.equals("cuda-smi") || p.equals("no-gpu"));
                            }
                        });
    }

    /**
     * Scenario 11's end: deleting the policy gives back every node's original containerd config
     * bytes.
     */
    @Test
    @Order(94)
    void afterTheKilledToolkitsDeletingThePolicyRestoresEveryConfigByteForByte() {
        assumeTrue(
                !containerdConfigBefore.isEmpty(),
                "containerd is not installed: config restore not checked");
        client.genericKubernetesResources(SimulatedCluster.CLUSTER_POLICIES)
                .withName(POLICY)
                .delete();
        for (SimulatedNode n : gpuNodes()) {
            if (containerdConfigBefore.containsKey(n.name())) {
                await().atMost(CONVERGE)
                        .untilAsserted(
                                () -> {
                                    assertThat(n.pods().runningPods()).isEmpty();
                                    assertThat(Files.readAllBytes(n.containerd().config()))
                                            .as(n.name())
                                            .isEqualTo(containerdConfigBefore.get(n.name()));
                                });
            }
        }
    }

    /**
     * Last: every API call each agent made in all the scenarios above against the RBAC it was
     * granted ({@link AgentRbac}): no call without a grant, no grant without a call.
     */
    @Test
    @Order(99)
    void everyAgentUsedExactlyTheRbacItIsGranted() {
        assumeTrue(
                cluster.podsAsContainers(),
                "pods ran as host processes: agents called with the admin kubeconfig");
        assertThat(renderedRbac).as("RBAC read in scenario 1").isNotEmpty();
        assertThat(AgentRbac.violations(renderedRbac, cluster.api().calls())).isEmpty();
    }

    private static boolean onPath(String command) {
        return java.util.Arrays.stream(System.getenv().getOrDefault("PATH", "").split(":"))
                .anyMatch(d -> !d.isEmpty() && Files.isExecutable(Path.of(d, command)));
    }

    /**
     * The Events section of {@code kubectl describe <kind> <name>}; without kubectl, the same
     * Events as describe finds them (field selector on the involved object), one line each.
     */
    private static String describeEvents(String kind, String name) throws Exception {
        if (onPath("kubectl")) {
            String out = kubectl("describe", kind, name);
            return out.substring(Math.max(0, out.indexOf("Events:")));
        }
        String k = kind.equals("node") ? "Node" : "ClusterPolicy";
        return client
                .v1()
                .events()
                .inAnyNamespace()
                .withField("involvedObject.kind", k)
                .withField("involvedObject.name", name)
                .list()
                .getItems()
                .stream()
                .map(
                        e ->
                                e.getType()
                                        + "  "
                                        + e.getReason()
                                        + "  "
                                        + e.getLastTimestamp()
                                        + "  "
                                        + e.getSource().getComponent()
                                        + "  "
                                        + e.getMessage())
                .collect(java.util.stream.Collectors.joining("\n"));
    }

    private static String kubectl(String... args) throws Exception {
        return Scenarios.kubectl(cluster, args);
    }

    /** The pod's current log, through the API server's log endpoint as kubectl reads it. */
    private static List<String> podLog(Pod pod) {
        return Workloads.log(
                cluster, pod.getMetadata().getNamespace(), pod.getMetadata().getName());
    }
}
