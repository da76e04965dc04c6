package org.gpuoperator.e2e.scenarios;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.gpuoperator.e2e.cluster.PolicySpecEdits.section;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.node.v1.RuntimeClass;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.stream.Stream;
import org.gpuoperator.e2e.cluster.NodeProgress;
import org.gpuoperator.e2e.cluster.Pods;
import org.gpuoperator.e2e.cluster.PolicySpecEdits;
import org.gpuoperator.e2e.cluster.SimulatedCluster;
import org.gpuoperator.e2e.node.SimulatedNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Issue 16's policy choices on a simulated cluster with pods as containers: a RuntimeClass name
 * other than {@code nvidia}, MIG {@code mixed} on {@code a100-40gb-x8-mig-mixed} nodes, the
 * validator failing with the runtime's reason when the runtime is broken on purpose, the device
 * plugin disabled, and the toolkit disabled on a node whose host is already configured.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class PolicyChoicesScenariosIT {

    private static final String PROFILE = "a100-40gb-x8-mig-mixed";
    private static final String RUNTIME_CLASS = "nvidia-custom";
    private static final String POLICY = "cluster-policy";
    private static final Duration CONVERGE = Duration.ofMinutes(4);
    private static final List<String> NODES = List.of("gpu-node-1", "gpu-node-2");
    private static final String ALL_READY = "driver=ready toolkit=ready cuda=ready plugin=ready";

    /**
     * The operands that reach NVML through the nvidia runtime class (the validator reads the host).
     */
    private static final List<String> NVML_OPERANDS =
            List.of("device-plugin", "feature-discovery", "dcgm-exporter");

    private static SimulatedCluster cluster;
    private static KubernetesClient client;
    private static final List<String> events = Collections.synchronizedList(new ArrayList<>());
    private static final Set<String> enabledSteps =
            new LinkedHashSet<>(NodeProgress.STEPS.keySet());

    @BeforeAll
    static void startCluster() throws Exception {
        cluster = Scenarios.start(events);
        assumeTrue(cluster.podsAsContainers(), "these choices need pods as containers");
        client = cluster.client();
        for (String name : NODES) {
            cluster.addGpuNode(name);
        }
        cluster.startController();
    }

    @BeforeEach
    void announce(TestInfo info) {
        Scenarios.announce(info);
    }

    @AfterAll
    static void stopCluster() {
        Scenarios.printLastEvents(events, 120);
        if (cluster != null) {
            cluster.close();
        }
    }

    private static void editSpec(Consumer<Map<String, Object>> edit) {
        PolicySpecEdits.edit(client, POLICY, edit);
    }

    /** The node's allocatable extended resources of the plugin: name -> count. */
    private static Map<String, Integer> gpuResources(String node) {
        Map<String, Integer> out = new TreeMap<>();
        Map<String, Quantity> alloc =
                client.nodes().withName(node).get().getStatus().getAllocatable();
        if (alloc != null) {
            alloc.forEach(
                    (k, v) -> {
                        if (k.startsWith("nvidia.com/")) {
                            out.put(k, Integer.parseInt(v.getAmount()));
                        }
                    });
        }
        return out;
    }

    private static String policyStatus() {
        return Serialization.asJson(Scenarios.policyStatus(client, POLICY));
    }

    private static void awaitReady(String node, String validation) {
        await().atMost(CONVERGE)
                .pollInterval(Duration.ofMillis(250))
                .untilAsserted(
                        () -> {
                            NodeProgress p = Scenarios.progress(cluster, node, enabledSteps);
                            assertThat(p.ready()).as(p.describe()).isTrue();
                            assertThat(Scenarios.annotations(client, node))
                                    .as("validator on %s", node)
                                    .containsEntry(
                                            "nvidia.com/gpu-operator.validation", validation);
                            assertThat(Scenarios.stackReady(client, node))
                                    .get()
                                    .extracting(NodeCondition::getStatus)
                                    .isEqualTo("True");
                        });
    }

    /** A pod on {@code node} under the policy's runtime class, limited to {@code resource}: 1. */
    private static Pod workload(String name, String node, String resource, String script) {
        return Workloads.create(client, name, node, RUNTIME_CLASS, resource, script);
    }

    private static List<String> podLog(String name) {
        return Workloads.log(cluster, name);
    }

    private static void deleteWorkload(String name) {
        Workloads.delete(client, name);
    }

    @Test
    @Order(10)
    void aNonDefaultRuntimeClassNameIsTheHandlerEveryNvmlOperandRunsUnder() throws Exception {
        GenericKubernetesResource cp = Scenarios.samplePolicy(Scenarios.SIMULATED_POLICY);
        Map<String, Object> spec = Scenarios.spec(cp);
        section(spec, "simulation").put("profile", PROFILE);
        section(spec, "mig").put("strategy", "mixed");
        section(spec, "operator").put("runtimeClass", RUNTIME_CLASS);
        // re-check every few seconds, and give up on a hung workload container after 30 s (the
        // default is 5 min): a runtime broken while the CUDA check's pod starts leaves that pod
        // pending until then, and only the next round's toolkit check names the runtime
        section(spec, "validator")
                .put(
                        "env",
                        List.of(
                                Map.of("name", "RECHECK_INTERVAL", "value", "5s"),
                                Map.of("name", "WORKLOAD_TIMEOUT", "value", "30s")));
        client.genericKubernetesResources(SimulatedCluster.CLUSTER_POLICIES).resource(cp).create();

        for (String node : NODES) {
            awaitReady(node, ALL_READY);
        }
        RuntimeClass rc = client.resources(RuntimeClass.class).withName(RUNTIME_CLASS).get();
        assertThat(rc).as("RuntimeClass " + RUNTIME_CLASS).isNotNull();
        assertThat(rc.getHandler()).isEqualTo(RUNTIME_CLASS);
        for (String node : NODES) {
            SimulatedNode n = cluster.node(node);
            assertThat(Scenarios.criConfig(n))
                    .as("containerd on %s lists the handler", node)
                    .contains("\"" + RUNTIME_CLASS + "\"");
            for (String operand : NVML_OPERANDS) {
                Pod pod =
                        Scenarios.operandPod(cluster, node, operand)
                                .orElseThrow(() -> new AssertionError(operand + " on " + node));
                assertThat(pod.getSpec().getRuntimeClassName())
                        .as("%s on %s", operand, node)
                        .isEqualTo(RUNTIME_CLASS);
                assertThat(Pods.isReady(pod)).as("%s on %s is ready", operand, node).isTrue();
            }
            // the validator's cuda and plugin checks passed on this node
            Path validations = n.root().resolve("run/nvidia/validations");
            assertThat(validations.resolve("cuda-ready")).exists();
            assertThat(validations.resolve("plugin-ready")).exists();
        }
    }

    @Test
    @Order(20)
    void migMixedResourcesOfThePluginAndLabelsOfFeatureDiscoveryAgree() {
        for (String node : NODES) {
            await().atMost(Duration.ofSeconds(60))
                    .untilAsserted(
                            () -> {
                                Map<String, Integer> resources = gpuResources(node);
                                // every GPU of the profile is MIG-enabled: 3g.20gb, 2g.10gb and two
                                // 1g.5gb on each of the 8
                                assertThat(resources)
                                        .containsEntry("nvidia.com/mig-3g.20gb", 8)
                                        .containsEntry("nvidia.com/mig-2g.10gb", 8)
                                        .containsEntry("nvidia.com/mig-1g.5gb", 16);
                                Map<String, String> labels = Scenarios.labels(client, node);
                                assertThat(labels)
                                        .containsEntry("nvidia.com/mig.strategy", "mixed");
                                resources.forEach(
                                        (resource, count) -> {
                                            if (resource.startsWith("nvidia.com/mig-")) {
                                                assertThat(labels)
                                                        .containsEntry(
                                                                resource + ".count",
                                                                String.valueOf(count));
                                            }
                                        });
                            });
        }
        assertThat(policyStatus()).doesNotContain("disagreements");
    }

    @Test
    @Order(25)
    void aPodAskingForAMigProfileGetsItsMigDeviceAndItsCapsNodesThroughCdi() {
        String node = "gpu-node-2";
        workload(
                "mig-smi",
                node,
                "nvidia.com/mig-1g.5gb",
                "nvidia-smi -L; ls -1d /dev/nvidia* /dev/nvidia-caps/* 2>/dev/null"
                        + " | sed 's/^/path /'");
        try {
            await().atMost(Duration.ofSeconds(120))
                    .pollInterval(Duration.ofMillis(500))
                    .ignoreExceptions() // no status until the kubelet has seen the pod
                    .untilAsserted(
                            () ->
                                    assertThat(
                                                    client.pods()
                                                            .inNamespace("default")
                                                            .withName("mig-smi")
                                                            .get()
                                                            .getStatus()
                                                            .getPhase())
                                            .isEqualTo("Succeeded"));
            List<String> log = podLog("mig-smi");
            System.out.println("  mig-smi on " + node + ":");
            log.forEach(l -> System.out.println("    " + l));
            // one GPU with exactly one MIG device of the requested profile
            assertThat(log.stream().filter(l -> l.startsWith("GPU "))).hasSize(1);
            assertThat(log.stream().filter(l -> l.strip().startsWith("MIG ")))
                    .singleElement()
                    .satisfies(l -> assertThat(l).contains("1g.5gb"));
            // the spec's nodes for that MIG device: its GPU and the GPU/compute instance caps
            assertThat(log)
                    .contains("path /dev/nvidiactl")
                    .anyMatch(l -> l.matches("path /dev/nvidia-caps/nvidia-cap[0-9]+"));
            assertThat(log.stream().filter(l -> l.matches("path /dev/nvidia[0-9]+"))).hasSize(1);
        } finally {
            deleteWorkload("mig-smi");
        }
    }

    /** The node's MIG state label, or null. */
    private static String migState(String node) {
        return Scenarios.labels(client, node).get("nvidia.com/mig.config.state");
    }

    private static void labelMigConfig(String node, String config) {
        Scenarios.label(client, node, "nvidia.com/mig.config", config);
    }

    /**
     * The plugin's MIG resources with a count (a vanished one stays allocatable at 0), and feature
     * discovery's count label of each: they must agree.
     */
    private static Map<String, Integer> migResourcesAgreeingWithLabels(String node) {
        Map<String, Integer> mig = new TreeMap<>();
        gpuResources(node)
                .forEach(
                        (resource, count) -> {
                            if (resource.startsWith("nvidia.com/mig-") && count > 0) {
                                mig.put(resource, count);
                            }
                        });
        Map<String, String> labels = Scenarios.labels(client, node);
        mig.forEach(
                (resource, count) ->
                        assertThat(labels)
                                .as("feature discovery's count of %s on %s", resource, node)
                                .containsEntry(resource + ".count", String.valueOf(count)));
        return mig;
    }

    @Test
    @Order(27)
    void theMigManagerRepartitionsAsTheLabelSaysFinishesAfterARestartAndRefusesUnderGpuPods() {
        String node = "gpu-node-2";
        editSpec(
                spec ->
                        spec.put(
                                "migManager",
                                Map.of(
                                        "enabled",
                                        true,
                                        // retry a refused change every 5 s (default 60 s)
                                        "env",
                                        List.of(Map.of("name", "RESYNC", "value", "5s")))));
        await().atMost(CONVERGE)
                .pollInterval(Duration.ofMillis(250))
                .until(
                        () ->
                                Scenarios.operandPod(cluster, node, "mig-manager")
                                        .filter(Pods::isReady)
                                        .isPresent());
        // no label, no default layout: the GPUs are left as they were
        assertThat(migState(node)).isNull();
        assertThat(migResourcesAgreeingWithLabels(node)).containsEntry("nvidia.com/mig-1g.5gb", 16);

        // all-1g.5gb, the MIG manager killed while the change is under way
        labelMigConfig(node, "all-1g.5gb");
        await().atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(100))
                .until(() -> "pending".equals(migState(node)));
        Pod killed = Scenarios.operandPod(cluster, node, "mig-manager").orElseThrow();
        client.pods().resource(killed).withGracePeriod(0).delete();
        System.out.println("  killed " + killed.getMetadata().getName() + " mid-change");
        await().atMost(CONVERGE)
                .pollInterval(Duration.ofMillis(250))
                .untilAsserted(
                        () -> {
                            assertThat(migState(node)).isEqualTo("success");
                            assertThat(migResourcesAgreeingWithLabels(node))
                                    .containsExactly(Map.entry("nvidia.com/mig-1g.5gb", 56));
                            assertThat(Scenarios.labels(client, node))
                                    .containsEntry("nvidia.com/gpu.deploy.device-plugin", "true")
                                    .containsEntry(
                                            "nvidia.com/gpu.deploy.operator-validator", "true");
                        });
        // a workload gets one of the new MIG devices (the CDI spec names them)
        workload("mig-new", node, "nvidia.com/mig-1g.5gb", "nvidia-smi -L");
        try {
            await().atMost(Duration.ofSeconds(120))
                    .pollInterval(Duration.ofMillis(500))
                    .ignoreExceptions()
                    .untilAsserted(
                            () ->
                                    assertThat(
                                                    client.pods()
                                                            .inNamespace("default")
                                                            .withName("mig-new")
                                                            .get()
                                                            .getStatus()
                                                            .getPhase())
                                            .isEqualTo("Succeeded"));
            assertThat(podLog("mig-new").stream().filter(l -> l.strip().startsWith("MIG ")))
                    .singleElement()
                    .satisfies(l -> assertThat(l).contains("1g.5gb"));
        } finally {
            deleteWorkload("mig-new");
        }

        // a GPU pod on the node: the change back is refused, naming it, until it is gone
        workload("holder", node, "nvidia.com/mig-1g.5gb", "sleep 600");
        await().atMost(Duration.ofSeconds(120))
                .ignoreExceptions()
                .until(
                        () ->
                                "Running"
                                        .equals(
                                                client.pods()
                                                        .inNamespace("default")
                                                        .withName("holder")
                                                        .get()
                                                        .getStatus()
                                                        .getPhase()));
        labelMigConfig(node, "all-balanced");
        await().atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(500))
                .untilAsserted(
                        () -> {
                            assertThat(migState(node)).isEqualTo("failed");
                            assertThat(
                                            Scenarios.annotations(client, node)
                                                    .get("nvidia.com/mig.config.error"))
                                    .contains("default/holder");
                        });
        assertThat(migResourcesAgreeingWithLabels(node))
                .containsExactly(Map.entry("nvidia.com/mig-1g.5gb", 56));
        deleteWorkload("holder");
        // upstream's all-balanced on an A100 40GB: the profile's own layout again
        await().atMost(CONVERGE)
                .pollInterval(Duration.ofMillis(250))
                .untilAsserted(
                        () -> {
                            assertThat(migState(node)).isEqualTo("success");
                            assertThat(migResourcesAgreeingWithLabels(node))
                                    .containsEntry("nvidia.com/mig-3g.20gb", 8)
                                    .containsEntry("nvidia.com/mig-2g.10gb", 8)
                                    .containsEntry("nvidia.com/mig-1g.5gb", 16);
                            assertThat(Scenarios.annotations(client, node))
                                    .doesNotContainKey("nvidia.com/mig.config.error");
                        });
        awaitReady(node, ALL_READY);

        // and back to all-disabled: eight whole GPUs, no MIG resource, labels agreeing
        labelMigConfig(node, "all-disabled");
        await().atMost(CONVERGE)
                .pollInterval(Duration.ofMillis(250))
                .untilAsserted(
                        () -> {
                            assertThat(migState(node)).isEqualTo("success");
                            assertThat(migResourcesAgreeingWithLabels(node)).isEmpty();
                            assertThat(gpuResources(node)).containsEntry("nvidia.com/gpu", 8);
                            assertThat(Scenarios.labels(client, node))
                                    .containsEntry("nvidia.com/gpu.count", "8");
                        });
        awaitReady(node, ALL_READY);
    }

    @Test
    @Order(30)
    void aBrokenRuntimeFailsTheValidatorWithTheRuntimesReasonAndRecovers() throws Exception {
        String node = "gpu-node-1";
        Path runtime =
                cluster.node(node)
                        .root()
                        .resolve("usr/local/nvidia/toolkit/nvidia-container-runtime");
        byte[] good = Files.readAllBytes(runtime);
        Scenarios.replaceExecutable(
                runtime,
                ("#!/bin/sh\necho 'nvidia-container-runtime: broken on purpose by the scenario' >&2\n"
                                + "exit 1\n")
                        .getBytes(StandardCharsets.UTF_8));
        try {
            await().atMost(CONVERGE)
                    .pollInterval(Duration.ofMillis(250))
                    .untilAsserted(
                            () -> {
                                assertThat(Scenarios.annotations(client, node))
                                        .containsEntry(
                                                "nvidia.com/gpu-operator.validation",
                                                "driver=ready toolkit=failed cuda=waiting"
                                                        + " plugin=waiting")
                                        .hasEntrySatisfying(
                                                "nvidia.com/gpu-operator.validation-reason",
                                                r ->
                                                        assertThat(r)
                                                                .startsWith("toolkit: ")
                                                                .contains(
                                                                        "handler \""
                                                                                + RUNTIME_CLASS
                                                                                + "\""));
                                assertThat(Scenarios.stackReady(client, node))
                                        .get()
                                        .extracting(NodeCondition::getStatus)
                                        .isEqualTo("False");
                            });
            assertThat(cluster.node(node).root().resolve("run/nvidia/validations/cuda-ready"))
                    .as("cuda is no longer vouched for")
                    .doesNotExist();
            System.out.println(
                    "  broken runtime reason: "
                            + Scenarios.annotations(client, node)
                                    .get("nvidia.com/gpu-operator.validation-reason"));
            assertThat(Scenarios.annotations(client, "gpu-node-2"))
                    .containsEntry("nvidia.com/gpu-operator.validation", ALL_READY);
        } finally {
            Scenarios.replaceExecutable(runtime, good);
        }
        awaitReady(node, ALL_READY);
    }

    @Test
    @Order(40)
    void aDisabledDevicePluginLetsFeatureDiscoveryAndTheExporterProceed() {
        editSpec(spec -> section(spec, "devicePlugin").put("enabled", false));
        enabledSteps.remove("device-plugin");
        for (String node : NODES) {
            awaitReady(node, "driver=ready toolkit=ready cuda=ready plugin=disabled");
            assertThat(Scenarios.operandPod(cluster, node, "device-plugin"))
                    .as("plugin pod on " + node)
                    .isEmpty();
            for (String operand : List.of("feature-discovery", "dcgm-exporter")) {
                assertThat(Scenarios.operandPod(cluster, node, operand).filter(Pods::isReady))
                        .as("%s ready on %s", operand, node)
                        .isPresent();
            }
        }
    }

    @Test
    @Order(50)
    void aDisabledToolkitOnAPreConfiguredHostLetsTheDevicePluginProceed() throws Exception {
        // node 1's host gets the runtime as a host install leaves it: the files and the
        // containerd config the toolkit agent wrote, kept after the toolkit is gone
        SimulatedNode configured = cluster.node("gpu-node-1");
        // a host set up for CDI (nvidia-ctk cdi generate) also has the specs in /var/run/cdi
        Map<Path, byte[]> hostConfig = snapshot(configured.root().resolve("etc/containerd"));
        hostConfig.putAll(snapshot(configured.root().resolve("var/run/cdi")));
        assertThat(hostConfig.keySet()).anyMatch(f -> f.endsWith("nvidia.yaml"));
        // the main file imports the toolkit's drop-in, which holds the runtimes
        assertThat(new String(hostConfig.get(configured.containerd().config())))
                .contains("/etc/containerd/conf.d/*.toml");
        assertThat(
                        new String(
                                hostConfig.get(
                                        configured
                                                .root()
                                                .resolve("etc/containerd/conf.d/99-nvidia.toml"))))
                .contains(RUNTIME_CLASS);

        editSpec(
                spec -> {
                    section(spec, "toolkit").put("enabled", false);
                    section(spec, "devicePlugin").put("enabled", true);
                });
        enabledSteps.remove("container-toolkit");
        enabledSteps.add("device-plugin");
        await().atMost(CONVERGE)
                .pollInterval(Duration.ofMillis(250))
                .ignoreExceptions() // containerd restarts during the toolkit's cleanup
                .untilAsserted(
                        () -> {
                            for (String node : NODES) {
                                assertThat(Scenarios.operandPod(cluster, node, "toolkit-agent"))
                                        .isEmpty();
                                assertThat(Scenarios.criConfig(cluster.node(node)))
                                        .as("the toolkit's cleanup on %s", node)
                                        .doesNotContain("\"" + RUNTIME_CLASS + "\"");
                            }
                        });
        assertThat(configured.root().resolve("usr/local/nvidia/toolkit/nvidia-container-runtime"))
                .as("the installed runtime stays on the host")
                .exists();
        for (Map.Entry<Path, byte[]> f : hostConfig.entrySet()) {
            Files.createDirectories(f.getKey().getParent());
            Files.write(f.getKey(), f.getValue());
        }
        configured.containerd().restart();

        awaitReady("gpu-node-1", ALL_READY);
        Path toolkitReady = configured.root().resolve("run/nvidia/validations/toolkit-ready");
        assertThat(toolkitReady).as("written by the validator for the host's runtime").exists();
        assertThat(
                        Scenarios.operandPod(cluster, "gpu-node-1", "device-plugin")
                                .filter(Pods::isReady))
                .isPresent();

        // node 2's host has no runtime: reported with the reason, not a silent wait
        await().atMost(CONVERGE)
                .pollInterval(Duration.ofMillis(250))
                .untilAsserted(
                        () -> {
                            assertThat(Scenarios.annotations(client, "gpu-node-2"))
                                    .hasEntrySatisfying(
                                            "nvidia.com/gpu-operator.validation-reason",
                                            r ->
                                                    assertThat(r)
                                                            .startsWith("toolkit: ")
                                                            .contains(RUNTIME_CLASS));
                            assertThat(Scenarios.stackReady(client, "gpu-node-2"))
                                    .get()
                                    .extracting(NodeCondition::getStatus)
                                    .isEqualTo("False");
                        });
        assertThat(
                        cluster.node("gpu-node-2")
                                .root()
                                .resolve("run/nvidia/validations/toolkit-ready"))
                .doesNotExist();
    }

    @Test
    @Order(60)
    void aCdiSpecRemovedOnPurposeFailsTheWorkloadAndTheValidatorWithTheRuntimesError()
            throws Exception {
        // node 1 runs the host-configured runtime of the previous scenario; no toolkit agent
        // writes the spec back
        String node = "gpu-node-1";
        Path spec = cluster.node(node).root().resolve("var/run/cdi/nvidia.yaml");
        byte[] good = Files.readAllBytes(spec);
        Files.delete(spec);
        try {
            workload("unresolvable", node, "nvidia.com/mig-1g.5gb", "nvidia-smi -L");
            await().atMost(CONVERGE)
                    .pollInterval(Duration.ofMillis(250))
                    .ignoreExceptions() // no container status until the kubelet tried
                    .untilAsserted(
                            () -> {
                                // the runtime's error, as kubectl describe shows it
                                Pod failed =
                                        client.pods()
                                                .inNamespace("default")
                                                .withName("unresolvable")
                                                .get();
                                assertThat(failed.getStatus().getPhase()).isEqualTo("Failed");
                                assertThat(
                                                failed.getStatus()
                                                        .getContainerStatuses()
                                                        .getFirst()
                                                        .getState()
                                                        .getTerminated()
                                                        .getMessage())
                                        .contains("unresolvable CDI devices nvidia.com/gpu=MIG-");
                                assertThat(Scenarios.annotations(client, node))
                                        .containsEntry(
                                                "nvidia.com/gpu-operator.validation",
                                                "driver=ready toolkit=ready cuda=failed"
                                                        + " plugin=waiting")
                                        .hasEntrySatisfying(
                                                "nvidia.com/gpu-operator.validation-reason",
                                                r ->
                                                        assertThat(r)
                                                                .startsWith("cuda: ")
                                                                .contains(
                                                                        "unresolvable CDI devices"));
                                assertThat(Scenarios.stackReady(client, node))
                                        .get()
                                        .extracting(NodeCondition::getStatus)
                                        .isEqualTo("False");
                            });
            System.out.println(
                    "  spec removed, validation reason: "
                            + Scenarios.annotations(client, node)
                                    .get("nvidia.com/gpu-operator.validation-reason"));
        } finally {
            deleteWorkload("unresolvable");
            Files.write(spec, good);
        }
        awaitReady(node, ALL_READY);
    }

    private static Map<Path, byte[]> snapshot(Path dir) throws IOException {
        Map<Path, byte[]> files = new TreeMap<>();
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : s.filter(Files::isRegularFile).toList()) {
                files.put(p, Files.readAllBytes(p));
            }
        }
        return files;
    }
}
