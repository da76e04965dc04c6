package org.gpuoperator.controller.reconcile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.gpuoperator.controller.operand.Operand.CONTAINER_TOOLKIT;
import static org.gpuoperator.controller.operand.Operand.DCGM_EXPORTER;
import static org.gpuoperator.controller.operand.Operand.DEVICE_PLUGIN;
import static org.gpuoperator.controller.operand.Operand.DRIVER;
import static org.gpuoperator.controller.operand.Operand.GPU_FEATURE_DISCOVERY;
import static org.gpuoperator.controller.operand.Operand.VALIDATOR;
import static org.gpuoperator.controller.reconcile.FakeCluster.NS;

import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodConditionBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.informers.ResourceEventHandler;
import io.fabric8.kubernetes.client.informers.SharedIndexInformer;
import io.fabric8.kubernetes.client.server.mock.EnableKubernetesMockClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.gpuoperator.api.common.DriverUpgradePolicySpec;
import org.gpuoperator.api.v1.ClusterPolicy;
import org.gpuoperator.api.v1.ClusterPolicySpec;
import org.gpuoperator.api.v1.ClusterPolicyStatus;
import org.gpuoperator.api.v1.DriverSpec;
import org.gpuoperator.api.v1.DriverUpgradeStatus;
import org.gpuoperator.api.v1.SimulationSpec;
import org.gpuoperator.api.v1.State;
import org.gpuoperator.controller.operand.Operand;
import org.gpuoperator.controller.upgrade.UpgradeKeys;
import org.gpuoperator.controller.upgrade.UpgradeState;
import org.gpuoperator.controller.upgrade.UpgradeSummary;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The driver upgrade wired into the reconcile, against the fabric8 mock API server in CRUD mode:
 * the test plays the DaemonSet controller and the kubelet, and the Eviction API honours PDBs
 * ({@link PdbHonouringEvictions}); a recorder watches every state label value each node takes.
 */
@EnableKubernetesMockClient(crud = true)
class DriverUpgradeReconcileTest {

    private static final Duration WAIT = Duration.ofSeconds(120);
    private static final String OLD = "550.54.15";
    private static final String NEW = "570.172.08";
    private static final String WORK = "work";

    KubernetesMockServer server;
    KubernetesClient client;

    private FakeCluster cluster;
    private ControllerRuntime runtime;
    private PdbHonouringEvictions evictions;
    private final MutableClock clock = new MutableClock();
    private SharedIndexInformer<Node> recorder;

    /** Per node, every distinct value its state label took, in order. */
    private final Map<String, List<String>> walked = new ConcurrentHashMap<>();

    /** The most nodes seen between cordon and uncordon at once. */
    private final AtomicInteger maxActive = new AtomicInteger();

    private final Map<String, String> currentState = new ConcurrentHashMap<>();

    @BeforeAll
    static void warmUpDeserializer() {
        io.fabric8.kubernetes.client.utils.Serialization.unmarshal(
                "{\"apiVersion\":\"example.com/v1\",\"kind\":\"Unknown\",\"metadata\":{\"name\":\"x\"}}");
    }

    @BeforeEach
    void start() throws Exception {
        client = FakeCluster.jdkClient(client);
        cluster = new FakeCluster(client, server);
        cluster.loadCrds();
        evictions = new PdbHonouringEvictions(client);
    }

    @AfterEach
    void stop() {
        if (recorder != null) {
            recorder.close();
        }
        if (runtime != null) {
            runtime.close();
        }
        client.close();
    }

    @Test
    void aNewVersionWalksOneNodeAtATimeEvictsTheGpuPodsWaitsForAPdbAndKeepsTheAdminsCordon()
            throws Exception {
        List<String> nodes = List.of("gpu-1", "gpu-2", "gpu-3");
        nodes.forEach(n -> cluster.gpuNode(n, "containerd://1.7.20"));
        startController();
        // the admin's cordon of gpu-3 counts against maxUnavailable (upstream's rule): one more
        client.resource(
                        policy(
                                up -> {
                                    up.setMaxParallelUpgrades(1);
                                    up.setMaxUnavailable(new IntOrString(2));
                                }))
                .create();
        walkAllGates(nodes);
        awaitStates(nodes, UpgradeState.UPGRADE_DONE);
        nodes.forEach(this::gpuWorkload);
        cluster.editNode(
                "gpu-3",
                n -> {
                    if (n.getSpec() == null) {
                        n.setSpec(new io.fabric8.kubernetes.api.model.NodeSpec());
                    }
                    n.getSpec().setUnschedulable(true);
                    return n;
                });
        // gpu-2's workload may not be disrupted now
        client.policy()
                .v1()
                .podDisruptionBudget()
                .inNamespace(WORK)
                .resource(
                        new PodDisruptionBudgetBuilder()
                                .withNewMetadata()
                                .withName("train-gpu-2")
                                .withNamespace(WORK)
                                .endMetadata()
                                .withNewSpec()
                                .withMaxUnavailable(new IntOrString(0))
                                .withNewSelector()
                                .withMatchLabels(Map.of("app", "train-gpu-2"))
                                .endSelector()
                                .endSpec()
                                .build())
                .create();
        startRecorder();

        setDriverVersion(NEW);

        await().atMost(WAIT)
                .ignoreExceptions()
                .untilAsserted(
                        () -> {
                            playDaemonSetController(nodes);
                            assertThat(upgradeStatus().getLines())
                                    .anyMatch(
                                            l ->
                                                    l.startsWith(
                                                                    "node gpu-2: pod-deletion-required:"
                                                                            + " evicting 1 GPU pod(s)")
                                                            && l.contains(
                                                                    "work/train-gpu-2 (blocked by"
                                                                            + " a PodDisruptionBudget)"));
                        });
        assertThat(evictions.requests).contains("work/train-gpu-2 BLOCKED");
        client.policy()
                .v1()
                .podDisruptionBudget()
                .inNamespace(WORK)
                .withName("train-gpu-2")
                .delete();

        await().atMost(WAIT)
                .ignoreExceptions()
                .untilAsserted(
                        () -> {
                            playDaemonSetController(nodes);
                            for (String n : nodes) {
                                assertThat(state(n)).as(n).isEqualTo("upgrade-done");
                                assertThat(driverPod(n).getMetadata().getAnnotations())
                                        .isEqualTo(
                                                cluster.daemonSet(DRIVER)
                                                        .getSpec()
                                                        .getTemplate()
                                                        .getMetadata()
                                                        .getAnnotations());
                            }
                            assertThat(upgradeStatus().getDone()).isEqualTo(3);
                        });

        List<String> walk =
                List.of(
                        "upgrade-done",
                        "upgrade-required",
                        "cordon-required",
                        "wait-for-jobs-required",
                        "pod-deletion-required",
                        "pod-restart-required",
                        "validation-required",
                        "uncordon-required",
                        "upgrade-done");
        for (String n : nodes) {
            assertThat(walked.get(n)).as("states of " + n).containsExactlyElementsOf(walk);
        }
        // each step is an Event on its node
        List<String> steps = new ArrayList<>();
        steps.add("Normal GPUDriverUpgrade: driver upgrade: (none) -> upgrade-done");
        for (int i = 1; i < walk.size(); i++) {
            steps.add(
                    "Normal GPUDriverUpgrade: driver upgrade: "
                            + walk.get(i - 1)
                            + " -> "
                            + walk.get(i));
        }
        assertThat(runtime.events().awaitIdle(WAIT)).isTrue();
        for (String n : nodes) {
            assertThat(eventsAbout("Node", n)).as("Events of " + n).containsAll(steps);
        }
        assertThat(maxActive.get()).as("nodes upgrading at once").isEqualTo(1);
        for (String n : nodes) {
            assertThat(client.pods().inNamespace(WORK).withName("train-" + n).get())
                    .as("evicted: train-" + n)
                    .isNull();
            assertThat(evictions.requests).contains("work/train-" + n + " EVICTED");
            assertThat(evictions.deletions).contains(NS + "/" + DRIVER.daemonSetName() + "-" + n);
        }
        assertThat(unschedulable("gpu-3")).as("cordoned by the admin: stays cordoned").isTrue();
        assertThat(unschedulable("gpu-1")).isFalse();
        assertThat(unschedulable("gpu-2")).isFalse();
        for (String n : nodes) {
            assertThat(client.nodes().withName(n).get().getMetadata().getAnnotations())
                    .as("no upgrade annotation left on " + n)
                    .doesNotContainKeys(
                            UpgradeKeys.INITIAL_STATE_UNSCHEDULABLE,
                            UpgradeKeys.POD_DELETION_START,
                            UpgradeKeys.VALIDATION_START,
                            UpgradeKeys.FAILURE_REASON);
        }
        await().atMost(WAIT)
                .ignoreExceptions()
                .untilAsserted(
                        () ->
                                assertThat(upgradeStatus().getLastGoodVersions())
                                        .isEqualTo(
                                                Map.of("gpu-1", NEW, "gpu-2", NEW, "gpu-3", NEW)));
        await().atMost(WAIT)
                .untilAsserted(
                        () ->
                                assertThat(
                                                runtime.metrics()
                                                        .driverUpgradeGauge(UpgradeSummary.DONE))
                                        .isEqualTo(3.0));
        assertThat(runtime.metrics().driverUpgradeGauge(UpgradeSummary.AUTO_UPGRADE_ENABLED))
                .isEqualTo(1.0);

        // nothing left to change: a reconcile writes nothing
        assertThat(runtime.events().awaitIdle(WAIT)).isTrue();
        cluster.drainWrites();
        long before = runtime.metrics().reconciliations();
        client.pods()
                .inNamespace(NS)
                .withName(DRIVER.daemonSetName() + "-gpu-1")
                .edit(
                        p -> {
                            p.getMetadata().getAnnotations().put("touched", "yes");
                            return p;
                        });
        await().atMost(WAIT).until(() -> runtime.metrics().reconciliations() > before);
        Thread.sleep(300);
        assertThat(runtime.events().awaitIdle(WAIT)).isTrue();
        assertThat(cluster.drainWrites())
                .as("writes after a no-op reconcile (the test's own pod edit excluded)")
                .allMatch(w -> w.contains("/pods/" + DRIVER.daemonSetName() + "-gpu-1"));
    }

    @Test
    void aFailedValidationEndsUpgradeFailedWithItsReasonStopsTheRolloutAndIsRetriedOnceFixed() {
        List<String> nodes = List.of("gpu-1", "gpu-2");
        nodes.forEach(n -> cluster.gpuNode(n, "containerd://1.7.20"));
        startController();
        client.resource(
                        policy(
                                up -> {
                                    up.setMaxParallelUpgrades(2);
                                    up.setMaxUnavailable(new IntOrString(1));
                                }))
                .create();
        walkAllGates(nodes);
        awaitStates(nodes, UpgradeState.UPGRADE_DONE);
        validatorFailsOn.add("gpu-1");
        cluster.setReady(VALIDATOR, "gpu-1", false);
        startRecorder();

        setDriverVersion(NEW);
        await().atMost(WAIT)
                .ignoreExceptions()
                .untilAsserted(
                        () -> {
                            playDaemonSetController(nodes);
                            assertThat(state("gpu-1"))
                                    .as(this::upgradeDiagnostics)
                                    .isEqualTo("validation-required");
                        });
        clock.advance(Duration.ofSeconds(601));
        poke("gpu-1");

        await().atMost(WAIT)
                .ignoreExceptions()
                .untilAsserted(
                        () -> {
                            assertThat(state("gpu-1")).isEqualTo("upgrade-failed");
                            assertThat(upgradeStatus().getLines())
                                    .contains(
                                            "node gpu-1: upgrade-failed: validation: the validator"
                                                    + " is not Ready on the node 600s after the new"
                                                    + " driver pod was Ready")
                                    .anyMatch(
                                            l ->
                                                    l.startsWith(
                                                                    "node gpu-2: upgrade-required:"
                                                                            + " waiting for a slot")
                                                            && l.contains(
                                                                    "maxUnavailable 1 = 1 of 2 (1"
                                                                            + " unavailable:"
                                                                            + " cordoned,"
                                                                            + " NotReady, failed"
                                                                            + " or upgrading)"));
                        });
        assertThat(client.nodes().withName("gpu-1").get().getMetadata().getAnnotations())
                .containsEntry(
                        UpgradeKeys.FAILURE_REASON,
                        "validation: the validator is not Ready on the node 600s after the new"
                                + " driver pod was Ready");
        assertThat(unschedulable("gpu-1")).as("a failed node stays cordoned").isTrue();
        String failed =
                "driver upgrade: validation-required -> upgrade-failed: validation: the validator"
                        + " is not Ready on the node 600s after the new driver pod was Ready";
        await().atMost(WAIT)
                .untilAsserted(
                        () -> {
                            assertThat(eventsAbout("Node", "gpu-1"))
                                    .contains("Warning GPUDriverUpgrade: " + failed);
                            assertThat(eventsAbout("ClusterPolicy", "cluster-policy"))
                                    .contains("Warning GPUDriverUpgrade: node gpu-1 " + failed);
                        });
        assertThat(state("gpu-2"))
                .as("the rollout stops at maxUnavailable")
                .isEqualTo("upgrade-required");
        // the figures are the nodes' as a pass finds them: the pass after the move has them
        await().atMost(WAIT)
                .untilAsserted(
                        () ->
                                assertThat(
                                                runtime.metrics()
                                                        .driverUpgradeGauge(UpgradeSummary.FAILED))
                                        .isEqualTo(1.0));

        // the cause goes away: the validator passes; gpu-1 finishes, then gpu-2 goes
        validatorFailsOn.remove("gpu-1");
        // the play below makes its validator pod Ready: the pod may be between its removal and
        // its scheduling again just now, so setting it Ready here could find none (seen once)
        await().atMost(WAIT)
                .ignoreExceptions()
                .untilAsserted(
                        () -> {
                            playDaemonSetController(nodes);
                            assertThat(state("gpu-1")).isEqualTo("upgrade-done");
                            assertThat(state("gpu-2")).isEqualTo("upgrade-done");
                        });
        assertThat(unschedulable("gpu-1")).isFalse();
    }

    @Test
    void withAutoUpgradeOffNothingMovesAndTheStatusSaysAnUpgradeIsPending() throws Exception {
        List<String> nodes = List.of("gpu-1", "gpu-2");
        nodes.forEach(n -> cluster.gpuNode(n, "containerd://1.7.20"));
        startController();
        client.resource(policy(up -> up.setAutoUpgrade(false))).create();
        walkAllGates(nodes);
        nodes.forEach(this::gpuWorkload);
        String oldHash = driverPod("gpu-1").getMetadata().getAnnotations().toString();

        setDriverVersion(NEW);
        await().atMost(WAIT)
                .ignoreExceptions()
                .untilAsserted(
                        () ->
                                assertThat(upgradeStatus().getLines())
                                        .contains(
                                                "driver upgrade pending on 2 node(s) (gpu-1,"
                                                        + " gpu-2): spec.driver.upgradePolicy.autoUpgrade"
                                                        + " is false"));
        DriverUpgradeStatus s = upgradeStatus();
        assertThat(s.getAutoUpgrade()).isFalse();
        assertThat(s.getPending()).isEqualTo(2);
        assertThat(runtime.metrics().driverUpgradeGauge(UpgradeSummary.PENDING)).isEqualTo(2.0);
        assertThat(runtime.metrics().driverUpgradeGauge(UpgradeSummary.AUTO_UPGRADE_ENABLED))
                .isEqualTo(0.0);
        Thread.sleep(500);
        for (String n : nodes) {
            assertThat(cluster.labels(n)).doesNotContainKey(UpgradeKeys.STATE_LABEL);
            assertThat(unschedulable(n)).isFalse();
            assertThat(client.pods().inNamespace(WORK).withName("train-" + n).get()).isNotNull();
        }
        assertThat(driverPod("gpu-1").getMetadata().getAnnotations().toString()).isEqualTo(oldHash);
        assertThat(evictions.requests).isEmpty();
        assertThat(evictions.deletions).isEmpty();
    }

    // ---- helpers

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

    private void startController() {
        runtime =
                ControllerRuntime.start(
                        client,
                        ControllerRuntime.Config.forTests(NS)
                                .withEvictions(evictions)
                                .withClock(clock));
    }

    private static ClusterPolicy policy(Consumer<DriverUpgradePolicySpec> upgrade) {
        ClusterPolicy p = new ClusterPolicy();
        p.setMetadata(new ObjectMetaBuilder().withName("cluster-policy").build());
        ClusterPolicySpec spec = new ClusterPolicySpec();
        SimulationSpec sim = new SimulationSpec();
        sim.setEnabled(true);
        sim.setProfile("t4-x1");
        spec.setSimulation(sim);
        DriverSpec driver = new DriverSpec();
        driver.setVersion(OLD);
        DriverUpgradePolicySpec up = new DriverUpgradePolicySpec();
        up.setAutoUpgrade(true);
        upgrade.accept(up);
        driver.setUpgradePolicy(up);
        spec.setDriver(driver);
        p.setSpec(org.gpuoperator.api.defaults.ClusterPolicyDefaults.effective(spec));
        return p;
    }

    /**
     * As {@code kubectl patch --type=merge} does: no resourceVersion, so the controller's status
     * writes in between cannot make it fail with a conflict (an edit could: CI, 409).
     */
    private void setDriverVersion(String version) {
        client.genericKubernetesResources("nvidia.com/v1", "ClusterPolicy")
                .withName("cluster-policy")
                .patch(
                        PatchContext.of(PatchType.JSON_MERGE),
                        "{\"spec\":{\"driver\":{\"version\":\"" + version + "\"}}}");
    }

    private void walkAllGates(List<String> nodes) {
        String[] names = nodes.toArray(String[]::new);
        for (Operand operand :
                List.of(DRIVER, CONTAINER_TOOLKIT, DEVICE_PLUGIN, GPU_FEATURE_DISCOVERY)) {
            for (String n : names) {
                awaitLabel(n, operand);
            }
            if (operand == GPU_FEATURE_DISCOVERY) {
                for (String n : names) {
                    awaitLabel(n, DCGM_EXPORTER);
                    awaitLabel(n, Operand.MIG_MANAGER); // FakeCluster's nodes are MIG capable
                }
                cluster.scheduleAndReady(DCGM_EXPORTER, names);
                cluster.scheduleAndReady(Operand.MIG_MANAGER, names);
            }
            cluster.scheduleAndReady(operand, names);
        }
        for (String n : names) {
            awaitLabel(n, VALIDATOR);
        }
        cluster.scheduleAndReady(VALIDATOR, names);
        await().atMost(WAIT)
                .ignoreExceptions()
                .untilAsserted(() -> assertThat(status().getState()).isEqualTo(State.READY));
    }

    private void awaitLabel(String node, Operand operand) {
        await().atMost(WAIT)
                .ignoreExceptions()
                .untilAsserted(
                        () ->
                                assertThat(cluster.labels(node))
                                        .containsEntry(operand.deployLabel(), "true"));
    }

    private void awaitStates(List<String> nodes, UpgradeState state) {
        await().atMost(WAIT)
                .ignoreExceptions()
                .untilAsserted(
                        () -> {
                            for (String n : nodes) {
                                assertThat(state(n)).as(n).isEqualTo(state.label());
                            }
                        });
    }

    /**
     * As the DaemonSet controller and the kubelet: a new driver pod where one is missing, Ready.
     */
    /**
     * As the DaemonSet controllers and the kubelet: the driver pod and the pods of the operands
     * that use it follow their DaemonSets (a paused one leaves the node, and comes back when its
     * label does) and turn Ready, but the validator on the nodes in {@link #validatorFailsOn}.
     */
    private void playDaemonSetController(List<String> nodes) {
        for (Operand op :
                List.of(
                        DRIVER,
                        DEVICE_PLUGIN,
                        GPU_FEATURE_DISCOVERY,
                        DCGM_EXPORTER,
                        Operand.MIG_MANAGER,
                        VALIDATOR)) {
            cluster.unscheduleUnmatched(op);
            cluster.schedule(op);
            for (String n : nodes) {
                Pod p = client.pods().inNamespace(NS).withName(op.daemonSetName() + "-" + n).get();
                if (p != null
                        && !(op == VALIDATOR && validatorFailsOn.contains(n))
                        && p.getStatus().getConditions().stream()
                                .noneMatch(c -> "True".equals(c.getStatus()))) {
                    cluster.setReady(op, n, true);
                }
            }
        }
    }

    /** Nodes whose validator pod never turns Ready. */
    private final java.util.Set<String> validatorFailsOn = new java.util.HashSet<>();

    /** A GPU workload on the node, owned by a (pretend) ReplicaSet, Running and Ready. */
    private void gpuWorkload(String node) {
        client.pods()
                .inNamespace(WORK)
                .resource(
                        new PodBuilder()
                                .withNewMetadata()
                                .withName("train-" + node)
                                .withNamespace(WORK)
                                .withLabels(Map.of("app", "train-" + node))
                                .addNewOwnerReference()
                                .withApiVersion("apps/v1")
                                .withKind("ReplicaSet")
                                .withName("train-" + node)
                                .withUid("rs-" + node)
                                .withController(true)
                                .endOwnerReference()
                                .endMetadata()
                                .withNewSpec()
                                .withNodeName(node)
                                .addNewContainer()
                                .withName("cuda")
                                .withImage("cuda:12")
                                .withNewResources()
                                .withLimits(Map.of("nvidia.com/gpu", new Quantity("1")))
                                .endResources()
                                .endContainer()
                                .endSpec()
                                .withNewStatus()
                                .withPhase("Running")
                                .withConditions(
                                        new PodConditionBuilder()
                                                .withType("Ready")
                                                .withStatus("True")
                                                .build())
                                .endStatus()
                                .build())
                .create();
    }

    private void startRecorder() {
        recorder =
                client.nodes()
                        .inform(
                                new ResourceEventHandler<>() {
                                    @Override
                                    public void onAdd(Node n) {
                                        record(n);
                                    }

                                    @Override
                                    public void onUpdate(Node before, Node n) {
                                        record(n);
                                    }

                                    @Override
                                    public void onDelete(Node n, boolean unknown) {}
                                });
    }

    private synchronized void record(Node n) {
        String name = n.getMetadata().getName();
        Map<String, String> labels = n.getMetadata().getLabels();
        String s = labels == null ? null : labels.get(UpgradeKeys.STATE_LABEL);
        if (s == null) {
            return;
        }
        List<String> seen = walked.computeIfAbsent(name, k -> new ArrayList<>());
        if (seen.isEmpty() || !seen.get(seen.size() - 1).equals(s)) {
            seen.add(s);
        }
        currentState.put(name, s);
        int active =
                (int)
                        currentState.values().stream()
                                .filter(v -> UpgradeState.fromLabel(v).active())
                                .count();
        maxActive.accumulateAndGet(active, Math::max);
    }

    /** A label change on the node: an event that makes the controller look again. */
    private void poke(String node) {
        cluster.editNode(
                node,
                n -> {
                    n.getMetadata().getLabels().put("example.com/poke", "" + System.nanoTime());
                    return n;
                });
    }

    /** What a failed wait on the upgrade needs to be understood without a rerun. */
    private String upgradeDiagnostics() {
        StringBuilder b = new StringBuilder("walked ").append(walked);
        ClusterPolicy p = client.resources(ClusterPolicy.class).withName("cluster-policy").get();
        b.append("; policy driver.version ").append(p.getSpec().getDriver().getVersion());
        io.fabric8.kubernetes.api.model.apps.DaemonSet ds = cluster.daemonSet(DRIVER);
        b.append("; driver DaemonSet hash ")
                .append(
                        ds == null
                                ? "none"
                                : ds.getSpec()
                                        .getTemplate()
                                        .getMetadata()
                                        .getAnnotations()
                                        .get(
                                                org.gpuoperator.controller.operand.PodContract
                                                        .TEMPLATE_HASH_ANNOTATION));
        for (Pod pod : client.pods().inNamespace(NS).list().getItems()) {
            b.append("; pod ")
                    .append(pod.getMetadata().getName())
                    .append(' ')
                    .append(pod.getMetadata().getAnnotations())
                    .append(' ')
                    .append(pod.getStatus() == null ? null : pod.getStatus().getConditions());
        }
        b.append("; status lines ")
                .append(p.getStatus() == null ? null : p.getStatus().getDriverUpgrade());
        return b.toString();
    }

    private String state(String node) {
        return cluster.labels(node).get(UpgradeKeys.STATE_LABEL);
    }

    private boolean unschedulable(String node) {
        Node n = client.nodes().withName(node).get();
        return n.getSpec() != null && Boolean.TRUE.equals(n.getSpec().getUnschedulable());
    }

    private Pod driverPod(String node) {
        return client.pods().inNamespace(NS).withName(DRIVER.daemonSetName() + "-" + node).get();
    }

    private ClusterPolicyStatus status() {
        return client.resources(ClusterPolicy.class).withName("cluster-policy").get().getStatus();
    }

    private DriverUpgradeStatus upgradeStatus() {
        return status().getDriverUpgrade();
    }
}
