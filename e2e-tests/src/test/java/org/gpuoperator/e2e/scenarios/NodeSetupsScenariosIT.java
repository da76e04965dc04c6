package org.gpuoperator.e2e.scenarios;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.gpuoperator.e2e.cluster.PolicySpecEdits.section;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.gpuoperator.e2e.cluster.NodeProgress;
import org.gpuoperator.e2e.cluster.Pods;
import org.gpuoperator.e2e.cluster.SimulatedCluster;
import org.gpuoperator.e2e.node.HostDriver;
import org.gpuoperator.e2e.node.SimulatedNode;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Issue 16's node setups on a simulated cluster with pods as containers: nodes that ship their own
 * driver (managed Kubernetes, DGX) under a policy with {@code driver.enabled: false}, a node with
 * no driver at all, and a host driver that breaks. The validator checks each layer on each node;
 * the controller reports what it found in the status and in the node condition {@code
 * GPUStackReady}.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class NodeSetupsScenariosIT {

    private static final String PROFILE = "h100-80gb-x8";
    private static final String HOST_DRIVER = "550.54.15";
    private static final Duration CONVERGE = Duration.ofMinutes(4);
    private static final String VALIDATOR = "validator";

    private static SimulatedCluster cluster;
    private static KubernetesClient client;
    private static final List<String> events = Collections.synchronizedList(new ArrayList<>());

    /** The steps a policy with the driver disabled runs (the validator stands for the driver). */
    private static final Set<String> STEPS = new LinkedHashSet<>(NodeProgress.STEPS.keySet());

    @BeforeAll
    static void startCluster() throws Exception {
        cluster = Scenarios.start(events);
        assumeTrue(cluster.podsAsContainers(), "these setups need pods as containers");
        client = cluster.client();
        for (String name : List.of("gpu-node-1", "gpu-node-2")) {
            SimulatedNode n = cluster.addGpuNode(name);
            HostDriver.install(n.root(), HOST_DRIVER, PROFILE);
        }
        cluster.addGpuNode("gpu-node-3"); // no driver at all
        STEPS.remove("driver");
        cluster.startController();
    }

    @AfterAll
    static void stopCluster() {
        Scenarios.printLastEvents(events, 120);
        if (cluster != null) {
            cluster.close();
        }
    }

    private static Pod validatorPod(String node) {
        return Scenarios.operandPod(cluster, node, VALIDATOR)
                .orElseThrow(() -> new AssertionError("no validator pod on " + node));
    }

    @Test
    @Order(10)
    void nodesWithAPreInstalledDriverReachReadyWithTheDriverDisabled() throws Exception {
        GenericKubernetesResource cp = Scenarios.samplePolicy(Scenarios.SIMULATED_POLICY);
        Map<String, Object> spec = Scenarios.spec(cp);
        section(spec, "driver").put("enabled", false);
        // re-check every few seconds, so that a driver that breaks shows within the scenario
        section(spec, "validator")
                .put("env", List.of(Map.of("name", "RECHECK_INTERVAL", "value", "5s")));
        client.genericKubernetesResources(SimulatedCluster.CLUSTER_POLICIES).resource(cp).create();

        for (String node : List.of("gpu-node-1", "gpu-node-2")) {
            await().atMost(CONVERGE)
                    .pollInterval(Duration.ofMillis(250))
                    .untilAsserted(
                            () -> {
                                NodeProgress p = Scenarios.progress(cluster, node, STEPS);
                                assertThat(p.ready()).as(p.describe()).isTrue();
                                assertThat(Pods.isReady(validatorPod(node)))
                                        .as(
                                                "validator on %s: %s",
                                                node, Scenarios.annotations(client, node))
                                        .isTrue();
                                assertThat(Scenarios.stackReady(client, node))
                                        .get()
                                        .extracting(NodeCondition::getStatus)
                                        .isEqualTo("True");
                            });
            Path root = cluster.node(node).root();
            assertThat(Files.readString(root.resolve("run/nvidia/validations/driver-ready")))
                    .contains("IS_HOST_DRIVER=true");
            assertThat(root.resolve("run/nvidia/validations/cuda-ready")).exists();
            assertThat(Scenarios.annotations(client, node))
                    .containsEntry(
                            "nvidia.com/gpu-operator.validation",
                            "driver=ready toolkit=ready cuda=ready plugin=ready");
        }
        assertThat(
                        client.apps()
                                .daemonSets()
                                .inNamespace(SimulatedCluster.NAMESPACE)
                                .withName("nvidia-driver-daemonset")
                                .get())
                .as("no driver DaemonSet with the driver disabled")
                .isNull();
    }

    @Test
    @Order(20)
    void aNodeWithoutAnyDriverIsReportedWithItsReasonNotAsASilentWait() {
        await().atMost(CONVERGE)
                .pollInterval(Duration.ofMillis(250))
                .untilAsserted(
                        () -> {
                            assertThat(Scenarios.annotations(client, "gpu-node-3"))
                                    .hasEntrySatisfying(
                                            "nvidia.com/gpu-operator.validation-reason",
                                            r -> assertThat(r).startsWith("driver: "));
                            assertThat(Scenarios.stackReady(client, "gpu-node-3"))
                                    .get()
                                    .satisfies(
                                            c -> {
                                                assertThat(c.getStatus()).isEqualTo("False");
                                                assertThat(c.getMessage()).contains("driver");
                                            });
                            String status =
                                    Serialization.asJson(
                                            Scenarios.policyStatus(client, "cluster-policy"));
                            assertThat(status).contains("gpu-node-3").contains("driver");
                        });
        assertThat(cluster.node("gpu-node-3").root().resolve("run/nvidia/validations/driver-ready"))
                .doesNotExist();
    }

    @Test
    @Order(30)
    void aHostDriverThatBreaksIsReportedAndTheNodeIsNoLongerReady() throws Exception {
        HostDriver.breakIt(cluster.node("gpu-node-2").root(), HostDriver.Fault.NO_DEVICE_NODES);
        await().atMost(CONVERGE)
                .pollInterval(Duration.ofMillis(250))
                .untilAsserted(
                        () -> {
                            assertThat(Scenarios.annotations(client, "gpu-node-2"))
                                    .hasEntrySatisfying(
                                            "nvidia.com/gpu-operator.validation-reason",
                                            r ->
                                                    assertThat(r)
                                                            .startsWith("driver: ")
                                                            .contains("nvidiactl"));
                            assertThat(Scenarios.stackReady(client, "gpu-node-2"))
                                    .get()
                                    .extracting(NodeCondition::getStatus)
                                    .isEqualTo("False");
                        });
        assertThat(Scenarios.stackReady(client, "gpu-node-1"))
                .get()
                .extracting(NodeCondition::getStatus)
                .isEqualTo("True");
    }
}
