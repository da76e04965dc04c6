package org.gpuoperator.controller.reconcile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.gpuoperator.controller.operand.Operand.CONTAINER_TOOLKIT;
import static org.gpuoperator.controller.operand.Operand.DCGM_EXPORTER;
import static org.gpuoperator.controller.operand.Operand.DEVICE_PLUGIN;
import static org.gpuoperator.controller.operand.Operand.GPU_FEATURE_DISCOVERY;
import static org.gpuoperator.controller.operand.Operand.VALIDATOR;
import static org.gpuoperator.controller.reconcile.FakeCluster.NS;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Taint;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.gpuoperator.api.defaults.ClusterPolicyDefaults;
import org.gpuoperator.api.v1.ClusterPolicy;
import org.gpuoperator.api.v1.ClusterPolicySpec;
import org.gpuoperator.api.v1.DaemonsetsSpec;
import org.gpuoperator.api.v1.DriverSpec;
import org.gpuoperator.api.v1.SimulationSpec;
import org.gpuoperator.api.v1.StuckNode;
import org.gpuoperator.controller.nodes.ValidationReport;
import org.gpuoperator.controller.operand.Operand;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Against the CRUD mock: the validator's annotations in the policy status, the GPUStackReady
 * condition and the opt-in not-ready taint, written only when they change.
 */
@EnableKubernetesMockClient(crud = true)
class StackReadinessReconcileTest {

    private static final Duration WAIT = Duration.ofSeconds(90);
    private static final String TAINT = "nvidia.com/gpu-not-ready";

    KubernetesMockServer server;
    KubernetesClient client;

    private FakeCluster cluster;
    private ControllerRuntime runtime;

    @BeforeEach
    void start() throws Exception {
        client = FakeCluster.jdkClient(client);
        cluster = new FakeCluster(client, server);
        cluster.loadCrds();
    }

    @AfterEach
    void stop() {
        if (runtime != null) {
            runtime.close();
        }
        client.close();
    }

    /** Driver disabled (a pre-installed host driver), the taint opted in. */
    private void applyPolicy() {
        ClusterPolicySpec spec = new ClusterPolicySpec();
        SimulationSpec sim = new SimulationSpec();
        sim.setEnabled(true);
        sim.setProfile("t4-x1");
        spec.setSimulation(sim);
        DriverSpec driver = new DriverSpec();
        driver.setEnabled(false);
        spec.setDriver(driver);
        DaemonsetsSpec daemonsets = new DaemonsetsSpec();
        daemonsets.setGpuNotReadyTaint(true);
        spec.setDaemonsets(daemonsets);
        ClusterPolicy p = new ClusterPolicy();
        p.setMetadata(new ObjectMetaBuilder().withName("cluster-policy").build());
        p.setSpec(ClusterPolicyDefaults.effective(spec));
        client.resource(p).create();
    }

    private Node node(String name) {
        return client.nodes().withName(name).get();
    }

    private NodeCondition stackReady(String name) {
        Node n = node(name);
        return n.getStatus() == null || n.getStatus().getConditions() == null
                ? null
                : n.getStatus().getConditions().stream()
                        .filter(c -> c.getType().equals("GPUStackReady"))
                        .findFirst()
                        .orElse(null);
    }

    private List<String> taints(String name) {
        Node n = node(name);
        List<Taint> taints = n.getSpec() == null ? null : n.getSpec().getTaints();
        return taints == null
                ? List.of()
                : taints.stream().map(t -> t.getKey() + ":" + t.getEffect()).toList();
    }

    @Test
    void conditionAndTaintFollowTheValidatorAndAreWrittenOnlyOnChange() throws Exception {
        client.nodes()
                .resource(
                        new NodeBuilder()
                                .withNewMetadata()
                                .withName("gpu-1")
                                .withLabels(Map.of(FakeCluster.SIM, "true"))
                                .endMetadata()
                                .withNewSpec()
                                .addNewTaint()
                                .withKey("dedicated")
                                .withValue("ml")
                                .withEffect("NoSchedule")
                                .endTaint()
                                .endSpec()
                                .build())
                .create();
        cluster.node("cpu-1");
        runtime = ControllerRuntime.start(client, ControllerRuntime.Config.forTests(NS));
        applyPolicy();

        // driver disabled: validator and toolkit are labelled at once; the node is tainted
        await().atMost(WAIT)
                .ignoreExceptions()
                .untilAsserted(
                        () -> {
                            assertThat(cluster.labels("gpu-1"))
                                    .containsEntry(VALIDATOR.deployLabel(), "true")
                                    .containsEntry(CONTAINER_TOOLKIT.deployLabel(), "true");
                            assertThat(stackReady("gpu-1").getStatus()).isEqualTo("False");
                            assertThat(taints("gpu-1"))
                                    .containsExactly("dedicated:NoSchedule", TAINT + ":NoSchedule");
                        });
        assertThat(taints("cpu-1")).isEmpty();
        assertThat(stackReady("cpu-1")).isNull();

        // the validator says why: status and condition name the node's reason
        cluster.editNode(
                "gpu-1",
                n -> {
                    n.getMetadata()
                            .setAnnotations(
                                    Map.of(
                                            ValidationReport.ANNOTATION,
                                            "driver=failed toolkit=waiting cuda=waiting plugin=waiting",
                                            ValidationReport.REASON_ANNOTATION,
                                            "driver: no usable host driver: /dev/nvidiactl missing under /host"));
                    return n;
                });
        await().atMost(WAIT)
                .ignoreExceptions()
                .untilAsserted(
                        () -> {
                            NodeCondition c = stackReady("gpu-1");
                            assertThat(c.getReason()).isEqualTo("WaitingForDriver");
                            assertThat(c.getMessage()).contains("/dev/nvidiactl missing");
                            List<StuckNode> stuck =
                                    client.resources(ClusterPolicy.class)
                                            .withName("cluster-policy")
                                            .get()
                                            .getStatus()
                                            .getNodes()
                                            .getStuckNodes();
                            assertThat(stuck)
                                    .anySatisfy(
                                            s -> {
                                                assertThat(s.getNode()).isEqualTo("gpu-1");
                                                assertThat(s.getReason())
                                                        .contains("no usable host driver");
                                            });
                            // the alert rules' gpu_operator_nodes_waiting{gate}, as the status
                            String step = stuck.getFirst().getStep();
                            Operand gate =
                                    java.util.Arrays.stream(Operand.values())
                                            .filter(o -> o.id().equals(step))
                                            .findFirst()
                                            .orElseThrow();
                            assertThat(runtime.metrics().nodesWaiting(gate)).isEqualTo(1.0);
                        });
        // a failed check fails the node's gate: a Warning on the node and on the policy
        await().atMost(WAIT)
                .untilAsserted(
                        () -> {
                            assertThat(eventsAbout("Node", "gpu-1"))
                                    .anyMatch(
                                            e ->
                                                    e.startsWith(
                                                                    "Warning GateFailed: stuck at the gate of ")
                                                            && e.contains(
                                                                    "validator: driver: no usable host driver"));
                            assertThat(eventsAbout("ClusterPolicy", "cluster-policy"))
                                    .anyMatch(
                                            e ->
                                                    e.startsWith(
                                                                    "Warning GateFailed: node gpu-1 stuck at the gate of ")
                                                            && e.contains("no usable host driver"));
                        });

        // every layer validated: condition True, our taint off, the other kept
        cluster.editNode(
                "gpu-1",
                n -> {
                    n.getMetadata()
                            .setAnnotations(
                                    Map.of(
                                            ValidationReport.ANNOTATION,
                                            "driver=ready toolkit=ready cuda=ready plugin=ready"));
                    return n;
                });
        cluster.scheduleAndReady(CONTAINER_TOOLKIT, "gpu-1");
        await().atMost(WAIT)
                .ignoreExceptions()
                .untilAsserted(
                        () ->
                                assertThat(cluster.labels("gpu-1"))
                                        .containsEntry(DEVICE_PLUGIN.deployLabel(), "true"));
        cluster.scheduleAndReady(DEVICE_PLUGIN, "gpu-1");
        await().atMost(WAIT)
                .ignoreExceptions()
                .untilAsserted(
                        () ->
                                assertThat(cluster.labels("gpu-1"))
                                        .containsEntry(DCGM_EXPORTER.deployLabel(), "true"));
        cluster.scheduleAndReady(GPU_FEATURE_DISCOVERY, "gpu-1");
        cluster.scheduleAndReady(DCGM_EXPORTER, "gpu-1");
        cluster.scheduleAndReady(VALIDATOR, "gpu-1");
        await().atMost(WAIT)
                .ignoreExceptions()
                .untilAsserted(
                        () -> {
                            assertThat(stackReady("gpu-1").getStatus()).isEqualTo("True");
                            assertThat(taints("gpu-1")).containsExactly("dedicated:NoSchedule");
                            for (Operand gate : Operand.values()) {
                                assertThat(runtime.metrics().nodesWaiting(gate))
                                        .as(gate.id())
                                        .isZero();
                            }
                        });
        String transition = stackReady("gpu-1").getLastTransitionTime();

        // nothing changed: no write to the node
        Thread.sleep(500);
        assertThat(runtime.events().awaitIdle(Duration.ofSeconds(60))).isTrue();
        cluster.drainWrites();
        cluster.setReady(VALIDATOR, "gpu-1", true);
        Thread.sleep(1500);
        assertThat(cluster.drainWrites())
                .as("writes after an event that changes nothing")
                .noneMatch(w -> w.contains("/nodes/"));
        assertThat(stackReady("gpu-1").getLastTransitionTime()).isEqualTo(transition);

        // another writer's status update loses our condition (it puts back False): the next
        // event of the node makes the controller write it again
        client.nodes()
                .withName("gpu-1")
                .editStatus(
                        n -> {
                            n.getStatus().getConditions().stream()
                                    .filter(c -> c.getType().equals("GPUStackReady"))
                                    .forEach(c -> c.setStatus("False"));
                            return n;
                        });
        cluster.editNode(
                "gpu-1",
                n -> {
                    n.getMetadata().getLabels().put("touched", "true");
                    return n;
                });
        await().atMost(WAIT)
                .ignoreExceptions()
                .untilAsserted(() -> assertThat(stackReady("gpu-1").getStatus()).isEqualTo("True"));

        // the validator turns unready: the taint comes back; deleting the policy takes it off
        cluster.setReady(VALIDATOR, "gpu-1", false);
        await().atMost(WAIT)
                .ignoreExceptions()
                .untilAsserted(
                        () -> {
                            assertThat(stackReady("gpu-1").getStatus()).isEqualTo("False");
                            assertThat(taints("gpu-1"))
                                    .containsExactly("dedicated:NoSchedule", TAINT + ":NoSchedule");
                        });
        client.resources(ClusterPolicy.class).withName("cluster-policy").delete();
        await().atMost(WAIT)
                .ignoreExceptions()
                .untilAsserted(
                        () -> {
                            // the CRUD mock stores a status patch that was in flight as the whole
                            // object, which can drop the deletion mark (a real API server keeps
                            // metadata out of /status): delete again, as an admin would
                            ClusterPolicy p =
                                    client.resources(ClusterPolicy.class)
                                            .withName("cluster-policy")
                                            .get();
                            if (p != null && p.getMetadata().getDeletionTimestamp() == null) {
                                client.resources(ClusterPolicy.class)
                                        .withName("cluster-policy")
                                        .delete();
                            }
                            assertThat(taints("gpu-1")).containsExactly("dedicated:NoSchedule");
                        });
    }

    /** The Events about one object: "Type Reason: Message". */
    private List<String> eventsAbout(String kind, String name) {
        return client.v1().events().inAnyNamespace().list().getItems().stream()
                .filter(
                        e ->
                                kind.equals(e.getInvolvedObject().getKind())
                                        && name.equals(e.getInvolvedObject().getName()))
                .map(e -> e.getType() + " " + e.getReason() + ": " + e.getMessage())
                .toList();
    }
}
