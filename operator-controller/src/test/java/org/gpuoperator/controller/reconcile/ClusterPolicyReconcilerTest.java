package org.gpuoperator.controller.reconcile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.gpuoperator.controller.operand.Operand.CONTAINER_TOOLKIT;
import static org.gpuoperator.controller.operand.Operand.DCGM_EXPORTER;
import static org.gpuoperator.controller.operand.Operand.DEVICE_PLUGIN;
import static org.gpuoperator.controller.operand.Operand.DRIVER;
import static org.gpuoperator.controller.operand.Operand.GPU_FEATURE_DISCOVERY;
import static org.gpuoperator.controller.reconcile.FakeCluster.NS;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBindingBuilder;
import io.fabric8.kubernetes.api.model.rbac.ClusterRoleBuilder;
import io.fabric8.kubernetes.api.model.rbac.RoleBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.gpuoperator.api.v1.CdiSpec;
import org.gpuoperator.api.v1.ClusterPolicy;
import org.gpuoperator.api.v1.ClusterPolicySpec;
import org.gpuoperator.api.v1.ClusterPolicyStatus;
import org.gpuoperator.api.v1.DcgmExporterSpec;
import org.gpuoperator.api.v1.DevicePluginSpec;
import org.gpuoperator.api.v1.DriverSpec;
import org.gpuoperator.api.v1.HostPathsSpec;
import org.gpuoperator.api.v1.SimulationSpec;
import org.gpuoperator.api.v1.State;
import org.gpuoperator.api.v1alpha1.NVIDIADriver;
import org.gpuoperator.api.v1alpha1.NVIDIADriverSpec;
import org.gpuoperator.controller.operand.Operand;
import org.gpuoperator.controller.policy.FieldsRead;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Acceptance tests of issue 3 against the fabric8 mock API server in CRUD mode, with the generated
 * CRDs loaded.
 */
@EnableKubernetesMockClient(crud = true)
class ClusterPolicyReconcilerTest {

    private static final Duration WAIT = Duration.ofSeconds(90);
    private static final String GPU = "nvidia.com/gpu.present";

    KubernetesMockServer server;
    KubernetesClient client;

    private FakeCluster cluster;
    private ControllerRuntime runtime;

    /**
     * fabric8 scans every model class the first time it deserialises an unknown kind; on a loaded
     * machine that can stall the client's event loop for a long time, so pay it once, up front,
     * outside any timed wait.
     */
    @org.junit.jupiter.api.BeforeAll
    static void warmUpDeserializer() {
        io.fabric8.kubernetes.client.utils.Serialization.unmarshal(
                "{\"apiVersion\":\"example.com/v1\",\"kind\":\"Unknown\",\"metadata\":{\"name\":\"x\"}}");
        for (Class<?> kind :
                List.of(
                        io.fabric8.kubernetes.api.model.node.v1.RuntimeClass.class,
                        io.fabric8.kubernetes.api.model.rbac.ClusterRole.class,
                        DaemonSet.class,
                        ClusterPolicy.class)) {
            io.fabric8.kubernetes.client.utils.Serialization.unmarshal(
                    "{\"metadata\":{\"name\":\"x\"}}", kind);
        }
    }

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

    private void startController() {
        runtime = ControllerRuntime.start(client, ControllerRuntime.Config.forTests(NS));
    }

    /**
     * Nodes, pods and DaemonSets are listed in pages ({@code limit}), as client-go's reflector
     * does: in one answer, 5,000 kubelet-shaped nodes are ~55 MB of JSON read whole.
     */
    @Test
    void theInformersListInPages() throws Exception {
        cluster.drainRequests();
        startController();

        List<String> lists =
                cluster.drainRequests().stream()
                        .filter(r -> r.startsWith("GET ") && !r.contains("watch=true"))
                        .toList();
        for (String kind : List.of("/api/v1/nodes?", "/pods?", "/daemonsets?")) {
            assertThat(lists)
                    .as(kind)
                    .filteredOn(r -> r.contains(kind))
                    .isNotEmpty()
                    .allMatch(r -> r.contains("limit=" + ClusterPolicyReconciler.LIST_PAGE));
        }
    }

    private static ClusterPolicy policy(String name, Consumer<ClusterPolicySpec> customize) {
        ClusterPolicy p = new ClusterPolicy();
        p.setMetadata(new ObjectMetaBuilder().withName(name).build());
        ClusterPolicySpec spec = new ClusterPolicySpec();
        SimulationSpec sim = new SimulationSpec();
        sim.setEnabled(true);
        sim.setProfile("t4-x1");
        spec.setSimulation(sim);
        customize.accept(spec);
        // the required sections, as the Helm chart writes them
        p.setSpec(org.gpuoperator.api.defaults.ClusterPolicyDefaults.effective(spec));
        return p;
    }

    private ClusterPolicy apply(ClusterPolicy p) {
        return client.resource(p).create();
    }

    private ClusterPolicyStatus status(String name) {
        ClusterPolicy p = client.resources(ClusterPolicy.class).withName(name).get();
        return p == null ? null : p.getStatus();
    }

    private Condition condition(String policy, String type) {
        ClusterPolicyStatus s = status(policy);
        return s == null || s.getConditions() == null
                ? null
                : s.getConditions().stream()
                        .filter(c -> c.getType().equals(type))
                        .findFirst()
                        .orElse(null);
    }

    /**
     * The Events about one object, as {@code kubectl describe} finds them: "Type Reason: Message".
     */
    private List<String> eventsAbout(String kind, String name) {
        return client.v1().events().inAnyNamespace().list().getItems().stream()
                .filter(
                        e ->
                                kind.equals(e.getInvolvedObject().getKind())
                                        && name.equals(e.getInvolvedObject().getName()))
                .map(e -> e.getType() + " " + e.getReason() + ": " + e.getMessage())
                .toList();
    }

    private void awaitLabel(String node, Operand operand, String value) {
        await().atMost(WAIT)
                .ignoreExceptions()
                .untilAsserted(
                        () ->
                                assertThat(cluster.labels(node))
                                        .containsEntry(operand.deployLabel(), value));
    }

    /**
     * Walks the given GPU nodes through every gate, flipping pod readiness as the kubelet would.
     */
    private void walkAllGates(String... nodes) {
        for (Operand operand :
                List.of(DRIVER, CONTAINER_TOOLKIT, DEVICE_PLUGIN, GPU_FEATURE_DISCOVERY)) {
            for (String n : nodes) {
                awaitLabel(n, operand, "true");
            }
            if (operand == GPU_FEATURE_DISCOVERY) {
                for (String n : nodes) {
                    awaitLabel(n, DCGM_EXPORTER, "true");
                    awaitLabel(n, Operand.MIG_MANAGER, "true"); // FakeCluster's are MIG capable
                }
                cluster.scheduleAndReady(DCGM_EXPORTER, nodes);
                cluster.scheduleAndReady(Operand.MIG_MANAGER, nodes);
            }
            cluster.scheduleAndReady(operand, nodes);
        }
        for (String n : nodes) {
            awaitLabel(n, Operand.VALIDATOR, "true");
        }
        cluster.scheduleAndReady(Operand.VALIDATOR, nodes);
        await().atMost(WAIT)
                .ignoreExceptions()
                .untilAsserted(
                        () ->
                                assertThat(status("cluster-policy").getState())
                                        .isEqualTo(State.READY));
    }

    /**
     * The controller's own client skips images and managedFields when it reads a node; its writes
     * (the label patch, the GPUStackReady condition) must leave the server's copies as they are.
     */
    @Test
    void theControllersClientReadsNodesWithoutImagesAndItsWritesKeepThem() {
        client.nodes()
                .resource(
                        RealisticNode.shape(
                                new io.fabric8.kubernetes.api.model.NodeBuilder()
                                        .withNewMetadata()
                                        .withName("gpu-1")
                                        .withLabels(Map.of(FakeCluster.SIM, "true"))
                                        .endMetadata()
                                        .build(),
                                "2026-12-04T10:00:00Z"))
                .create();
        try (KubernetesClient controllerClient =
                ControllerSerialization.clientBuilder()
                        .withConfig(client.getConfiguration())
                        .withHttpClientFactory(
                                new io.fabric8.kubernetes.client.jdkhttp.JdkHttpClientFactory())
                        .build()) {
            io.fabric8.kubernetes.api.model.Node seen =
                    controllerClient.nodes().withName("gpu-1").get();
            assertThat(seen.getStatus().getImages()).isEmpty();
            assertThat(seen.getMetadata().getManagedFields()).isEmpty();

            runtime =
                    ControllerRuntime.start(
                            controllerClient, ControllerRuntime.Config.forTests(NS));
            apply(policy("cluster-policy", s -> {}));
            awaitLabel("gpu-1", DRIVER, "true");
            await().atMost(WAIT)
                    .ignoreExceptions()
                    .untilAsserted(
                            () ->
                                    assertThat(
                                                    client.nodes()
                                                            .withName("gpu-1")
                                                            .get()
                                                            .getStatus()
                                                            .getConditions())
                                            .anyMatch(
                                                    c ->
                                                            org.gpuoperator.controller.nodes
                                                                    .StackReadiness.CONDITION
                                                                    .equals(c.getType())));
            io.fabric8.kubernetes.api.model.Node onServer = client.nodes().withName("gpu-1").get();
            assertThat(onServer.getMetadata().getLabels()).containsEntry(GPU, "true");
            assertThat(onServer.getStatus().getImages()).hasSize(50);
            assertThat(onServer.getMetadata().getManagedFields())
                    .singleElement()
                    .satisfies(f -> assertThat(f.getManager()).isEqualTo("kubelet"));
            runtime.close();
            runtime = null;
        }
    }

    @Test
    void gpuNodesWalkTheGatesInOrderAndTheCpuNodeGetsNothing() {
        cluster.gpuNode("gpu-1");
        cluster.gpuNode("gpu-2");
        cluster.node(
                "gpu-3",
                "feature.node.kubernetes.io/pci-10de.present",
                "true",
                "nvidia.com/mig.capable",
                "true");
        cluster.node("cpu-1", "feature.node.kubernetes.io/cpu-model.vendor_id", "Intel");
        startController();
        apply(policy("cluster-policy", s -> {}));

        await().atMost(WAIT)
                .ignoreExceptions()
                .untilAsserted(
                        () -> {
                            for (Operand o : Operand.values()) {
                                assertThat(cluster.daemonSet(o)).as(o.daemonSetName()).isNotNull();
                            }
                            assertThat(
                                            client.resources(
                                                            io.fabric8.kubernetes.api.model.node.v1
                                                                    .RuntimeClass.class)
                                                    .withName("nvidia")
                                                    .get()
                                                    .getHandler())
                                    .isEqualTo("nvidia");
                        });
        DaemonSet driver = cluster.daemonSet(DRIVER);
        assertThat(driver.getMetadata().getOwnerReferences())
                .singleElement()
                .satisfies(r -> assertThat(r.getKind()).isEqualTo("ClusterPolicy"));
        for (String n : List.of("gpu-1", "gpu-2", "gpu-3")) {
            awaitLabel(n, DRIVER, "true");
            assertThat(cluster.labels(n))
                    .containsEntry(GPU, "true")
                    .doesNotContainKey(CONTAINER_TOOLKIT.deployLabel());
        }
        await().atMost(WAIT)
                .ignoreExceptions()
                .untilAsserted(
                        () -> {
                            assertThat(status("cluster-policy").getState())
                                    .isEqualTo(State.NOT_READY);
                            assertThat(condition("cluster-policy", "Ready").getReason())
                                    .isEqualTo("OperandNotReady");
                            assertThat(condition("cluster-policy", "Ready").getMessage())
                                    .contains("gpu-1 at driver");
                        });

        // driver Ready on gpu-1 only: only gpu-1 moves on
        cluster.schedule(DRIVER);
        cluster.setReady(DRIVER, "gpu-1", true);
        awaitLabel("gpu-1", CONTAINER_TOOLKIT, "true");
        assertThat(cluster.labels("gpu-2")).doesNotContainKey(CONTAINER_TOOLKIT.deployLabel());
        assertThat(cluster.labels("gpu-1")).doesNotContainKey(DEVICE_PLUGIN.deployLabel());

        cluster.setReady(DRIVER, "gpu-2", true);
        cluster.setReady(DRIVER, "gpu-3", true);
        walkAllGates("gpu-1", "gpu-2", "gpu-3");

        assertThat(cluster.labels("cpu-1")).doesNotContainKeys(GPU, DRIVER.deployLabel());
        ClusterPolicyStatus s = status("cluster-policy");
        assertThat(s.getNodes().getGpuNodes()).isEqualTo(3);
        assertThat(s.getNodes().getReadyNodes()).isEqualTo(3);
        assertThat(s.getOperands())
                .allSatisfy(
                        o -> {
                            assertThat(o.getDesired()).isEqualTo(3);
                            assertThat(o.getReady()).isEqualTo(3);
                            assertThat(o.getUpdated()).isEqualTo(3);
                        });
        assertThat(condition("cluster-policy", "Ready").getStatus()).isEqualTo("True");
        assertThat(condition("cluster-policy", "Error").getStatus()).isEqualTo("False");
    }

    @Test
    void newNodeWalksTheSameStepsAndAnUnreadyDriverHoldsOnlyItsNode() {
        cluster.gpuNode("gpu-1");
        cluster.gpuNode("gpu-2");
        startController();
        apply(policy("cluster-policy", s -> {}));
        walkAllGates("gpu-1", "gpu-2");
        Map<String, String> gpu1Before = new HashMap<>(cluster.labels("gpu-1"));

        cluster.setReady(DRIVER, "gpu-2", false);
        cluster.gpuNode("gpu-3");
        awaitLabel("gpu-3", DRIVER, "true");
        await().atMost(WAIT)
                .ignoreExceptions()
                .untilAsserted(
                        () -> {
                            assertThat(condition("cluster-policy", "Ready").getReason())
                                    .isEqualTo("OperandNotReady");
                            assertThat(condition("cluster-policy", "Ready").getMessage())
                                    .contains("gpu-2 at driver", "gpu-3 at driver");
                            assertThat(status("cluster-policy").getNodes().getStuckNodes())
                                    .anySatisfy(
                                            n -> {
                                                assertThat(n.getNode()).isEqualTo("gpu-2");
                                                assertThat(n.getStep()).isEqualTo("driver");
                                            });
                        });

        cluster.scheduleAndReady(DRIVER, "gpu-3");
        awaitLabel("gpu-3", CONTAINER_TOOLKIT, "true");
        cluster.scheduleAndReady(CONTAINER_TOOLKIT, "gpu-3");
        awaitLabel("gpu-3", DEVICE_PLUGIN, "true");
        assertThat(cluster.labels("gpu-1")).isEqualTo(gpu1Before);
        assertThat(status("cluster-policy").getNodes().getStuckNodes())
                .extracting(n -> n.getNode())
                .contains("gpu-2")
                .doesNotContain("gpu-1");
    }

    @Test
    void aSecondReconcileWithNothingChangedSendsNoWrite() throws Exception {
        cluster.gpuNode("gpu-1");
        cluster.gpuNode("gpu-2");
        startController();
        apply(policy("cluster-policy", s -> {}));
        walkAllGates("gpu-1", "gpu-2");

        // the Events of the walk are written asynchronously: all of them before the drain
        assertThat(runtime.events().awaitIdle(WAIT)).isTrue();
        cluster.drainWrites();
        long before = runtime.metrics().reconciliations();
        // an operand pod event the controller must look at, that changes nothing it cares about
        touchDriverPod("gpu-1");
        await().atMost(WAIT)
                .ignoreExceptions()
                .until(() -> runtime.metrics().reconciliations() > before);
        Thread.sleep(300); // let a coalesced follow-up reconcile finish too
        assertThat(runtime.events().awaitIdle(WAIT)).isTrue();
        List<String> writes = cluster.drainWrites();
        assertThat(writes)
                .as("writes after a no-op reconcile (the test's own pod edit excluded)")
                .allMatch(w -> w.contains("/pods/" + DRIVER.daemonSetName() + "-gpu-1"));
    }

    /**
     * A node shaped like a real one (50 images, the kubelet's conditions, addresses, nodeInfo,
     * managedFields) and its kubelet's heartbeats, which change conditions' times and managedFields
     * only: no gate evaluation of that node and no write.
     */
    @Test
    void kubeletHeartbeatsOnARealisticNodeCauseNoGateEvaluationAndNoWrite() throws Exception {
        cluster.gpuNode("gpu-1");
        cluster.gpuNode("gpu-2");
        client.nodes()
                .withName("gpu-1")
                .editStatus(n -> RealisticNode.shape(n, "2026-12-02T10:00:00Z"));
        startController();
        apply(policy("cluster-policy", s -> {}));
        walkAllGates("gpu-1", "gpu-2");
        assertThat(runtime.events().awaitIdle(WAIT)).isTrue();
        awaitNoReconcileFor(Duration.ofMillis(1500)); // the pass 1 s after a status patch included
        cluster.drainWrites();
        long evaluations = runtime.metrics().gateEvaluations();
        long reconciles = runtime.metrics().reconciliations();

        for (int beat = 1; beat <= 5; beat++) {
            String now = String.format("2026-12-02T10:00:%02dZ", beat * 10);
            client.nodes().withName("gpu-1").editStatus(n -> RealisticNode.shape(n, now));
        }
        Thread.sleep(500); // the heartbeats' watch events arrive
        assertThat(runtime.metrics().reconciliations())
                .as("a heartbeat wakes no reconcile (the update filter drops it)")
                .isEqualTo(reconciles);
        // then an event that must be looked at, on the other node: its pass sees the heartbeats too
        touchDriverPod("gpu-2");
        await().atMost(WAIT)
                .ignoreExceptions()
                .until(() -> runtime.metrics().reconciliations() > reconciles);
        Thread.sleep(300);
        assertThat(runtime.events().awaitIdle(WAIT)).isTrue();
        assertThat(runtime.metrics().gateEvaluations() - evaluations)
                .as("gpu-2's pod event only: the heartbeats of gpu-1 are no change")
                .isEqualTo(1);
        assertThat(cluster.drainWrites())
                .as("writes after the heartbeats (the test's own writes excluded)")
                .allMatch(
                        w ->
                                w.contains("/pods/" + DRIVER.daemonSetName() + "-gpu-2")
                                        || w.contains("/nodes/gpu-1/status"));
    }

    /** Waits until no reconcile ran for {@code quiet}. */
    private void awaitNoReconcileFor(Duration quiet) {
        long[] last = {runtime.metrics().reconciliations(), System.nanoTime()};
        await().atMost(WAIT)
                .pollInterval(Duration.ofMillis(100))
                .until(
                        () -> {
                            long now = runtime.metrics().reconciliations();
                            if (now != last[0]) {
                                last[0] = now;
                                last[1] = System.nanoTime();
                            }
                            return System.nanoTime() - last[1] >= quiet.toNanos();
                        });
    }

    /** An annotation on the node's driver pod: an event to look at that changes nothing. */
    private void touchDriverPod(String node) {
        client.pods()
                .inNamespace(NS)
                .withName(DRIVER.daemonSetName() + "-" + node)
                .edit(
                        p -> {
                            p.getMetadata().getAnnotations().put("touched", "yes");
                            return p;
                        });
    }

    private static ClusterPolicy monitoredPolicy() {
        return policy(
                "cluster-policy",
                s -> {
                    var monitor = new org.gpuoperator.api.v1.ServiceMonitorConfig();
                    monitor.setEnabled(true);
                    monitor.setInterval("30s");
                    monitor.setAdditionalLabels(Map.of("release", "kube-prometheus-stack"));
                    DcgmExporterSpec exporter = new DcgmExporterSpec();
                    exporter.setServiceMonitor(monitor);
                    s.setDcgmExporter(exporter);
                });
    }

    private org.gpuoperator.controller.operand.ServiceMonitor serviceMonitor() {
        return client.resources(org.gpuoperator.controller.operand.ServiceMonitor.class)
                .inNamespace(NS)
                .withName("nvidia-dcgm-exporter")
                .get();
    }

    /**
     * spec.operator.metrics.serviceMonitor on: the operator's ServiceMonitor and PrometheusRule.
     */
    private static void operatorMonitored(ClusterPolicySpec s) {
        var monitor = new org.gpuoperator.api.v1.ServiceMonitorConfig();
        monitor.setEnabled(true);
        monitor.setAdditionalLabels(Map.of("release", "kube-prometheus-stack"));
        var metrics = new org.gpuoperator.api.v1.OperatorMetricsSpec();
        metrics.setServiceMonitor(monitor);
        var operator =
                s.getOperator() == null
                        ? new org.gpuoperator.api.v1.OperatorSpec()
                        : s.getOperator();
        operator.setMetrics(metrics);
        s.setOperator(operator);
    }

    private org.gpuoperator.controller.operand.PrometheusRule prometheusRule() {
        return client.resources(org.gpuoperator.controller.operand.PrometheusRule.class)
                .inNamespace(NS)
                .withName("gpu-operator-rules")
                .get();
    }

    /**
     * The operator's alert rules are applied with its ServiceMonitor, owned by the policy, then
     * left alone (a later reconcile sends them no write), and deleted when switched off.
     */
    @Test
    @SuppressWarnings("unchecked")
    void theOperatorsPrometheusRuleIsCreatedOwnedNotRewrittenAndDeletedWhenSwitchedOff()
            throws Exception {
        cluster.gpuNode("gpu-1");
        startController();
        apply(policy("cluster-policy", ClusterPolicyReconcilerTest::operatorMonitored));
        walkAllGates("gpu-1");
        var rule = prometheusRule();
        assertThat(rule).isNotNull();
        assertThat(rule.getMetadata().getLabels())
                .containsEntry("app", "gpu-operator")
                .containsEntry("release", "kube-prometheus-stack");
        assertThat(rule.getMetadata().getOwnerReferences())
                .singleElement()
                .satisfies(o -> assertThat(o.getKind()).isEqualTo("ClusterPolicy"));
        Map<String, Object> ruleSpec =
                (Map<String, Object>) rule.getAdditionalProperties().get("spec");
        assertThat(ruleSpec.get("groups"))
                .isEqualTo(org.gpuoperator.controller.metrics.AlertRules.groups());
        assertThat(
                        java.util.Objects.requireNonNullElse(
                                status("cluster-policy").getWarnings(),
                                List.<org.gpuoperator.api.v1.PolicyWarning>of()))
                .noneMatch(w -> w.getPath().startsWith("spec.operator.metrics"));

        assertThat(runtime.events().awaitIdle(WAIT)).isTrue();
        cluster.drainWrites();
        long before = runtime.metrics().reconciliations();
        touchDriverPod("gpu-1");
        await().atMost(WAIT)
                .ignoreExceptions()
                .until(() -> runtime.metrics().reconciliations() > before);
        Thread.sleep(300); // let a coalesced follow-up reconcile finish too
        assertThat(runtime.events().awaitIdle(WAIT)).isTrue();
        assertThat(cluster.drainWrites())
                .as("writes after a no-op reconcile (the test's own pod edit excluded)")
                .allMatch(w -> w.contains("/pods/" + DRIVER.daemonSetName() + "-gpu-1"));

        editPolicy(spec -> spec.getOperator().getMetrics().getServiceMonitor().setEnabled(false));
        await().atMost(WAIT)
                .ignoreExceptions()
                .untilAsserted(() -> assertThat(prometheusRule()).isNull());
    }

    @Test
    @SuppressWarnings("unchecked")
    void theExportersServiceMonitorIsCreatedOwnedAndDeletedWhenSwitchedOff() {
        startController();
        apply(monitoredPolicy());
        await().atMost(WAIT)
                .ignoreExceptions()
                .untilAsserted(
                        () -> {
                            var sm = serviceMonitor();
                            assertThat(sm).isNotNull();
                            assertThat(sm.getMetadata().getLabels())
                                    .containsEntry("release", "kube-prometheus-stack");
                            assertThat(sm.getMetadata().getOwnerReferences())
                                    .singleElement()
                                    .satisfies(
                                            o ->
                                                    assertThat(o.getKind())
                                                            .isEqualTo("ClusterPolicy"));
                            Map<String, Object> spec =
                                    (Map<String, Object>) sm.getAdditionalProperties().get("spec");
                            assertThat(
                                            ((List<Map<String, Object>>) spec.get("endpoints"))
                                                    .getFirst())
                                    .containsEntry("port", "gpu-metrics")
                                    .containsEntry("interval", "30s");
                        });
        await().atMost(WAIT)
                .ignoreExceptions()
                .untilAsserted(
                        () ->
                                assertThat(
                                                java.util.Objects.requireNonNullElse(
                                                        status("cluster-policy").getWarnings(),
                                                        List
                                                                .<org.gpuoperator.api.v1
                                                                                .PolicyWarning>
                                                                        of()))
                                        .noneMatch(
                                                w ->
                                                        w.getPath()
                                                                .startsWith(
                                                                        "spec.dcgmExporter.serviceMonitor")));

        editPolicy(spec -> spec.getDcgmExporter().getServiceMonitor().setEnabled(false));
        await().atMost(WAIT)
                .ignoreExceptions()
                .untilAsserted(() -> assertThat(serviceMonitor()).isNull());
        assertThat(cluster.daemonSet(Operand.DCGM_EXPORTER)).isNotNull();
    }

    @Test
    void aClusterWithoutThePrometheusOperatorGetsAWarningAndEverythingElse() {
        // the kinds are not served: the API server answers 404 for them
        for (String plural : List.of("servicemonitors", "prometheusrules")) {
            server.expect()
                    .post()
                    .withPath("/apis/monitoring.coreos.com/v1/namespaces/" + NS + "/" + plural)
                    .andReturn(
                            404,
                            "{\"kind\":\"Status\",\"apiVersion\":\"v1\",\"status\":\"Failure\","
                                    + "\"message\":\"the server could not find the requested"
                                    + " resource\",\"reason\":\"NotFound\",\"code\":404}")
                    .always();
        }
        startController();
        ClusterPolicy monitored = monitoredPolicy();
        operatorMonitored(monitored.getSpec());
        apply(monitored);
        await().atMost(WAIT)
                .ignoreExceptions()
                .untilAsserted(
                        () ->
                                assertThat(status("cluster-policy").getWarnings())
                                        .anySatisfy(
                                                w -> {
                                                    assertThat(w.getPath())
                                                            .isEqualTo(
                                                                    "spec.dcgmExporter.serviceMonitor.enabled");
                                                    assertThat(w.getMessage())
                                                            .startsWith(
                                                                    "no ServiceMonitor created: this cluster"
                                                                            + " does not serve"
                                                                            + " monitoring.coreos.com/v1"
                                                                            + " ServiceMonitors")
                                                            .endsWith(
                                                                    "tried again every 5"
                                                                            + " minutes");
                                                }));
        // the operator's two objects, each named by its kind, under the field that asks for both
        await().atMost(WAIT)
                .ignoreExceptions()
                .untilAsserted(
                        () ->
                                assertThat(status("cluster-policy").getWarnings())
                                        .filteredOn(
                                                w ->
                                                        w.getPath()
                                                                .equals(
                                                                        "spec.operator.metrics.serviceMonitor.enabled"))
                                        .extracting(w -> w.getMessage().split(";")[0])
                                        .containsExactlyInAnyOrder(
                                                "no ServiceMonitor created: this cluster does not"
                                                        + " serve monitoring.coreos.com/v1"
                                                        + " ServiceMonitors (install the Prometheus"
                                                        + " Operator's CRDs)",
                                                "no PrometheusRule created: this cluster does not"
                                                        + " serve monitoring.coreos.com/v1"
                                                        + " PrometheusRules (install the Prometheus"
                                                        + " Operator's CRDs)"));
        for (Operand o : Operand.values()) {
            assertThat(cluster.daemonSet(o)).as(o.id()).isNotNull();
        }
        assertThat(serviceMonitor()).isNull();
        assertThat(prometheusRule()).isNull();
    }

    @Test
    void disablingAnOperandDeletesItsObjectsAndASpecChangeUpdatesExactlyTheAffectedDaemonSet() {
        cluster.gpuNode("gpu-1");
        startController();
        apply(policy("cluster-policy", s -> {}));
        walkAllGates("gpu-1");
        Map<Operand, String> versions = new HashMap<>();
        for (Operand o : Operand.values()) {
            versions.put(o, cluster.daemonSet(o).getMetadata().getResourceVersion());
        }
        // Events: each operand DaemonSet created (on the policy), each gate passed (on the node)
        await().atMost(WAIT)
                .ignoreExceptions()
                .untilAsserted(
                        () -> {
                            List<String> onPolicy = eventsAbout("ClusterPolicy", "cluster-policy");
                            List<String> onNode = eventsAbout("Node", "gpu-1");
                            for (Operand o : Operand.values()) {
                                assertThat(onPolicy)
                                        .contains(
                                                "Normal DaemonSetCreated: DaemonSet "
                                                        + NS
                                                        + "/"
                                                        + o.daemonSetName()
                                                        + " created");
                                assertThat(onNode)
                                        .anyMatch(
                                                e ->
                                                        e.startsWith(
                                                                        "Normal GatePassed: passed the gate of "
                                                                                + o.id()
                                                                                + " (")
                                                                && e.endsWith(
                                                                        o.deployLabel() + "=true"));
                            }
                        });

        editPolicy(
                spec -> {
                    DevicePluginSpec dp = new DevicePluginSpec();
                    dp.setVersion("0.2.0");
                    spec.setDevicePlugin(dp);
                });
        await().atMost(WAIT)
                .ignoreExceptions()
                .untilAsserted(
                        () ->
                                assertThat(
                                                cluster.daemonSet(DEVICE_PLUGIN)
                                                        .getSpec()
                                                        .getTemplate()
                                                        .getSpec()
                                                        .getContainers()
                                                        .getFirst()
                                                        .getImage())
                                        .endsWith("device-plugin:0.2.0"));
        for (Operand o : Operand.values()) {
            if (o != DEVICE_PLUGIN) {
                assertThat(cluster.daemonSet(o).getMetadata().getResourceVersion())
                        .as(o.id())
                        .isEqualTo(versions.get(o));
            }
        }
        await().atMost(WAIT)
                .ignoreExceptions()
                .untilAsserted(
                        () -> {
                            var dpStatus =
                                    status("cluster-policy").getOperands().stream()
                                            .filter(o -> o.getName().equals("device-plugin"))
                                            .findFirst()
                                            .orElseThrow();
                            assertThat(dpStatus.getUpdated())
                                    .isZero(); // the running pod has the old template: rollout
                            // pending
                            assertThat(dpStatus.getState()).isEqualTo(State.NOT_READY);
                        });
        await().atMost(WAIT)
                .untilAsserted(
                        () ->
                                assertThat(eventsAbout("ClusterPolicy", "cluster-policy"))
                                        .containsOnlyOnce(
                                                "Normal DaemonSetUpdated: DaemonSet "
                                                        + NS
                                                        + "/"
                                                        + DEVICE_PLUGIN.daemonSetName()
                                                        + " updated"));

        editPolicy(
                spec -> {
                    DcgmExporterSpec off = new DcgmExporterSpec();
                    off.setEnabled(false);
                    spec.setDcgmExporter(off);
                });
        await().atMost(WAIT)
                .ignoreExceptions()
                .untilAsserted(
                        () -> {
                            assertThat(cluster.daemonSet(DCGM_EXPORTER)).isNull();
                            assertThat(
                                            client.serviceAccounts()
                                                    .inNamespace(NS)
                                                    .withName("nvidia-dcgm-exporter")
                                                    .get())
                                    .isNull();
                            assertThat(
                                            client.services()
                                                    .inNamespace(NS)
                                                    .withName("nvidia-dcgm-exporter")
                                                    .get())
                                    .isNull();
                            assertThat(cluster.labels("gpu-1"))
                                    .doesNotContainKey(DCGM_EXPORTER.deployLabel());
                        });
        assertThat(cluster.daemonSet(GPU_FEATURE_DISCOVERY)).isNotNull();
        await().atMost(WAIT)
                .untilAsserted(
                        () ->
                                assertThat(eventsAbout("ClusterPolicy", "cluster-policy"))
                                        .contains(
                                                "Normal DaemonSetDeleted: DaemonSet "
                                                        + NS
                                                        + "/"
                                                        + DCGM_EXPORTER.daemonSetName()
                                                        + " deleted")
                                        .noneMatch(
                                                e ->
                                                        e.contains(
                                                                "DaemonSetUpdated: DaemonSet "
                                                                        + NS
                                                                        + "/"
                                                                        + DRIVER.daemonSetName())));
    }

    private DaemonSet mpsControlDaemon() {
        return client.apps()
                .daemonSets()
                .inNamespace(NS)
                .withName("nvidia-device-plugin-mps-control-daemon")
                .get();
    }

    @Test
    void theMpsControlDaemonIsAppliedWithTheDevicePluginAndDeletedWithIt() {
        startController();
        apply(
                policy(
                        "cluster-policy",
                        s -> {
                            DevicePluginSpec dp = new DevicePluginSpec();
                            org.gpuoperator.api.v1.MpsSpec mps =
                                    new org.gpuoperator.api.v1.MpsSpec();
                            mps.setRoot("/var/run/mps");
                            dp.setMps(mps);
                            s.setDevicePlugin(dp);
                        }));
        await().atMost(WAIT)
                .ignoreExceptions()
                .untilAsserted(
                        () -> {
                            DaemonSet ds = mpsControlDaemon();
                            assertThat(ds).isNotNull();
                            assertThat(ds.getMetadata().getOwnerReferences())
                                    .singleElement()
                                    .satisfies(
                                            o ->
                                                    assertThat(o.getKind())
                                                            .isEqualTo("ClusterPolicy"));
                            var pod = ds.getSpec().getTemplate().getSpec();
                            assertThat(pod.getNodeSelector())
                                    .containsEntry("nvidia.com/mps.capable", "true")
                                    .containsEntry(DEVICE_PLUGIN.deployLabel(), "true");
                            assertThat(pod.getContainers().getFirst().getEnv())
                                    .anySatisfy(
                                            e -> {
                                                assertThat(e.getName()).isEqualTo("MPS_ROOT");
                                                assertThat(e.getValue()).isEqualTo("/var/run/mps");
                                            });
                            assertThat(cluster.daemonSet(DEVICE_PLUGIN)).isNotNull();
                            assertThat(eventsAbout("ClusterPolicy", "cluster-policy"))
                                    .contains(
                                            "Normal DaemonSetCreated: DaemonSet "
                                                    + NS
                                                    + "/nvidia-device-plugin-mps-control-daemon"
                                                    + " created");
                        });
        // the field is read: no "not acted on" warning for it, once the status is written
        await().atMost(WAIT)
                .ignoreExceptions()
                .untilAsserted(
                        () -> {
                            ClusterPolicyStatus st = status("cluster-policy");
                            assertThat(st).isNotNull();
                            assertThat(st.getState()).isNotNull();
                            assertThat(
                                            java.util.Objects.requireNonNullElse(
                                                    st.getWarnings(),
                                                    List
                                                            .<org.gpuoperator.api.v1.PolicyWarning>
                                                                    of()))
                                    .noneMatch(
                                            w -> w.getPath().startsWith("spec.devicePlugin.mps"));
                        });

        editPolicy(spec -> spec.getDevicePlugin().setEnabled(false));
        await().atMost(WAIT)
                .ignoreExceptions()
                .untilAsserted(
                        () -> {
                            assertThat(mpsControlDaemon()).isNull();
                            assertThat(cluster.daemonSet(DEVICE_PLUGIN)).isNull();
                            assertThat(eventsAbout("ClusterPolicy", "cluster-policy"))
                                    .contains(
                                            "Normal DaemonSetDeleted: DaemonSet "
                                                    + NS
                                                    + "/nvidia-device-plugin-mps-control-daemon"
                                                    + " deleted");
                        });
        assertThat(cluster.daemonSet(GPU_FEATURE_DISCOVERY)).isNotNull();
    }

    private io.fabric8.kubernetes.api.model.node.v1.RuntimeClass runtimeClass(String name) {
        return client.resources(io.fabric8.kubernetes.api.model.node.v1.RuntimeClass.class)
                .withName(name)
                .get();
    }

    private String envOf(Operand o, String name) {
        return cluster
                .daemonSet(o)
                .getSpec()
                .getTemplate()
                .getSpec()
                .getContainers()
                .getFirst()
                .getEnv()
                .stream()
                .filter(e -> e.getName().equals(name))
                .map(io.fabric8.kubernetes.api.model.EnvVar::getValue)
                .findFirst()
                .orElse(null);
    }

    private void setCdi(boolean enabled) {
        editPolicy(
                spec -> {
                    CdiSpec cdi = new CdiSpec();
                    cdi.setEnabled(enabled);
                    spec.setCdi(cdi);
                });
    }

    /**
     * An admin's edit of the policy's spec, read again on a conflict (the controller writes the
     * status meanwhile, which a plain update would lose to a 409).
     */
    private void editPolicy(java.util.function.Consumer<ClusterPolicySpec> edit) {
        await().atMost(WAIT)
                .ignoreExceptions()
                .until(
                        () -> {
                            ClusterPolicy p =
                                    client.resources(ClusterPolicy.class)
                                            .withName("cluster-policy")
                                            .get();
                            edit.accept(p.getSpec());
                            client.resource(p).update();
                            return true;
                        });
    }

    @Test
    void turningCdiOffDeletesItsRuntimeClassesAndChangesTheEnvAndOnAgainRestoresThem() {
        cluster.gpuNode("gpu-1");
        startController();
        apply(policy("cluster-policy", s -> {}));
        await().atMost(WAIT)
                .ignoreExceptions()
                .untilAsserted(
                        () -> {
                            assertThat(runtimeClass("nvidia-cdi").getHandler())
                                    .isEqualTo("nvidia-cdi");
                            assertThat(runtimeClass("nvidia-legacy").getHandler())
                                    .isEqualTo("nvidia-legacy");
                            assertThat(envOf(CONTAINER_TOOLKIT, "CDI_ENABLED")).isEqualTo("true");
                            assertThat(envOf(DEVICE_PLUGIN, "DEVICE_LIST_STRATEGY"))
                                    .isEqualTo("cdi-annotations,cdi-cri");
                        });

        setCdi(false);
        await().atMost(WAIT)
                .ignoreExceptions()
                .untilAsserted(
                        () -> {
                            assertThat(runtimeClass("nvidia-cdi")).isNull();
                            assertThat(runtimeClass("nvidia-legacy")).isNull();
                            assertThat(envOf(CONTAINER_TOOLKIT, "CDI_ENABLED")).isEqualTo("false");
                            assertThat(envOf(DEVICE_PLUGIN, "DEVICE_LIST_STRATEGY"))
                                    .isEqualTo("envvar");
                            assertThat(envOf(DEVICE_PLUGIN, "CDI_ANNOTATION_PREFIX")).isNull();
                        });
        assertThat(runtimeClass("nvidia").getHandler())
                .as("the nvidia class stays")
                .isEqualTo("nvidia");

        setCdi(true);
        await().atMost(WAIT)
                .ignoreExceptions()
                .untilAsserted(
                        () -> {
                            assertThat(runtimeClass("nvidia-cdi").getHandler())
                                    .isEqualTo("nvidia-cdi");
                            assertThat(runtimeClass("nvidia-legacy").getHandler())
                                    .isEqualTo("nvidia-legacy");
                            assertThat(envOf(CONTAINER_TOOLKIT, "CDI_ENABLED")).isEqualTo("true");
                            assertThat(envOf(DEVICE_PLUGIN, "CDI_ANNOTATION_PREFIX"))
                                    .isEqualTo("cdi.k8s.io/");
                        });
    }

    @Test
    void deletingThePolicyRemovesOurNodeLabelsAndKeepsForeignOnes() {
        cluster.gpuNode("gpu-1");
        cluster.node("gpu-2", FakeCluster.SIM, "true", DRIVER.deployLabel(), "pre-installed");
        startController();
        apply(policy("cluster-policy", s -> {}));
        awaitLabel("gpu-1", DRIVER, "true");
        awaitLabel("gpu-2", CONTAINER_TOOLKIT, "true");

        client.resources(ClusterPolicy.class).withName("cluster-policy").delete();
        await().atMost(WAIT)
                .ignoreExceptions()
                .untilAsserted(
                        () -> {
                            assertThat(
                                            client.resources(ClusterPolicy.class)
                                                    .withName("cluster-policy")
                                                    .get())
                                    .isNull();
                            assertThat(cluster.labels("gpu-1"))
                                    .doesNotContainKeys(GPU, DRIVER.deployLabel());
                            assertThat(cluster.labels("gpu-2"))
                                    .doesNotContainKeys(GPU, CONTAINER_TOOLKIT.deployLabel())
                                    .containsEntry(DRIVER.deployLabel(), "pre-installed");
                        });
    }

    @Test
    void optOutAndForeignLabelValuesAreHonoured() {
        cluster.node(
                "opted-out", FakeCluster.SIM, "true", "nvidia.com/gpu.deploy.operands", "false");
        cluster.node(
                "pre-installed", FakeCluster.SIM, "true", DRIVER.deployLabel(), "pre-installed");
        cluster.node(
                "upgrading",
                FakeCluster.SIM,
                "true",
                DRIVER.deployLabel(),
                "paused-for-driver-upgrade");
        startController();
        apply(policy("cluster-policy", s -> {}));

        awaitLabel("pre-installed", CONTAINER_TOOLKIT, "true");
        await().atMost(WAIT)
                .ignoreExceptions()
                .untilAsserted(
                        () -> {
                            assertThat(cluster.labels("opted-out")).containsEntry(GPU, "true");
                            assertThat(status("cluster-policy").getNodes().getStuckNodes())
                                    .extracting(n -> n.getNode() + "@" + n.getStep())
                                    .contains(
                                            "upgrading@driver", "pre-installed@container-toolkit");
                        });
        assertThat(cluster.labels("opted-out").keySet())
                .noneMatch(
                        k ->
                                k.startsWith("nvidia.com/gpu.deploy.")
                                        && !k.equals("nvidia.com/gpu.deploy.operands"));
        assertThat(cluster.labels("pre-installed"))
                .containsEntry(DRIVER.deployLabel(), "pre-installed");
        assertThat(cluster.labels("upgrading"))
                .containsEntry(DRIVER.deployLabel(), "paused-for-driver-upgrade")
                .doesNotContainKey(CONTAINER_TOOLKIT.deployLabel());

        // opting a running node out takes our deploy labels off it
        cluster.scheduleAndReady(CONTAINER_TOOLKIT, "pre-installed");
        awaitLabel("pre-installed", DEVICE_PLUGIN, "true");
        cluster.editNode(
                "pre-installed",
                n -> {
                    n.getMetadata().getLabels().put("nvidia.com/gpu.deploy.operands", "false");
                    return n;
                });
        await().atMost(WAIT)
                .ignoreExceptions()
                .untilAsserted(
                        () ->
                                assertThat(cluster.labels("pre-installed"))
                                        .doesNotContainKeys(
                                                CONTAINER_TOOLKIT.deployLabel(),
                                                DEVICE_PLUGIN.deployLabel())
                                        .containsEntry(DRIVER.deployLabel(), "pre-installed"));
    }

    @Test
    void nodeThatStopsBeingAGpuNodeLosesOurLabels() {
        cluster.node(
                "gpu-1",
                FakeCluster.SIM,
                "true",
                "feature.node.kubernetes.io/cpu-model.vendor_id",
                "Intel");
        startController();
        apply(policy("cluster-policy", s -> {}));
        awaitLabel("gpu-1", DRIVER, "true");
        cluster.editNode(
                "gpu-1",
                n -> {
                    n.getMetadata().getLabels().remove(FakeCluster.SIM);
                    return n;
                });
        await().atMost(WAIT)
                .ignoreExceptions()
                .untilAsserted(
                        () ->
                                assertThat(cluster.labels("gpu-1"))
                                        .doesNotContainKeys(GPU, DRIVER.deployLabel()));
        await().atMost(WAIT)
                .ignoreExceptions()
                .untilAsserted(
                        () ->
                                assertThat(condition("cluster-policy", "Ready").getReason())
                                        .isEqualTo("NoGPUNodes"));
    }

    /**
     * One GPU node, the default policy, every DaemonSet created: returns their resourceVersions.
     */
    private Map<Operand, String> deployOnOneNode() {
        cluster.gpuNode("gpu-1");
        startController();
        apply(policy("cluster-policy", s -> {}));
        awaitLabel("gpu-1", DRIVER, "true");
        await().atMost(WAIT)
                .ignoreExceptions()
                .untilAsserted(() -> assertThat(cluster.daemonSet(DCGM_EXPORTER)).isNotNull());
        Map<Operand, String> versions = new HashMap<>();
        for (Operand o : Operand.values()) {
            versions.put(o, cluster.daemonSet(o).getMetadata().getResourceVersion());
        }
        return versions;
    }

    @Test
    void anInvalidSpecGivesAnErrorWithEveryMessageAndChangesNothing() {
        Map<Operand, String> versions = deployOnOneNode();
        Map<String, String> labels = new HashMap<>(cluster.labels("gpu-1"));

        editPolicy(
                spec -> {
                    var ds = new org.gpuoperator.api.v1.DaemonsetsSpec();
                    var rolling = new org.gpuoperator.api.v1.RollingUpdateSpec();
                    rolling.setMaxUnavailable("0");
                    ds.setRollingUpdate(rolling);
                    spec.setDaemonsets(ds);
                    spec.getSimulation().setNodeLabel("not a label!");
                    DcgmExporterSpec off = new DcgmExporterSpec();
                    off.setEnabled(false); // would delete the exporter if the spec were applied
                    spec.setDcgmExporter(off);
                });

        await().atMost(WAIT)
                .ignoreExceptions()
                .untilAsserted(
                        () -> {
                            Condition error = condition("cluster-policy", "Error");
                            assertThat(error.getStatus()).isEqualTo("True");
                            assertThat(error.getReason()).isEqualTo("InvalidSpec");
                            assertThat(error.getMessage())
                                    .contains(
                                            "spec.daemonsets.rollingUpdate.maxUnavailable",
                                            "spec.simulation.nodeLabel");
                        });
        for (Operand o : Operand.values()) {
            assertThat(cluster.daemonSet(o)).as(o.id()).isNotNull();
            assertThat(cluster.daemonSet(o).getMetadata().getResourceVersion())
                    .isEqualTo(versions.get(o));
        }
        assertThat(cluster.labels("gpu-1")).isEqualTo(labels);
        // one Warning on the policy, with every message
        await().atMost(WAIT)
                .untilAsserted(
                        () ->
                                assertThat(
                                                eventsAbout("ClusterPolicy", "cluster-policy")
                                                        .stream()
                                                        .filter(
                                                                e ->
                                                                        e.startsWith(
                                                                                "Warning InvalidSpec: "))
                                                        .toList())
                                        .singleElement()
                                        .satisfies(
                                                e ->
                                                        assertThat(e)
                                                                .contains(
                                                                        "spec.daemonsets.rollingUpdate.maxUnavailable",
                                                                        "spec.simulation.nodeLabel")));
    }

    /**
     * An enum value this version cannot read (a server that does not enforce the schema, or an
     * object stored before a CRD upgrade) used to stop the informer and with it the process; now it
     * is an InvalidSpec error, nothing deployed changes, the value stays as written, and fixing it
     * resumes the rollout.
     */
    @Test
    void anEnumValueThisVersionCannotReadIsAnErrorNotACrash() {
        Map<Operand, String> versions = deployOnOneNode();

        var policies = client.genericKubernetesResources("nvidia.com/v1", "ClusterPolicy");
        policies.withName("cluster-policy")
                .patch(
                        PatchContext.of(PatchType.JSON_MERGE),
                        "{\"spec\":{\"mig\":{\"strategy\":\"auto\"}}}");
        await().atMost(WAIT)
                .ignoreExceptions()
                .untilAsserted(
                        () -> {
                            Condition error = condition("cluster-policy", "Error");
                            assertThat(error.getStatus()).isEqualTo("True");
                            assertThat(error.getReason()).isEqualTo("InvalidSpec");
                            assertThat(error.getMessage())
                                    .contains(
                                            "spec.mig.strategy: unknown value \"auto\"; expected one of none, single, mixed");
                        });
        for (Operand o : Operand.values()) {
            assertThat(cluster.daemonSet(o).getMetadata().getResourceVersion())
                    .as(o.id())
                    .isEqualTo(versions.get(o));
        }
        Map<?, ?> spec =
                (Map<?, ?>)
                        policies.withName("cluster-policy")
                                .get()
                                .getAdditionalProperties()
                                .get("spec");
        assertThat(((Map<?, ?>) spec.get("mig")).get("strategy")).isEqualTo("auto");

        policies.withName("cluster-policy")
                .patch(
                        PatchContext.of(PatchType.JSON_MERGE),
                        "{\"spec\":{\"mig\":{\"strategy\":\"single\"}}}");
        await().atMost(WAIT)
                .ignoreExceptions()
                .untilAsserted(
                        () ->
                                assertThat(condition("cluster-policy", "Error").getStatus())
                                        .isEqualTo("False"));
    }

    @Test
    void onlyTheOldestPolicyIsReconciledTheOthersAreIgnored() throws Exception {
        cluster.gpuNode("gpu-1");
        startController();
        apply(policy("cluster-policy", s -> {}));
        awaitLabel("gpu-1", DRIVER, "true");
        Thread.sleep(1100); // creationTimestamp has one-second resolution
        apply(policy("second", s -> {}));
        await().atMost(WAIT)
                .ignoreExceptions()
                .untilAsserted(
                        () -> {
                            assertThat(status("second").getState()).isEqualTo(State.IGNORED);
                            assertThat(condition("second", "Error").getMessage())
                                    .contains("'cluster-policy'");
                        });
        assertThat(status("cluster-policy").getState()).isNotEqualTo(State.IGNORED);
    }

    @Test
    void withoutNfdOrSimulatedNodesTheStatusSaysWhy() {
        cluster.node("cpu-1");
        startController();
        apply(policy("cluster-policy", s -> {}));
        await().atMost(WAIT)
                .ignoreExceptions()
                .untilAsserted(
                        () -> {
                            assertThat(condition("cluster-policy", "Ready").getReason())
                                    .isEqualTo("NFDLabelsMissing");
                            assertThat(status("cluster-policy").getNodes().getGpuNodes()).isZero();
                        });
        assertThat(cluster.labels("cpu-1")).isEmpty();
    }

    @Test
    void anNvidiaDriverAndAFieldSetButNotActedOnAreWarnedInTheStatus() {
        NVIDIADriver driver = new NVIDIADriver();
        driver.setMetadata(new ObjectMetaBuilder().withName("default-driver").build());
        driver.setSpec(new NVIDIADriverSpec());
        client.resource(driver).create();
        cluster.node("cpu-1");
        startController();
        apply(
                policy(
                        "cluster-policy",
                        s -> {
                            HostPathsSpec hostPaths = new HostPathsSpec();
                            hostPaths.setRootFS("/host-root");
                            s.setHostPaths(hostPaths);
                        }));
        await().atMost(WAIT)
                .ignoreExceptions()
                .untilAsserted(
                        () ->
                                assertThat(status("cluster-policy").getWarnings())
                                        .extracting(w -> w.getPath() + ": " + w.getMessage())
                                        .contains(
                                                "spec.hostPaths.rootFS: " + FieldsRead.NOT_ACTED_ON,
                                                "nvidiadrivers/default-driver: "
                                                        + NvidiaDrivers.MESSAGE)
                                        .noneMatch(w -> w.startsWith("spec.simulation")));
    }

    /** NVIDIADriver mode needs the driver enabled, as upstream's nvidiaDriverCRDEnabled. */
    @Test
    void withTheDriverDisabledNvidiaDriverModeIsOffAndEachNvidiaDriverIsWarnedAbout() {
        NVIDIADriver driver = new NVIDIADriver();
        driver.setMetadata(new ObjectMetaBuilder().withName("default").build());
        driver.setSpec(new NVIDIADriverSpec());
        client.resource(driver).create();
        cluster.gpuNode("gpu-1", "containerd://1.7.2");
        startController();
        apply(
                policy(
                        "cluster-policy",
                        s -> {
                            DriverSpec d = new DriverSpec();
                            d.setEnabled(false);
                            d.setUseNvidiaDriverCRD(true);
                            s.setDriver(d);
                        }));
        await().atMost(WAIT)
                .ignoreExceptions()
                .untilAsserted(
                        () ->
                                assertThat(status("cluster-policy").getWarnings())
                                        .extracting(w -> w.getPath() + ": " + w.getMessage())
                                        .contains(
                                                "nvidiadrivers/default: " + NvidiaDrivers.MESSAGE));
        assertThat(
                        client.apps().daemonSets().inNamespace(NS).list().getItems().stream()
                                .map(ds -> ds.getMetadata().getName())
                                .filter(n -> n.contains("driver"))
                                .toList())
                .as("no driver DaemonSet, the ClusterPolicy's or an NVIDIADriver's")
                .isEmpty();
    }

    @Test
    void nodesWhoseContainerRuntimeIsNotTheRenderedOneAreWarnedInTheStatus() {
        cluster.gpuNode("gpu-1", "containerd://1.7.2");
        cluster.gpuNode("gpu-2", "cri-o://1.30.0");
        startController();
        apply(policy("cluster-policy", s -> {}));
        // the first node in the cache decides; the other one is named with its runtime
        await().atMost(WAIT)
                .ignoreExceptions()
                .untilAsserted(
                        () ->
                                assertThat(status("cluster-policy").getWarnings())
                                        .filteredOn(w -> w.getPath().equals("spec.toolkit"))
                                        .singleElement()
                                        .extracting(w -> w.getMessage())
                                        .asString()
                                        .containsAnyOf(
                                                "not rendered for: crio (gpu-2); it is rendered"
                                                        + " for containerd",
                                                "not rendered for: containerd (gpu-1); it is"
                                                        + " rendered for crio"));
    }

    @Test
    void rbacAnEarlierVersionMadeForAnOperandAndThisOneDoesNotRenderIsDeleted() {
        cluster.gpuNode("gpu-1");
        ClusterPolicy p = apply(policy("cluster-policy", s -> {}));
        // as an earlier version left them: the exporter once had a ClusterRole and a Role
        String account = DCGM_EXPORTER.serviceAccountName();
        OwnerReference owner =
                new OwnerReferenceBuilder()
                        .withApiVersion("nvidia.com/v1")
                        .withKind("ClusterPolicy")
                        .withName("cluster-policy")
                        .withUid(p.getMetadata().getUid())
                        .withController(true)
                        .build();
        Map<String, String> ours =
                Map.of(
                        "app.kubernetes.io/managed-by",
                        "gpu-operator",
                        "app.kubernetes.io/component",
                        DCGM_EXPORTER.id());
        client.rbac()
                .clusterRoles()
                .resource(
                        new ClusterRoleBuilder()
                                .withNewMetadata()
                                .withName(account)
                                .withLabels(ours)
                                .withOwnerReferences(owner)
                                .endMetadata()
                                .build())
                .create();
        client.rbac()
                .clusterRoleBindings()
                .resource(
                        new ClusterRoleBindingBuilder()
                                .withNewMetadata()
                                .withName(account)
                                .withLabels(ours)
                                .withOwnerReferences(owner)
                                .endMetadata()
                                .withNewRoleRef("rbac.authorization.k8s.io", "ClusterRole", account)
                                .build())
                .create();
        client.rbac()
                .roles()
                .inNamespace(NS)
                .resource(
                        new RoleBuilder()
                                .withNewMetadata()
                                .withName(account)
                                .withNamespace(NS)
                                .withLabels(ours)
                                .withOwnerReferences(owner)
                                .endMetadata()
                                .build())
                .create();
        // the same labels without our owner: not ours to delete
        client.rbac()
                .clusterRoles()
                .resource(
                        new ClusterRoleBuilder()
                                .withNewMetadata()
                                .withName("someone-elses")
                                .withLabels(ours)
                                .endMetadata()
                                .build())
                .create();
        startController();
        String gfd = GPU_FEATURE_DISCOVERY.serviceAccountName();
        await().atMost(WAIT)
                .ignoreExceptions()
                .untilAsserted(
                        () -> {
                            assertThat(client.rbac().clusterRoles().withName(account).get())
                                    .isNull();
                            assertThat(client.rbac().clusterRoleBindings().withName(account).get())
                                    .isNull();
                            assertThat(
                                            client.rbac()
                                                    .roles()
                                                    .inNamespace(NS)
                                                    .withName(account)
                                                    .get())
                                    .isNull();
                            assertThat(client.rbac().clusterRoles().withName(gfd).get())
                                    .isNotNull();
                        });
        assertThat(client.rbac().clusterRoles().withName("someone-elses").get()).isNotNull();
    }
}
