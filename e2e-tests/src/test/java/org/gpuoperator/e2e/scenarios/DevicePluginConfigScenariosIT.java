package org.gpuoperator.e2e.scenarios;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.gpuoperator.e2e.cluster.PolicySpecEdits.section;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fabric8.kubernetes.api.model.ConfigMapBuilder;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.gpuoperator.e2e.cluster.NodeProgress;
import org.gpuoperator.e2e.cluster.PolicySpecEdits;
import org.gpuoperator.e2e.cluster.SimulatedCluster;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Issue 25, named device-plugin configs from a ConfigMap (pods as containers, one GPU node): the
 * node label {@code nvidia.com/device-plugin.config} switches time-slicing on and off without a new
 * pod, a bad config is refused and reported, and {@code devicePlugin.config.default} on a {@code
 * t4-x1} node shares its one GPU between five pods of a Deployment (the exporter shows each pod's
 * own usage of it), then through MPS between two pods, each with the control daemon's pipe and
 * upstream's limits.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class DevicePluginConfigScenariosIT {

    private static final String POLICY = "cluster-policy";
    private static final String NODE = "gpu-node-1";
    private static final String CONFIG_MAP = "plugin-config";
    private static final String LABEL = "nvidia.com/device-plugin.config";
    private static final String GPU = "nvidia.com/gpu";
    private static final Duration CONVERGE = Duration.ofMinutes(4);
    private static final Duration SWITCH = Duration.ofSeconds(60);
    private static final String MPS_CONFIG = "mps-2";
    private static final String MPS_2 =
            "version: v1\nsharing:\n  mps:\n    resources:\n    - name: nvidia.com/gpu\n      replicas: 2\n";
    private static final String MPS_DAEMON = "nvidia-device-plugin-mps-control-daemon";

    private static SimulatedCluster cluster;
    private static KubernetesClient client;
    private static final List<String> events = Collections.synchronizedList(new ArrayList<>());

    @BeforeAll
    static void startCluster() throws Exception {
        cluster = Scenarios.start(events);
        assumeTrue(cluster.podsAsContainers(), "the ConfigMap volume needs pods as containers");
        client = cluster.client();
        cluster.addGpuNode(NODE);
        cluster.startController();
    }

    @BeforeEach
    void announce(TestInfo info) {
        Scenarios.announce(info);
    }

    @AfterAll
    static void stopCluster() {
        Scenarios.printLastEvents(events, 80);
        if (cluster != null) {
            cluster.close();
        }
    }

    private static String timeSlicing(int replicas, boolean renameByDefault) {
        return "version: v1\n"
                + "sharing:\n"
                + "  timeSlicing:\n"
                + "    renameByDefault: "
                + renameByDefault
                + "\n"
                + "    resources:\n"
                + "    - name: nvidia.com/gpu\n"
                + "      replicas: "
                + replicas
                + "\n";
    }

    private static Node node() {
        return client.nodes().withName(NODE).get();
    }

    private static Map<String, String> labels() {
        return Scenarios.labels(client, NODE);
    }

    private static Map<String, String> annotations() {
        return Scenarios.annotations(client, NODE);
    }

    private static int allocatableGpus() {
        return Scenarios.allocatable(client, NODE, GPU);
    }

    private static void label(String value) {
        Scenarios.label(client, NODE, LABEL, value);
    }

    private static Map<String, Object> status() {
        return Scenarios.policyStatus(client, POLICY);
    }

    private static void editSpec(Consumer<Map<String, Object>> edit) {
        PolicySpecEdits.edit(client, POLICY, edit);
    }

    /**
     * The device plugin's and feature discovery's pods: uid and restart count, to see no restart.
     */
    private static Map<String, String> agentPods() {
        Map<String, String> out = new java.util.TreeMap<>();
        for (Pod p : cluster.operandPodsOn(NODE)) {
            String app = p.getMetadata().getLabels().get("app.kubernetes.io/name");
            if ("device-plugin".equals(app) || "feature-discovery".equals(app)) {
                out.put(app, p.getMetadata().getUid() + " restarts=" + Scenarios.restarts(p));
            }
        }
        return out;
    }

    private static void awaitReady() {
        await().atMost(CONVERGE)
                .pollInterval(Duration.ofMillis(250))
                .untilAsserted(
                        () -> {
                            NodeProgress p =
                                    Scenarios.progress(cluster, NODE, NodeProgress.STEPS.keySet());
                            assertThat(p.ready()).as(p.describe()).isTrue();
                        });
    }

    @Test
    @Order(10)
    void theNodeLabelSwitchesTimeSlicingOnAndOffWithoutANewPod() throws Exception {
        client.configMaps()
                .inNamespace(SimulatedCluster.NAMESPACE)
                .resource(
                        new ConfigMapBuilder()
                                .withNewMetadata()
                                .withName(CONFIG_MAP)
                                .withNamespace(SimulatedCluster.NAMESPACE)
                                .endMetadata()
                                .addToData("ts-4", timeSlicing(4, false))
                                .addToData("ts-10", timeSlicing(10, false))
                                .addToData("broken", timeSlicing(1, false))
                                .addToData(MPS_CONFIG, MPS_2)
                                .build())
                .create();
        GenericKubernetesResource cp = Scenarios.samplePolicy(Scenarios.SIMULATED_POLICY);
        Map<String, Object> spec = Scenarios.spec(cp);
        section(spec, "devicePlugin").put("config", Map.of("name", CONFIG_MAP));
        // sample every second: scenario 3 waits for per-pod usage, not the default 30 s round
        section(spec, "dcgmExporter").put("args", List.of("--collect-interval=1000"));
        client.genericKubernetesResources(SimulatedCluster.CLUSTER_POLICIES).resource(cp).create();
        awaitReady();
        await().atMost(SWITCH).untilAsserted(() -> assertThat(allocatableGpus()).isEqualTo(8));
        assertThat(labels()).containsEntry("nvidia.com/gpu.replicas", "1");
        Map<String, String> pods = agentPods();
        assertThat(pods).containsKeys("device-plugin", "feature-discovery");

        label("ts-4");
        await().atMost(SWITCH)
                .pollInterval(Duration.ofMillis(500))
                .untilAsserted(
                        () -> {
                            assertThat(allocatableGpus()).isEqualTo(32);
                            assertThat(labels())
                                    .containsEntry("nvidia.com/gpu.replicas", "4")
                                    .containsEntry(
                                            "nvidia.com/gpu.sharing-strategy", "time-slicing");
                            assertThat(labels().get("nvidia.com/gpu.product")).endsWith("-SHARED");
                            assertThat(annotations())
                                    .containsEntry(
                                            "nvidia.com/device-plugin.config.applied", "ts-4")
                                    .doesNotContainKey("nvidia.com/device-plugin.config.error");
                            assertThat(status())
                                    .containsEntry("devicePluginConfigs", Map.of("ts-4", 1));
                        });
        assertThat(agentPods()).as("same pods, no restart").isEqualTo(pods);

        label(null);
        await().atMost(SWITCH)
                .pollInterval(Duration.ofMillis(500))
                .untilAsserted(
                        () -> {
                            assertThat(allocatableGpus()).isEqualTo(8);
                            assertThat(labels())
                                    .containsEntry("nvidia.com/gpu.replicas", "1")
                                    .containsEntry("nvidia.com/gpu.sharing-strategy", "none");
                            assertThat(labels().get("nvidia.com/gpu.product"))
                                    .doesNotEndWith("-SHARED");
                            assertThat(annotations())
                                    .doesNotContainKey("nvidia.com/device-plugin.config.applied");
                            assertThat(status()).doesNotContainKey("devicePluginConfigs");
                        });
        assertThat(agentPods()).as("same pods, no restart").isEqualTo(pods);
    }

    @Test
    @Order(20)
    void aBadConfigNameOrContentIsRefusedAndReportedAndNothingChanges() throws Exception {
        label("ts-4");
        // feature discovery relabels after the plugin re-advertises: "before" is ts-4's labels
        await().atMost(SWITCH)
                .untilAsserted(
                        () -> {
                            assertThat(allocatableGpus()).isEqualTo(32);
                            assertThat(labels()).containsEntry("nvidia.com/gpu.replicas", "4");
                        });
        Map<String, String> before = new HashMap<>(labels());
        before.remove(LABEL);

        label("nope");
        await().atMost(SWITCH)
                .untilAsserted(
                        () ->
                                assertThat(status().get("devicePluginConfigErrors"))
                                        .asString()
                                        .contains(NODE + ": config 'nope'")
                                        .contains("not a key of the config ConfigMap"));
        assertThat(annotations())
                .containsEntry("nvidia.com/device-plugin.config.applied", "ts-4")
                .containsKey("nvidia.com/device-plugin.config.error");

        label("broken");
        await().atMost(SWITCH)
                .untilAsserted(
                        () ->
                                assertThat(status().get("devicePluginConfigErrors"))
                                        .asString()
                                        .contains(NODE + ": config 'broken'")
                                        .contains("replicas: must be at least 2"));
        Thread.sleep(5_000); // a refused config must not change anything later either
        assertThat(allocatableGpus()).isEqualTo(32);
        Map<String, String> after = new HashMap<>(labels());
        after.remove(LABEL);
        after.remove("nvidia.com/gfd.timestamp");
        before.remove("nvidia.com/gfd.timestamp");
        assertThat(after).isEqualTo(before);
        assertThat(status()).containsEntry("devicePluginConfigs", Map.of("ts-4", 1));

        label(null);
        await().atMost(SWITCH)
                .untilAsserted(
                        () -> {
                            assertThat(allocatableGpus()).isEqualTo(8);
                            assertThat(status()).doesNotContainKey("devicePluginConfigErrors");
                        });
    }

    @Test
    @Order(30)
    void aT4NodeWithTheDefaultConfigSharesItsGpuWithFivePods() {
        editSpec(
                spec -> {
                    section(spec, "simulation").put("profile", "t4-x1");
                    section(spec, "devicePlugin")
                            .put("config", Map.of("name", CONFIG_MAP, "default", "ts-10"));
                });
        // every agent (the driver too, through its upgrade: cordon, new pod, uncordon) now runs
        // the t4-x1 profile; the node is schedulable again before the workload comes
        await().atMost(Duration.ofMinutes(6))
                .pollInterval(Duration.ofMillis(250))
                .untilAsserted(
                        () -> {
                            List<Pod> agents = cluster.operandPodsOn(NODE);
                            assertThat(agents)
                                    .filteredOn(
                                            p ->
                                                    NodeProgress.STEPS.containsValue(
                                                            p.getMetadata()
                                                                    .getLabels()
                                                                    .get("app.kubernetes.io/name")))
                                    .hasSize(NodeProgress.STEPS.size())
                                    .allSatisfy(
                                            p ->
                                                    assertThat(
                                                                    p.getSpec()
                                                                            .getContainers()
                                                                            .getFirst()
                                                                            .getEnv())
                                                            .as(p.getMetadata().getName())
                                                            .anyMatch(
                                                                    e ->
                                                                            "GPU_SOURCE"
                                                                                            .equals(
                                                                                                    e
                                                                                                            .getName())
                                                                                    && "simulated:t4-x1"
                                                                                            .equals(
                                                                                                    e
                                                                                                            .getValue())));
                            NodeProgress progress =
                                    NodeProgress.of(node(), agents, NodeProgress.STEPS.keySet());
                            assertThat(progress.ready()).as(progress.describe()).isTrue();
                            assertThat(node().getSpec().getUnschedulable())
                                    .as("cordoned")
                                    .isNotEqualTo(Boolean.TRUE);
                            assertThat(allocatableGpus()).isEqualTo(10);
                            assertThat(labels())
                                    .containsEntry("nvidia.com/gpu.replicas", "10")
                                    .containsEntry("nvidia.com/gpu.product", "Tesla-T4-SHARED")
                                    .containsEntry("nvidia.com/gpu.count", "1");
                            assertThat(status())
                                    .containsEntry("devicePluginConfigs", Map.of("ts-10", 1));
                        });
        Deployment d =
                new DeploymentBuilder()
                        .withNewMetadata()
                        .withName("shared-gpu")
                        .withNamespace("default")
                        .endMetadata()
                        .withNewSpec()
                        .withReplicas(5)
                        .withNewSelector()
                        .addToMatchLabels("app", "shared-gpu")
                        .endSelector()
                        .withNewTemplate()
                        .withNewMetadata()
                        .addToLabels("app", "shared-gpu")
                        .endMetadata()
                        .withNewSpec()
                        // sleep as PID 1 ignores SIGTERM: scaled-down pods would wait out 30 s
                        .withTerminationGracePeriodSeconds(2L)
                        .addNewContainer()
                        .withName("main")
                        .withImage(Workloads.IMAGE)
                        .withCommand("sleep", "3600")
                        .withNewResources()
                        .addToLimits(GPU, new Quantity("1"))
                        .endResources()
                        .endContainer()
                        .endSpec()
                        .endTemplate()
                        .endSpec()
                        .build();
        client.apps().deployments().inNamespace("default").resource(d).create();
        await().atMost(CONVERGE)
                .pollInterval(Duration.ofMillis(250))
                .untilAsserted(
                        () -> {
                            Deployment now =
                                    client.apps()
                                            .deployments()
                                            .inNamespace("default")
                                            .withName("shared-gpu")
                                            .get();
                            // no status until the simulated Deployment controller has seen it
                            assertThat(now.getStatus())
                                    .as("status of %s", now.getMetadata().getName())
                                    .isNotNull();
                            assertThat(now.getStatus().getAvailableReplicas()).isEqualTo(5);
                        });
        List<Pod> pods =
                client.pods()
                        .inNamespace("default")
                        .withLabel("app", "shared-gpu")
                        .list()
                        .getItems();
        assertThat(pods).hasSize(5).allMatch(p -> NODE.equals(p.getSpec().getNodeName()));
        // per-pod usage on the shared GPU (the exporter's README): its processes are found
        // through the host's /proc and the device checkpoint the controller mounts, so each pod
        // gets its own share beside the whole GPU's series without pod labels. The shares add up
        // to less than the whole: the simulated runtime also gives the GPU to the agents that see
        // every GPU (NVIDIA_VISIBLE_DEVICES=all), whose processes hold the rest and are no pod's
        // holders, so only the whole-GPU series has them
        Set<String> names =
                pods.stream().map(p -> p.getMetadata().getName()).collect(Collectors.toSet());
        await().atMost(Duration.ofMinutes(2))
                .pollInterval(Duration.ofMillis(500))
                .untilAsserted(
                        () -> {
                            String body = Scenarios.exporterMetrics(cluster, NODE);
                            for (String field :
                                    List.of("DCGM_FI_DEV_FB_USED", "DCGM_FI_DEV_GPU_UTIL")) {
                                Map<String, Long> perPod = new TreeMap<>();
                                Long whole = null;
                                for (String l :
                                        body.lines()
                                                .filter(l -> l.startsWith(field + "{"))
                                                .toList()) {
                                    long v =
                                            Math.round(
                                                    Double.parseDouble(
                                                            l.substring(l.lastIndexOf(' ') + 1)));
                                    Matcher pod = POD_LABEL.matcher(l);
                                    if (pod.find()) {
                                        perPod.put(pod.group(1), v);
                                    } else {
                                        whole = v;
                                    }
                                }
                                assertThat(perPod.keySet()).as(field).isEqualTo(names);
                                assertThat(whole).as(field + " of the whole GPU").isNotNull();
                                // within 2 % (at least 2): the simulated GPU's load moves in
                                // the milliseconds between its whole sample and its processes'
                                long all = whole;
                                long sum = perPod.values().stream().mapToLong(v -> v).sum();
                                assertThat(sum)
                                        .as(field + " of the pods: " + perPod + ", whole " + all)
                                        .isLessThanOrEqualTo(all + Math.max(2, all / 50));
                                if (field.equals("DCGM_FI_DEV_FB_USED")) {
                                    // each pod's own, not the whole GPU's copy (upstream's)
                                    assertThat(perPod.values())
                                            .as(field + " of the pods, of " + all)
                                            .allMatch(v -> v > 0 && v < all);
                                }
                            }
                        });
    }

    private static final Pattern POD_LABEL = Pattern.compile("[{,]pod=\"([^\"]*)\"");

    private static List<Pod> mpsDaemonPods() {
        return client
                .pods()
                .inNamespace(SimulatedCluster.NAMESPACE)
                .withLabel("app", MPS_DAEMON)
                .list()
                .getItems()
                .stream()
                .filter(p -> NODE.equals(p.getSpec().getNodeName()))
                .toList();
    }

    @Test
    @Order(40)
    void mpsWithTwoReplicasRunsTheControlDaemonAndTwoPodsShareTheGpuWithItsPipeAndLimits() {
        List<String> sharing =
                client
                        .pods()
                        .inNamespace("default")
                        .withLabel("app", "shared-gpu")
                        .list()
                        .getItems()
                        .stream()
                        .map(p -> p.getMetadata().getName())
                        .toList();
        client.apps().deployments().inNamespace("default").withName("shared-gpu").delete();
        // the node's kubelet frees their replicas once their containers have stopped
        await().atMost(CONVERGE)
                .pollInterval(Duration.ofMillis(500))
                .until(
                        () ->
                                sharing.stream()
                                        .allMatch(
                                                n ->
                                                        cluster.node(NODE)
                                                                .assigned("default", n, "main")
                                                                .isEmpty()));
        assertThat(mpsDaemonPods()).as("no MPS daemon without sharing.mps").isEmpty();

        label(MPS_CONFIG);
        await().atMost(CONVERGE)
                .pollInterval(Duration.ofMillis(500))
                .untilAsserted(
                        () -> {
                            assertThat(labels())
                                    .containsEntry("nvidia.com/mps.capable", "true")
                                    .containsEntry("nvidia.com/gpu.sharing-strategy", "mps")
                                    .containsEntry("nvidia.com/gpu.replicas", "2")
                                    .containsEntry("nvidia.com/gpu.product", "Tesla-T4-SHARED");
                            assertThat(mpsDaemonPods())
                                    .singleElement()
                                    .satisfies(
                                            p ->
                                                    assertThat(
                                                                    org.gpuoperator.e2e.cluster.Pods
                                                                            .isReady(p))
                                                            .isTrue());
                            // the replicas are offered once the daemon answers
                            assertThat(allocatableGpus()).isEqualTo(2);
                            assertThat(annotations())
                                    .containsEntry(
                                            "nvidia.com/device-plugin.config.applied", MPS_CONFIG);
                        });

        String script =
                "env | grep '^CUDA_MPS_' | sort | sed 's/^/env /';"
                        + " ls -1 /mps/nvidia.com/gpu/pipe /mps/nvidia.com/gpu/log | sed 's/^/file /';"
                        + " nvidia-smi -L; sleep 2";
        List<String> names = List.of("mps-client-a", "mps-client-b");
        try {
            names.forEach(n -> Workloads.create(client, n, null, null, GPU, script));
            await().atMost(Duration.ofSeconds(120))
                    .pollInterval(Duration.ofMillis(500))
                    .untilAsserted(
                            () ->
                                    assertThat(names)
                                            .allSatisfy(
                                                    n ->
                                                            assertThat(Workloads.phase(client, n))
                                                                    .as(n)
                                                                    .isEqualTo("Succeeded")));
            long memory = 15360; // Tesla T4 (the t4-x1 profile)
            java.util.Set<String> gpus = new java.util.HashSet<>();
            for (String n : names) {
                List<String> log = Workloads.log(cluster, n);
                System.out.println("  " + n + ":");
                log.forEach(l -> System.out.println("    " + l));
                assertThat(log)
                        .contains(
                                "env CUDA_MPS_ACTIVE_THREAD_PERCENTAGE=50",
                                "env CUDA_MPS_LOG_DIRECTORY=/mps/nvidia.com/gpu/log",
                                "env CUDA_MPS_PINNED_DEVICE_MEM_LIMIT=0=" + memory / 2 + "M",
                                "env CUDA_MPS_PIPE_DIRECTORY=/mps/nvidia.com/gpu/pipe",
                                "file control",
                                "file control.log");
                log.stream().filter(l -> l.startsWith("GPU ")).forEach(gpus::add);
            }
            assertThat(gpus).as("both pods on the node's one GPU").hasSize(1);
        } finally {
            names.forEach(n -> Workloads.delete(client, n));
        }

        // back to the default config: no MPS, the daemon's pod goes
        label(null);
        await().atMost(CONVERGE)
                .pollInterval(Duration.ofMillis(500))
                .untilAsserted(
                        () -> {
                            assertThat(labels()).containsEntry("nvidia.com/mps.capable", "false");
                            assertThat(mpsDaemonPods()).isEmpty();
                            assertThat(allocatableGpus()).isEqualTo(10);
                        });
    }
}
