package org.gpuoperator.e2e.scenarios;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.gpuoperator.e2e.cluster.PolicySpecEdits.section;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetBuilder;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
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
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.gpuoperator.api.v1alpha1.NVIDIADriver;
import org.gpuoperator.api.v1alpha1.NVIDIADriverSpec;
import org.gpuoperator.e2e.cluster.NodeProgress;
import org.gpuoperator.e2e.cluster.PolicySpecEdits;
import org.gpuoperator.e2e.cluster.SimulatedCluster;
import org.gpuoperator.e2e.simulate.ControllerLauncher;
import org.gpuoperator.e2e.simulate.RepoRoot;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Issue 18's driver upgrades on a simulated cluster with pods as containers: three nodes, a GPU
 * workload on each, {@code maxParallelUpgrades: 1}. The rolling upgrade with its states, evictions
 * through the Eviction API (one held by a PodDisruptionBudget), an admin's cordon kept, the
 * driver-version drift summary; a node that fails validation and the rollout stopping at {@code
 * maxUnavailable}; the rollback; {@code autoUpgrade: false}; a version outside the version matrix.
 * Then (issue 27) two NVIDIADrivers driving two node pools, driven with kubectl as an admin would:
 * overlapping selectors and their narrowing under a running GPU workload, a label-only change (the
 * restart-only path, nothing evicted), and an NVIDIADriver's own {@code maxUnavailable: 1} with a
 * version that fails on its first node, each change planned first with {@code plan}; then leaving
 * NVIDIADriver mode.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class DriverUpgradeScenariosIT {

    private static final String POLICY = "cluster-policy";
    private static final Duration CONVERGE = Duration.ofMinutes(4);
    private static final Duration ROLLOUT = Duration.ofMinutes(8);
    private static final List<String> NODES = List.of("gpu-node-1", "gpu-node-2", "gpu-node-3");
    private static final String ALL_READY = "driver=ready toolkit=ready cuda=ready plugin=ready";
    private static final String STATE = "nvidia.com/gpu-driver-upgrade-state";
    private static final String FAILURE_REASON = "nvidia.com/gpu-driver-upgrade-failure-reason";
    private static final String OWNER = "nvidia.com/gpu-operator.driver.owner";
    private static final String INITIAL_UNSCHEDULABLE =
            "nvidia.com/gpu-driver-upgrade.node-initial-state.unschedulable";

    /** The versions rolled out, in order: V1 at install, V2 the upgrade, V3 the failing one. */
    private static final String V1 = "570.172.08";

    private static final String V2 = "580.65.06";
    private static final String V3 = "580.82.07";

    /** The driver of each node once the NVIDIADrivers pool-a and pool-b drive them. */
    private static final Map<String, String> POOL_VERSIONS =
            Map.of("gpu-node-1", V2, "gpu-node-2", V2, "gpu-node-3", V1);

    /** Outside the matrix for the nodes' Kubernetes (v1.33.1): branch 535 ends at 1.32. */
    private static final String OUTSIDE_MATRIX = "535.261.03";

    /** The states of one upgrade, in order. */
    private static final List<String> WALK =
            List.of(
                    "upgrade-required",
                    "cordon-required",
                    "wait-for-jobs-required",
                    "pod-deletion-required",
                    "pod-restart-required",
                    "validation-required",
                    "uncordon-required",
                    "upgrade-done");

    private static final Set<String> ACTIVE =
            Set.of(
                    "cordon-required",
                    "wait-for-jobs-required",
                    "pod-deletion-required",
                    "drain-required",
                    "pod-restart-required",
                    "validation-required",
                    "uncordon-required");

    private static SimulatedCluster cluster;
    private static KubernetesClient client;
    private static final List<String> events = Collections.synchronizedList(new ArrayList<>());
    private static final Set<String> enabledSteps =
            new LinkedHashSet<>(NodeProgress.STEPS.keySet());

    /** Every change of a node's state label, in arrival order: {@code node=state}. */
    private static final List<String> transitions = Collections.synchronizedList(new ArrayList<>());

    /**
     * Every change of a node's cordon after the watch first saw it, in arrival order: {@code
     * node=cordoned} or {@code node=uncordoned}.
     */
    private static final List<String> cordons = Collections.synchronizedList(new ArrayList<>());

    private static Watch nodeWatch;

    @BeforeAll
    static void startCluster() throws Exception {
        // the controller talks to the API server as its Deployment would, through the front (the
        // Eviction API is served there)
        cluster =
                SimulatedCluster.start(
                        new SimulatedCluster.Options(
                                RepoRoot.find(),
                                true,
                                direct -> {
                                    KubernetesClient front = Scenarios.front(cluster);
                                    AutoCloseable controller = ControllerLauncher.start(front);
                                    return () -> {
                                        controller.close();
                                        front.close();
                                    };
                                },
                                events::add));
        assumeTrue(cluster.podsAsContainers(), "driver upgrades need pods as containers");
        client = cluster.client();
        // each node pulls the driver image of every version from the simulated registry
        // (upstream's driver:<version>; here the driver agent's image under that tag)
        for (String name : NODES) {
            cluster.addGpuNode(name);
        }
        nodeWatch = client.nodes().watch(new StateRecorder());
        cluster.startController();
    }

    @BeforeEach
    void announce(TestInfo info) {
        Scenarios.announce(info);
    }

    @AfterAll
    static void stopCluster() {
        Scenarios.printLastEvents(events, 120);
        if (nodeWatch != null) {
            nodeWatch.close();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    /** Records each node's state label and cordon as they change. */
    private static final class StateRecorder implements Watcher<Node> {
        private final Map<String, String> last = new HashMap<>();
        private final Map<String, Boolean> lastCordon = new HashMap<>();

        @Override
        public synchronized void eventReceived(Action action, Node node) {
            Map<String, String> labels = node.getMetadata().getLabels();
            String state = labels == null ? null : labels.get(STATE);
            String name = node.getMetadata().getName();
            if (state != null && !state.equals(last.get(name))) {
                transitions.add(name + "=" + state);
            }
            last.put(name, state);
            boolean cordon =
                    node.getSpec() != null
                            && Boolean.TRUE.equals(node.getSpec().getUnschedulable());
            Boolean before = lastCordon.put(name, cordon);
            if (before != null && before != cordon) {
                cordons.add(name + (cordon ? "=cordoned" : "=uncordoned"));
            }
        }

        @Override
        public void onClose(WatcherException cause) {
            if (cause != null) {
                events.add("node watch closed: " + cause);
            }
        }
    }

    private static void editSpec(Consumer<Map<String, Object>> edit) {
        PolicySpecEdits.edit(client, POLICY, edit);
    }

    private static void setDriverVersion(String version) {
        editSpec(spec -> section(spec, "driver").put("version", version));
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> upgradePolicy(Map<String, Object> spec) {
        return (Map<String, Object>)
                section(spec, "driver").computeIfAbsent("upgradePolicy", k -> new HashMap<>());
    }

    private static Node node(String name) {
        return client.nodes().withName(name).get();
    }

    private static String state(String node) {
        return Scenarios.labels(client, node).get(STATE);
    }

    private static boolean cordoned(String node) {
        Node n = node(node);
        return n.getSpec() != null && Boolean.TRUE.equals(n.getSpec().getUnschedulable());
    }

    private static Optional<Pod> driverPod(String node) {
        return cluster.operandPodsOn(node).stream()
                .filter(
                        p ->
                                "driver-agent"
                                        .equals(
                                                p.getMetadata()
                                                        .getLabels()
                                                        .get("app.kubernetes.io/name")))
                .filter(p -> p.getMetadata().getDeletionTimestamp() == null)
                .findFirst();
    }

    /** The DRIVER_VERSION the node's driver pod runs, or null. */
    private static String driverVersion(String node) {
        return driverPod(node)
                .flatMap(
                        p ->
                                p.getSpec().getContainers().stream()
                                        .flatMap(c -> c.getEnv().stream())
                                        .filter(e -> "DRIVER_VERSION".equals(e.getName()))
                                        .map(e -> e.getValue())
                                        .findFirst())
                .orElse(null);
    }

    private static Map<String, Object> policyStatus() {
        return Scenarios.policyStatus(client, POLICY);
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> driverUpgradeStatus() {
        Object u = policyStatus().get("driverUpgrade");
        return u == null ? Map.of() : (Map<String, Object>) u;
    }

    @SuppressWarnings("unchecked")
    private static List<String> upgradeLines() {
        Object lines = driverUpgradeStatus().get("lines");
        return lines == null ? List.of() : (List<String>) lines;
    }

    /** status.driverVersions: version → nodes, from feature discovery's labels. */
    @SuppressWarnings("unchecked")
    private static Map<String, Integer> driverVersions() {
        Object v = policyStatus().get("driverVersions");
        Map<String, Integer> out = new TreeMap<>();
        if (v != null) {
            ((Map<String, Object>) v).forEach((k, n) -> out.put(k, ((Number) n).intValue()));
        }
        return out;
    }

    private static void awaitAllDone(String version, Duration within) {
        Map<String, String> versions = new TreeMap<>();
        NODES.forEach(n -> versions.put(n, version));
        awaitAllDone(versions, Map.of(version, NODES.size()), within);
    }

    /**
     * Every node upgrade-done with its driver pod on its version (node → version), validated,
     * ready; and {@code status.driverVersions} (feature discovery's) is {@code drift}, unless null.
     */
    private static void awaitAllDone(
            Map<String, String> versions, Map<String, Integer> drift, Duration within) {
        await().atMost(within)
                .pollInterval(Duration.ofMillis(250))
                .ignoreExceptions()
                .untilAsserted(
                        () -> {
                            for (String n : NODES) {
                                assertThat(state(n)).as("state of %s", n).isEqualTo("upgrade-done");
                                // the node watch's record has caught up too: the walks read after
                                // this await end in upgrade-done (its event came after the read
                                // above once, in 4ab0304's clean-clone run)
                                String recorded = lastRecorded(n);
                                assertThat(recorded == null || recorded.equals("upgrade-done"))
                                        .as("the node watch's last state of %s: %s", n, recorded)
                                        .isTrue();
                                assertThat(driverVersion(n))
                                        .as("driver on %s", n)
                                        .isEqualTo(versions.get(n));
                                NodeProgress p = Scenarios.progress(cluster, n, enabledSteps);
                                assertThat(p.ready()).as(p.describe()).isTrue();
                                assertThat(Scenarios.annotations(client, n))
                                        .containsEntry(
                                                "nvidia.com/gpu-operator.validation", ALL_READY);
                            }
                            if (drift != null) {
                                assertThat(driverVersions()).isEqualTo(drift);
                            }
                        });
    }

    /** The node watch's last recorded state of {@code node}, or null when it recorded none. */
    private static String lastRecorded(String node) {
        List<String> all = walkOf(node, 0);
        return all.isEmpty() ? null : all.getLast();
    }

    /** The recorded states of one node, in order, from index {@code from} of the timeline. */
    private static List<String> walkOf(String node, int from) {
        synchronized (transitions) {
            return transitions.subList(from, transitions.size()).stream()
                    .filter(t -> t.startsWith(node + "="))
                    .map(t -> t.substring(node.length() + 1))
                    .toList();
        }
    }

    /** The most nodes in an active state at once over the timeline from {@code from}. */
    private static int maxActiveAtOnce(int from) {
        Map<String, String> current = new HashMap<>();
        int max = 0;
        synchronized (transitions) {
            for (String t : transitions.subList(from, transitions.size())) {
                int eq = t.indexOf('=');
                current.put(t.substring(0, eq), t.substring(eq + 1));
                max =
                        Math.max(
                                max,
                                (int) current.values().stream().filter(ACTIVE::contains).count());
            }
        }
        return max;
    }

    /**
     * A pod on {@code node}, holding one GPU, for ReplicaSet {@code gpu-work} to adopt (its
     * selector matches; a pod made by the ReplicaSet could not be pinned to a node).
     */
    private static Pod gpuWorkload(String node, Map<String, String> labels) {
        return gpuWorkload(node, labels, "gpu-work-" + node);
    }

    private static Pod gpuWorkload(String node, Map<String, String> labels, String name) {
        Pod pod =
                new PodBuilder()
                        .withNewMetadata()
                        .withName(name)
                        .withNamespace("default")
                        .withLabels(labels)
                        .endMetadata()
                        .withNewSpec()
                        .withNodeName(node)
                        .withRuntimeClassName("nvidia")
                        .withTerminationGracePeriodSeconds(2L)
                        .addNewContainer()
                        .withName("main")
                        .withImage(Workloads.IMAGE)
                        .withCommand("sh", "-c", "nvidia-smi -L; exec sleep 3600")
                        .withNewResources()
                        .addToLimits("nvidia.com/gpu", new Quantity("1"))
                        .endResources()
                        .endContainer()
                        .endSpec()
                        .build();
        return client.pods().inNamespace("default").resource(pod).create();
    }

    /**
     * A ReplicaSet that adopts the running pods labelled {@code app=<name>} (its replacements hold
     * no GPU), once they are Running; returned once it owns them.
     */
    private static ReplicaSet adoptingReplicaSet(String name, int replicas) {
        await().atMost(Duration.ofMinutes(2))
                .pollInterval(Duration.ofMillis(250))
                .ignoreExceptions()
                .untilAsserted(
                        () ->
                                assertThat(
                                                client.pods()
                                                        .inNamespace("default")
                                                        .withLabel("app", name)
                                                        .list()
                                                        .getItems())
                                        .hasSize(replicas)
                                        .allSatisfy(
                                                p ->
                                                        assertThat(p.getStatus().getPhase())
                                                                .isEqualTo("Running")));
        ReplicaSet rs =
                client.apps()
                        .replicaSets()
                        .inNamespace("default")
                        .resource(
                                new ReplicaSetBuilder()
                                        .withNewMetadata()
                                        .withName(name)
                                        .withNamespace("default")
                                        .endMetadata()
                                        .withNewSpec()
                                        .withReplicas(replicas)
                                        .withNewSelector()
                                        .addToMatchLabels("app", name)
                                        .endSelector()
                                        .withNewTemplate()
                                        .withNewMetadata()
                                        .addToLabels("app", name)
                                        .endMetadata()
                                        .withNewSpec()
                                        .withTerminationGracePeriodSeconds(2L)
                                        .addNewContainer()
                                        .withName("main")
                                        .withImage(Workloads.IMAGE)
                                        .withCommand("sh", "-c", "exec sleep 3600")
                                        .endContainer()
                                        .endSpec()
                                        .endTemplate()
                                        .endSpec()
                                        .build())
                        .create();
        await().atMost(Duration.ofSeconds(30))
                .pollInterval(Duration.ofMillis(500))
                .ignoreExceptions()
                .untilAsserted(
                        () ->
                                assertThat(
                                                client.pods()
                                                        .inNamespace("default")
                                                        .withLabel("app", name)
                                                        .list()
                                                        .getItems())
                                        .allSatisfy(
                                                p ->
                                                        assertThat(
                                                                        p.getMetadata()
                                                                                .getOwnerReferences())
                                                                .anySatisfy(
                                                                        o ->
                                                                                assertThat(
                                                                                                o
                                                                                                        .getUid())
                                                                                        .isEqualTo(
                                                                                                rs.getMetadata()
                                                                                                        .getUid()))));
        return rs;
    }

    private static Pod workload(String node) {
        return client.pods().inNamespace("default").withName("gpu-work-" + node).get();
    }

    @Test
    @Order(10)
    void theStackComesUpOnTheFirstVersionAndEveryNodeIsUpgradeDone() throws Exception {
        GenericKubernetesResource cp = Scenarios.samplePolicy(Scenarios.SIMULATED_POLICY);
        Map<String, Object> spec = Scenarios.spec(cp);
        section(spec, "driver").put("version", V1);
        Map<String, Object> upgrade = upgradePolicy(spec);
        upgrade.put("autoUpgrade", true);
        upgrade.put("maxParallelUpgrades", 1);
        upgrade.put("maxUnavailable", 1);
        upgrade.put("podDeletion", Map.of("timeoutSeconds", 300));
        // re-check every 15 s, so that a node's validation follows its driver within the scenario;
        // not every 5 s: each round on each node starts two containers and three JVMs, CPU the
        // rollouts need on this 2-core machine (the class ran in 257 s instead of 267-287)
        section(spec, "validator")
                .put(
                        "env",
                        List.of(
                                Map.of("name", "RECHECK_INTERVAL", "value", "15s"),
                                Map.of("name", "WORKLOAD_TIMEOUT", "value", "90s")));
        // relabel every few seconds, so that the drift summary follows the rollout
        section(spec, "gfd")
                .put("env", List.of(Map.of("name", "GFD_SLEEP_INTERVAL", "value", "5s")));
        client.genericKubernetesResources(SimulatedCluster.CLUSTER_POLICIES).resource(cp).create();

        awaitAllDone(V1, CONVERGE);
        assertThat(driverUpgradeStatus()).containsEntry("autoUpgrade", true);
    }

    @Test
    @Order(20)
    void aNewVersionRollsOneNodeAtATimeEvictingTheWorkloadsAndKeepsTheAdminsCordon() {
        for (String n : NODES) {
            Map<String, String> labels = new HashMap<>(Map.of("app", "gpu-work"));
            if (n.equals("gpu-node-2")) {
                labels.put("guarded", "true");
            }
            gpuWorkload(n, labels);
        }
        // the ReplicaSet adopts the running pods (one per node); the ones it makes in place of
        // evicted pods hold no GPU
        adoptingReplicaSet("gpu-work", NODES.size());
        // the only guarded pod may not go: minAvailable 1
        client.resource(
                        new PodDisruptionBudgetBuilder()
                                .withNewMetadata()
                                .withName("guarded")
                                .withNamespace("default")
                                .endMetadata()
                                .withNewSpec()
                                .withMinAvailable(new IntOrString(1))
                                .withNewSelector()
                                .addToMatchLabels("guarded", "true")
                                .endSelector()
                                .endSpec()
                                .build())
                .create();
        // the admin cordoned node 3 for reasons of their own
        client.nodes()
                .withName("gpu-node-3")
                .edit(
                        n -> {
                            if (n.getSpec() == null) {
                                n.setSpec(new io.fabric8.kubernetes.api.model.NodeSpec());
                            }
                            n.getSpec().setUnschedulable(true);
                            return n;
                        });

        // the admin's cordon counts against maxUnavailable (upstream's rule): one more for the
        // upgrade, else node 3 would take it for good
        editSpec(spec -> upgradePolicy(spec).put("maxUnavailable", 2));

        int from = transitions.size();
        List<Map<String, Integer>> drift = Collections.synchronizedList(new ArrayList<>());
        setDriverVersion(V2);

        // node 2's workload is behind the budget: its node waits at pod deletion, and says why
        await().atMost(ROLLOUT)
                .pollInterval(Duration.ofMillis(250))
                .ignoreExceptions()
                .untilAsserted(
                        () -> {
                            recordDrift(drift);
                            assertThat(state("gpu-node-2")).isEqualTo("pod-deletion-required");
                            assertThat(upgradeLines())
                                    .anySatisfy(
                                            l ->
                                                    assertThat(l)
                                                            .startsWith("node gpu-node-2:")
                                                            .contains(
                                                                    "default/gpu-work-gpu-node-2"
                                                                            + " (blocked by a"
                                                                            + " PodDisruptionBudget)"));
                        });
        assertThat(workload("gpu-node-2")).as("the guarded pod is still there").isNotNull();
        System.out.println("  held by the budget: " + upgradeLines());
        client.policy()
                .v1()
                .podDisruptionBudget()
                .inNamespace("default")
                .withName("guarded")
                .delete();

        await().atMost(ROLLOUT)
                .pollInterval(Duration.ofMillis(250))
                .ignoreExceptions()
                .untilAsserted(
                        () -> {
                            recordDrift(drift);
                            for (String n : NODES) {
                                assertThat(state(n)).as("state of %s", n).isEqualTo("upgrade-done");
                                assertThat(driverVersion(n)).isEqualTo(V2);
                            }
                        });
        awaitAllDone(V2, CONVERGE);
        recordDrift(drift);

        System.out.println("  transitions: " + transitions.subList(from, transitions.size()));
        System.out.println("  drift summaries seen: " + drift);
        for (String n : NODES) {
            assertThat(walkOf(n, from)).as("states of %s", n).containsSubsequence(WALK);
            assertThat(workload(n)).as("the workload on %s was evicted", n).isNull();
        }
        assertThat(maxActiveAtOnce(from)).as("nodes upgrading at once").isEqualTo(1);
        assertThat(drift)
                .as("the drift summary showed the mix, then one version")
                .anySatisfy(d -> assertThat(d).containsOnlyKeys(V1, V2))
                .last()
                .isEqualTo(Map.of(V2, NODES.size()));
        // uncordoned after validation, but the admin's cordon stays
        assertThat(cordoned("gpu-node-1")).isFalse();
        assertThat(cordoned("gpu-node-2")).isFalse();
        assertThat(cordoned("gpu-node-3")).as("cordoned by the admin").isTrue();
        for (String n : NODES) {
            assertThat(Scenarios.annotations(client, n)).doesNotContainKey(INITIAL_UNSCHEDULABLE);
        }
        assertThat(driverUpgradeStatus().get("lastGoodVersions"))
                .isEqualTo(Map.of("gpu-node-1", V2, "gpu-node-2", V2, "gpu-node-3", V2));

        client.nodes()
                .withName("gpu-node-3")
                .edit(
                        n -> {
                            if (n.getSpec() != null) {
                                n.getSpec().setUnschedulable(null);
                            }
                            return n;
                        });
        editSpec(spec -> upgradePolicy(spec).put("maxUnavailable", 1));
    }

    /**
     * A runtime that refuses to create a container asking for GPUs (a visible-devices env other
     * than void/none, or a CDI annotation), with nvidia-container-cli's driver error on stderr and
     * in runc's log (where containerd reads it), and hands every other call to {@code good}.
     */
    private static String brokenForGpuContainers(Path good, String version) {
        return """
                #!/bin/sh
                bundle=; log=; prev=; create=
                for a in "$@"; do
                  [ "$prev" = --bundle ] && bundle=$a
                  [ "$prev" = --log ] && log=$a
                  [ "$a" = create ] && create=1
                  prev=$a
                done
                spec="$bundle/config.json"
                if [ -n "$create" ] && [ -f "$spec" ] && { \
                  grep -o '"NVIDIA_VISIBLE_DEVICES=[^"]*"' "$spec" | grep -qvE '=(void|none)?"$' \
                  || grep -q '"cdi.k8s.io/' "$spec"; }; then
                  msg='nvidia-container-cli: initialization error: driver error: broken by driver %s'
                  echo "$msg" >&2
                  [ -n "$log" ] && echo "{\\"level\\":\\"error\\",\\"msg\\":\\"$msg\\"}" >> "$log"
                  exit 1
                fi
                exec '%s' "$@"
                """
                .formatted(version, good);
    }

    private static void recordDrift(List<Map<String, Integer>> seen) {
        Map<String, Integer> now = driverVersions();
        if (!now.isEmpty() && (seen.isEmpty() || !seen.getLast().equals(now))) {
            seen.add(now);
        }
    }

    @Test
    @Order(30)
    void aNodeThatFailsValidationStopsTheRolloutAtMaxUnavailableAndTheRollbackBringsAllBack()
            throws Exception {
        // the new version breaks GPU containers on node 1, as a driver that does not load breaks
        // nvidia-container-cli: played by the test, which swaps in a faulty runtime while node 1's
        // driver pod runs V3, and restores it otherwise. Containers that ask for no GPU (the
        // driver's own pod among them) pass through to the good runtime, as with the real one
        try (AutoCloseable fault = breakGpuContainersWhileOn(V3, List.of("gpu-node-1"))) {
            setDriverVersion(V3);
            await().atMost(ROLLOUT)
                    .pollInterval(Duration.ofMillis(250))
                    .ignoreExceptions()
                    .untilAsserted(
                            () -> {
                                assertThat(state("gpu-node-1")).isEqualTo("upgrade-failed");
                                assertThat(Scenarios.annotations(client, "gpu-node-1"))
                                        .hasEntrySatisfying(
                                                FAILURE_REASON,
                                                r ->
                                                        assertThat(r)
                                                                .startsWith(
                                                                        "validation: the validator"
                                                                                + " reports toolkit: "));
                            });
            String reason = Scenarios.annotations(client, "gpu-node-1").get(FAILURE_REASON);
            System.out.println("  node 1 failed: " + reason);
            assertThat(reason).contains("driver error: broken by driver " + V3);
            assertThat(cordoned("gpu-node-1")).as("a failed node stays cordoned").isTrue();
            // the status follows the node's label in a later write: on a loaded machine, seconds
            await().atMost(Duration.ofSeconds(60))
                    .pollInterval(Duration.ofMillis(250))
                    .untilAsserted(
                            () ->
                                    assertThat(upgradeLines())
                                            .contains(
                                                    "node gpu-node-1: upgrade-failed: " + reason));

            // maxUnavailable 1 is spent on node 1: the others wait, schedulable, on V2
            for (int i = 0; i < 15; i++) {
                for (String n : List.of("gpu-node-2", "gpu-node-3")) {
                    assertThat(state(n)).as("state of %s", n).isEqualTo("upgrade-required");
                    assertThat(cordoned(n)).isFalse();
                    assertThat(driverVersion(n)).isEqualTo(V2);
                }
                TimeUnit.SECONDS.sleep(1);
            }
            assertThat(upgradeLines())
                    .anySatisfy(
                            l ->
                                    assertThat(l)
                                            .startsWith("node gpu-node-2: upgrade-required:")
                                            .contains("maxUnavailable 1 = 1 of 3")
                                            .contains(
                                                    "1 unavailable: cordoned, NotReady, failed or upgrading"));
            assertThat(driverUpgradeStatus().get("lastGoodVersions"))
                    .as("what to roll back to")
                    .isEqualTo(Map.of("gpu-node-1", V2, "gpu-node-2", V2, "gpu-node-3", V2));

            // the rollback is one edit, and walks the same states
            int from = transitions.size();
            setDriverVersion(V2);
            awaitAllDone(V2, ROLLOUT);
            System.out.println(
                    "  rollback transitions: " + transitions.subList(from, transitions.size()));
            assertThat(walkOf("gpu-node-1", from)).containsSubsequence(WALK);
            for (String n : NODES) {
                assertThat(cordoned(n)).as("%s schedulable", n).isFalse();
                assertThat(Scenarios.annotations(client, n)).doesNotContainKey(FAILURE_REASON);
            }
        }
    }

    /**
     * Plays {@code version} as a driver that does not load on {@code nodes}: while a node's driver
     * pod runs it, the node's installed {@code nvidia-container-runtime} is swapped for {@link
     * #brokenForGpuContainers}; otherwise, and once closed, the good one is back.
     */
    private static AutoCloseable breakGpuContainersWhileOn(String version, List<String> nodes)
            throws Exception {
        Map<String, Path> runtimes = new TreeMap<>();
        Map<String, byte[]> goods = new HashMap<>();
        Map<String, byte[]> brokens = new HashMap<>();
        for (String n : nodes) {
            Path runtime =
                    cluster.node(n)
                            .root()
                            .resolve("usr/local/nvidia/toolkit/nvidia-container-runtime");
            byte[] good = Files.readAllBytes(runtime);
            Path goodCopy =
                    cluster.workDir().resolve("fault/" + n + "/nvidia-container-runtime.good");
            Files.createDirectories(goodCopy.getParent());
            Files.write(goodCopy, good);
            goodCopy.toFile().setExecutable(true);
            runtimes.put(n, runtime);
            goods.put(n, good);
            brokens.put(n, brokenForGpuContainers(goodCopy, version).getBytes());
        }
        Thread fault =
                Thread.ofVirtual()
                        .start(
                                () -> {
                                    while (!Thread.currentThread().isInterrupted()) {
                                        for (String n : nodes) {
                                            try {
                                                byte[] want =
                                                        version.equals(driverVersion(n))
                                                                ? brokens.get(n)
                                                                : goods.get(n);
                                                if (!java.util.Arrays.equals(
                                                        Files.readAllBytes(runtimes.get(n)),
                                                        want)) {
                                                    Scenarios.replaceExecutable(
                                                            runtimes.get(n), want);
                                                }
                                            } catch (Exception e) {
                                                // the file is being replaced, or the API is busy
                                            }
                                        }
                                        try {
                                            TimeUnit.MILLISECONDS.sleep(300);
                                        } catch (InterruptedException e) {
                                            return;
                                        }
                                    }
                                });
        return () -> {
            fault.interrupt();
            fault.join();
            for (String n : nodes) {
                Scenarios.replaceExecutable(runtimes.get(n), goods.get(n));
            }
        };
    }

    @Test
    @Order(40)
    void withoutAutoUpgradeNothingMovesAndTheStatusSaysAnUpgradeIsPending() throws Exception {
        Map<String, String> driverPods = new TreeMap<>();
        for (String n : NODES) {
            driverPods.put(n, driverPod(n).orElseThrow().getMetadata().getUid());
        }
        editSpec(
                spec -> {
                    upgradePolicy(spec).put("autoUpgrade", false);
                    section(spec, "driver").put("version", V3);
                });
        await().atMost(Duration.ofMinutes(1))
                .pollInterval(Duration.ofMillis(250))
                .ignoreExceptions()
                .untilAsserted(
                        () -> {
                            assertThat(upgradeLines())
                                    .contains(
                                            "driver upgrade pending on 3 node(s) (gpu-node-1,"
                                                    + " gpu-node-2, gpu-node-3):"
                                                    + " spec.driver.upgradePolicy.autoUpgrade"
                                                    + " is false");
                            // as upstream's: no upgrade state label is left
                            for (String n : NODES) {
                                assertThat(state(n)).as("state of %s", n).isNull();
                            }
                        });
        assertThat(driverUpgradeStatus()).containsEntry("autoUpgrade", false);
        for (int i = 0; i < 10; i++) {
            for (String n : NODES) {
                assertThat(cordoned(n)).as("%s cordoned", n).isFalse();
                assertThat(state(n)).as("state of %s", n).isNull();
                assertThat(driverPod(n).orElseThrow().getMetadata().getUid())
                        .as("the driver pod on %s is not replaced", n)
                        .isEqualTo(driverPods.get(n));
            }
            TimeUnit.SECONDS.sleep(1);
        }
    }

    @Test
    @Order(50)
    void aVersionOutsideTheMatrixIsWarnedAboutByPlanAndTheStatusBeforeAnythingMoves()
            throws Exception {
        // plan: the new policy against this cluster, through its kubeconfig; it changes nothing
        String out =
                plan(
                        "--policy",
                        policyFile(
                                        "policy-outside-matrix.yaml",
                                        spec ->
                                                section(spec, "driver")
                                                        .put("version", OUTSIDE_MATRIX))
                                .toString());
        assertThat(out)
                .contains("Kubernetes v1.33.1 is not supported by driver branch 535")
                .contains("gpu-node-1");

        setDriverVersion(OUTSIDE_MATRIX);
        await().atMost(Duration.ofMinutes(1))
                .pollInterval(Duration.ofMillis(250))
                .ignoreExceptions()
                .untilAsserted(
                        () ->
                                assertThat(Serialization.asJson(policyStatus().get("warnings")))
                                        .contains(
                                                "Kubernetes v1.33.1 is not supported by driver"
                                                        + " branch 535"));
        for (String n : NODES) {
            assertThat(cordoned(n)).isFalse();
            assertThat(driverVersion(n)).isEqualTo(V2);
        }

        // back to the running version: nothing to upgrade, nothing moved
        editSpec(
                s -> {
                    section(s, "driver").put("version", V2);
                    upgradePolicy(s).put("autoUpgrade", true);
                });
        awaitAllDone(V2, CONVERGE);
    }

    @Test
    @Order(60)
    void twoNvidiaDriversDriveTwoNodePoolsAndOverlappingSelectorsGiveTheCondition()
            throws Exception {
        Map<String, String> pools = Map.of("gpu-node-1", "a", "gpu-node-2", "a", "gpu-node-3", "b");
        pools.forEach(
                (n, pool) ->
                        client.nodes()
                                .withName(n)
                                .edit(
                                        node -> {
                                            node.getMetadata().getLabels().put("pool", pool);
                                            return node;
                                        }));
        // a GPU workload on each of pool-a's nodes, adopted by a ReplicaSet so the upgrade may
        // evict
        List<String> poolA = List.of("gpu-node-1", "gpu-node-2");
        for (String n : poolA) {
            gpuWorkload(n, Map.of("app", "gpu-switch"), "gpu-switch-" + n);
        }
        ReplicaSet switchSet = adoptingReplicaSet("gpu-switch", poolA.size());
        int from = transitions.size();
        // each workload's eviction, in the same timeline as the nodes' states
        Watch evictions =
                client.pods()
                        .inNamespace("default")
                        .withLabel("app", "gpu-switch")
                        .watch(
                                new Watcher<Pod>() {
                                    @Override
                                    public void eventReceived(Action action, Pod pod) {
                                        String name = pod.getMetadata().getName();
                                        if (action == Action.DELETED
                                                && name.startsWith("gpu-switch-gpu-node-")) {
                                            transitions.add(
                                                    "evict/"
                                                            + name.substring("gpu-switch-".length())
                                                            + "=x");
                                        }
                                    }

                                    @Override
                                    public void onClose(WatcherException cause) {}
                                });
        DriverReadiness readiness = DriverReadiness.watch(poolA);

        // switching the ClusterPolicy to NVIDIADriver mode (the NVIDIADrivers leave upgradePolicy
        // unset: upstream's defaults, autoUpgrade true, one node at a time)
        client.resource(nvidiaDriver("pool-a", Map.of("pool", "a"), V2)).create();
        client.resource(nvidiaDriver("pool-b", Map.of("pool", "b"), V1)).create();
        editSpec(spec -> section(spec, "driver").put("useNvidiaDriverCRD", true));

        Map<String, String> versions = POOL_VERSIONS;
        await().atMost(ROLLOUT)
                .pollInterval(Duration.ofMillis(250))
                .ignoreExceptions()
                .untilAsserted(
                        () -> {
                            assertThat(
                                            client.apps()
                                                    .daemonSets()
                                                    .inNamespace(SimulatedCluster.NAMESPACE)
                                                    .withName("nvidia-driver-daemonset")
                                                    .get())
                                    .as("the ClusterPolicy's own driver DaemonSet")
                                    .isNull();
                            for (String n : NODES) {
                                // the handover's upgrade is over on every node, and the old
                                // DaemonSet's pod is gone: one driver pod, its pool's
                                assertThat(state(n)).as("state of %s", n).isEqualTo("upgrade-done");
                                assertThat(driverPodNamesOn(n))
                                        .as("driver pods on %s", n)
                                        .singleElement()
                                        .satisfies(
                                                name ->
                                                        assertThat(name)
                                                                .startsWith("nvidia-gpu-driver-"));
                                assertThat(driverVersion(n))
                                        .as("driver on %s", n)
                                        .isEqualTo(versions.get(n));
                                assertThat(node(n).getMetadata().getLabels())
                                        .hasEntrySatisfying(
                                                "nvidia.com/gpu.driver-pool",
                                                v ->
                                                        assertThat(v)
                                                                .startsWith(
                                                                        "pool-"
                                                                                + pools.get(n)
                                                                                + "-"));
                                assertThat(Scenarios.annotations(client, n))
                                        .containsEntry(
                                                "nvidia.com/gpu-operator.validation", ALL_READY);
                            }
                            for (String d : List.of("pool-a", "pool-b")) {
                                assertThat(nvidiaDriverState(d)).as(d).isEqualTo("ready");
                            }
                        });
        List<String> driverSets = nvidiaDriverDaemonSets();
        System.out.println("  driver DaemonSets: " + driverSets);
        assertThat(driverSets).hasSize(2);
        evictions.close();
        readiness.close();
        List<String> timeline;
        synchronized (transitions) {
            timeline = new ArrayList<>(transitions.subList(from, transitions.size()));
        }
        System.out.println("  handover: " + timeline);
        // the old DaemonSet's pods were replaced through the upgrade states, node by node
        for (String n : NODES) {
            assertThat(walkOf(n, from)).as("states of %s", n).containsSubsequence(WALK);
        }
        assertThat(readiness.allWithout)
                .as("moments when nodes 1 and 2 both had no Ready driver pod")
                .isEmpty();
        int e1 = timeline.indexOf("evict/gpu-node-1=x");
        int e2 = timeline.indexOf("evict/gpu-node-2=x");
        assertThat(e1).as("node 1's workload evicted").isNotNegative();
        assertThat(e2).as("node 2's workload evicted").isNotNegative();
        String first = e1 < e2 ? "gpu-node-1" : "gpu-node-2";
        assertThat(timeline.indexOf(first + "=upgrade-done"))
                .as("%s was done before the other node's workload was evicted", first)
                .isBetween(Math.min(e1, e2), Math.max(e1, e2));
        kubectl("delete", "replicaset", "-n", "default", switchSet.getMetadata().getName());

        // a GPU workload on node 1, which is about to be contested: it keeps running throughout
        try (KeptRunning work = KeptRunning.start("gpu-keep-1", "gpu-node-1")) {
            // pool-b now selects every GPU node: nodes 1 and 2 are contested and keep pool-a's
            // driver pod (fail closed), node 3 stays pool-b's
            Map<String, String> podUids = driverPodUids();
            kubectl(
                    "patch",
                    "nvidiadriver",
                    "pool-b",
                    "--type",
                    "merge",
                    "-p",
                    "{\"spec\":{\"nodeSelector\":{\"pool\":null,\""
                            + SimulatedCluster.SIMULATED_LABEL
                            + "\":\"true\"}}}");
            Map<String, String> other = Map.of("pool-a", "pool-b", "pool-b", "pool-a");
            await().atMost(CONVERGE)
                    .pollInterval(Duration.ofMillis(250))
                    .ignoreExceptions()
                    .untilAsserted(
                            () -> {
                                for (String d : List.of("pool-a", "pool-b")) {
                                    assertThat(nvidiaDriverConditions(d))
                                            .as("conditions of %s", d)
                                            .anySatisfy(
                                                    c -> {
                                                        assertThat(c.getReason())
                                                                .isEqualTo(
                                                                        "ConflictingNodeSelector");
                                                        assertThat(c.getMessage())
                                                                .contains(
                                                                        "[" + other.get(d) + "]",
                                                                        "gpu-node-1",
                                                                        "gpu-node-2");
                                                    });
                                }
                                for (String n : List.of("gpu-node-1", "gpu-node-2")) {
                                    assertThat(node(n).getMetadata().getLabels())
                                            .containsEntry(OWNER, "pool-a")
                                            .hasEntrySatisfying(
                                                    "nvidia.com/gpu.driver-pool",
                                                    v -> assertThat(v).startsWith("pool-a-"));
                                    assertThat(driverVersion(n)).isEqualTo(V2);
                                }
                                assertThat(node("gpu-node-3").getMetadata().getLabels())
                                        .containsEntry(OWNER, "pool-b")
                                        .containsKey("nvidia.com/gpu.driver-pool");
                                assertThat(driverVersion("gpu-node-3")).isEqualTo(V1);
                            });
            assertThat(driverPodUids())
                    .as("no driver pod replaced, the contested nodes' included")
                    .isEqualTo(podUids);
            System.out.println(
                    "  pool-a conditions: "
                            + nvidiaDriverConditions("pool-a").stream()
                                    .map(
                                            c ->
                                                    c.getType()
                                                            + " "
                                                            + c.getReason()
                                                            + ": "
                                                            + c.getMessage())
                                    .toList());
            // the admin's view: a Warning Event on each NVIDIADriver naming the other and the nodes
            await().atMost(Duration.ofSeconds(30))
                    .pollInterval(Duration.ofMillis(500))
                    .ignoreExceptions()
                    .untilAsserted(
                            () -> {
                                List<String> conflictEvents =
                                        kubectl(
                                                        "get",
                                                        "events",
                                                        "-n",
                                                        "default",
                                                        "-o",
                                                        "jsonpath={range .items[?(@.reason"
                                                                + "==\"ConflictingNodeSelector\")]}"
                                                                + "{.type} {.involvedObject.kind}/"
                                                                + "{.involvedObject.name}:"
                                                                + " {.message}{\"\\n\"}{end}")
                                                .lines()
                                                .toList();
                                for (String d : List.of("pool-a", "pool-b")) {
                                    assertThat(conflictEvents)
                                            .anySatisfy(
                                                    e ->
                                                            assertThat(e)
                                                                    .startsWith(
                                                                            "Warning NVIDIADriver/"
                                                                                    + d
                                                                                    + ": ")
                                                                    .contains(
                                                                            other.get(d),
                                                                            "gpu-node-1",
                                                                            "gpu-node-2"));
                                }
                            });
            work.assertKeptRunning();

            // pool-b narrowed back to pool b: the conflict is gone, nothing restarts
            kubectl(
                    "patch",
                    "nvidiadriver",
                    "pool-b",
                    "--type",
                    "merge",
                    "-p",
                    "{\"spec\":{\"nodeSelector\":{\"pool\":\"b\",\""
                            + SimulatedCluster.SIMULATED_LABEL
                            + "\":null}}}");
            await().atMost(CONVERGE)
                    .pollInterval(Duration.ofMillis(250))
                    .ignoreExceptions()
                    .untilAsserted(
                            () -> {
                                for (String d : List.of("pool-a", "pool-b")) {
                                    assertThat(nvidiaDriverConditions(d))
                                            .as("conditions of %s", d)
                                            .noneSatisfy(
                                                    c ->
                                                            assertThat(c.getReason())
                                                                    .isEqualTo(
                                                                            "ConflictingNodeSelector"))
                                            .anySatisfy(
                                                    c -> {
                                                        assertThat(c.getType()).isEqualTo("Ready");
                                                        assertThat(c.getStatus()).isEqualTo("True");
                                                    });
                                    assertThat(nvidiaDriverState(d)).as(d).isEqualTo("ready");
                                }
                                for (String n : NODES) {
                                    String owner = "pool-" + pools.get(n);
                                    assertThat(node(n).getMetadata().getLabels())
                                            .as("labels of %s", n)
                                            .containsEntry(OWNER, owner);
                                    Pod p = driverPod(n).orElseThrow();
                                    assertThat(p.getMetadata().getLabels())
                                            .as("driver pod on %s", n)
                                            .hasEntrySatisfying(
                                                    "nvidia.com/gpu.driver-pool",
                                                    v -> assertThat(v).startsWith(owner + "-"));
                                    assertThat(podReady(p))
                                            .as("driver pod on %s Ready", n)
                                            .isTrue();
                                    assertThat(Scenarios.annotations(client, n))
                                            .containsEntry(
                                                    "nvidia.com/gpu-operator.validation",
                                                    ALL_READY);
                                }
                            });
            assertThat(driverPodUids()).as("no driver pod replaced").isEqualTo(podUids);
            // as an admin reads the assignment
            String owners = kubectl("get", "nodes", "-L", OWNER, "--no-headers", "-l", "pool");
            System.out.println("  owners:\n" + owners.indent(4));
            Map<String, String> ownerColumn = new TreeMap<>();
            owners.lines()
                    .map(l -> l.trim().split("\\s+"))
                    .forEach(cols -> ownerColumn.put(cols[0], cols[cols.length - 1]));
            assertThat(ownerColumn)
                    .isEqualTo(
                            Map.of(
                                    "gpu-node-1", "pool-a",
                                    "gpu-node-2", "pool-a",
                                    "gpu-node-3", "pool-b"));
            work.assertKeptRunning();
        }
    }

    /**
     * A label-only change of an NVIDIADriver changes its pods' template but not the installed
     * driver: the restart-only path (cordon, the driver pod replaced, validation, uncordon), no
     * eviction. Its labels removed again take the same path.
     */
    @Test
    @Order(70)
    void aLabelOnlyChangeOfAnNvidiaDriverRestartsItsDriverPodWithoutEvictingTheWorkload()
            throws Exception {
        try (KeptRunning work = KeptRunning.start("gpu-keep-3", "gpu-node-3")) {
            Map<String, String> podUids = driverPodUids();
            // plan first, as an admin would: the change takes node 3 through the restart-only
            // path, and pool-a's nodes stay as they are
            String planned =
                    plan(
                            "--policy",
                            policyFile("policy-now.yaml", spec -> {}).toString(),
                            "--nvidiadrivers",
                            nvidiaDriversFile(
                                            "nvidiadrivers-labels.yaml",
                                            "pool-b",
                                            spec -> spec.put("labels", Map.of("team", "ml")))
                                    .toString());
            assertThat(planOf(planned, "gpu-node-3"))
                    .contains(
                            "    nvidiadriver: pool-b (pool pool-b-",
                            "    driver path: restart only (",
                            "    evicts: none\n",
                            "    batch: 1\n")
                    .contains("    driver unload: no\n");
            for (String n : List.of("gpu-node-1", "gpu-node-2")) {
                assertThat(planOf(planned, n))
                        .contains("    nvidiadriver: pool-a (pool pool-a-", "    restarts: none\n")
                        .doesNotContain("driver path");
            }
            assertThat(planned)
                    .contains("Driver upgrade batches of NVIDIADriver pool-a (")
                    .containsPattern(
                            "Driver upgrade batches of NVIDIADriver pool-b \\(.*\\):\n  1:"
                                    + " gpu-node-3\n");
            for (String labels : List.of("{\"team\":\"ml\"}", "null")) {
                String before = driverPod("gpu-node-3").orElseThrow().getMetadata().getUid();
                int from = transitions.size();
                int cordonsFrom = cordons.size();
                kubectl(
                        "patch",
                        "nvidiadriver",
                        "pool-b",
                        "--type",
                        "merge",
                        "-p",
                        "{\"spec\":{\"labels\":" + labels + "}}");
                await().atMost(ROLLOUT)
                        .pollInterval(Duration.ofMillis(250))
                        .ignoreExceptions()
                        .untilAsserted(
                                () -> {
                                    Pod p = driverPod("gpu-node-3").orElseThrow();
                                    assertThat(p.getMetadata().getUid()).isNotEqualTo(before);
                                    if (labels.equals("null")) {
                                        assertThat(p.getMetadata().getLabels())
                                                .doesNotContainKey("team");
                                    } else {
                                        assertThat(p.getMetadata().getLabels())
                                                .containsEntry("team", "ml");
                                    }
                                    assertThat(podReady(p)).isTrue();
                                    assertThat(state("gpu-node-3")).isEqualTo("upgrade-done");
                                    assertThat(cordoned("gpu-node-3")).isFalse();
                                    assertThat(Scenarios.annotations(client, "gpu-node-3"))
                                            .containsEntry(
                                                    "nvidia.com/gpu-operator.validation",
                                                    ALL_READY);
                                });
                List<String> walk = walkOf("gpu-node-3", from);
                System.out.println("  labels " + labels + ": node 3 walked " + walk);
                assertThat(walk)
                        .containsSubsequence(
                                "upgrade-required",
                                "cordon-required",
                                "pod-restart-required",
                                "validation-required",
                                "uncordon-required",
                                "upgrade-done")
                        .doesNotContain(
                                "wait-for-jobs-required",
                                "pod-deletion-required",
                                "drain-required");
                assertThat(cordonsOf("gpu-node-3", cordonsFrom))
                        .containsExactly("cordoned", "uncordoned");
                for (String n : List.of("gpu-node-1", "gpu-node-2")) {
                    assertThat(driverPod(n).orElseThrow().getMetadata().getUid())
                            .as("pool-a's driver pod on %s", n)
                            .isEqualTo(podUids.get(n));
                    assertThat(walkOf(n, from)).as("states of %s", n).isEmpty();
                }
                work.assertKeptRunning();
            }
        }
    }

    /**
     * An NVIDIADriver's own upgradePolicy ({@code maxParallelUpgrades: 1}, {@code maxUnavailable:
     * 1}) with a version that fails validation on the first node of its two: the second never
     * starts. Then the last good version is set back.
     */
    @Test
    @Order(80)
    void anNvidiaDriversVersionThatFailsOnItsFirstNodeNeverStartsTheSecond() throws Exception {
        List<String> poolA = List.of("gpu-node-1", "gpu-node-2");
        Map<String, String> podUids = driverPodUids();
        int from = transitions.size();
        int cordonsFrom = cordons.size();
        // plan first: both of pool-a's nodes take the full path, one batch each; pool-b's stays
        String planned =
                plan(
                        "--policy",
                        policyFile("policy-now.yaml", spec -> {}).toString(),
                        "--nvidiadrivers",
                        nvidiaDriversFile(
                                        "nvidiadrivers-v3.yaml",
                                        "pool-a",
                                        spec -> {
                                            spec.put("version", V3);
                                            spec.put(
                                                    "upgradePolicy",
                                                    Map.of(
                                                            "autoUpgrade", true,
                                                            "maxParallelUpgrades", 1,
                                                            "maxUnavailable", 1));
                                        })
                                .toString());
        for (String n : poolA) {
            assertThat(planOf(planned, n))
                    .contains(
                            "    driver unload: yes (driver version " + V2 + " -> " + V3 + ")\n",
                            "    driver path: full (");
        }
        assertThat(planOf(planned, "gpu-node-3")).contains("    restarts: none\n");
        assertThat(planned)
                .containsPattern(
                        "Driver upgrade batches of NVIDIADriver pool-a \\(maxParallelUpgrades 1,"
                                + " maxUnavailable 1[^)]*\\):\n  1: gpu-node-[12]\n  2:"
                                + " gpu-node-[12]\n");
        // V3 breaks GPU containers on whichever node of pool-a runs it (see scenario 30)
        try (AutoCloseable fault = breakGpuContainersWhileOn(V3, poolA)) {
            kubectl(
                    "patch",
                    "nvidiadriver",
                    "pool-a",
                    "--type",
                    "merge",
                    "-p",
                    "{\"spec\":{\"version\":\""
                            + V3
                            + "\",\"upgradePolicy\":{\"autoUpgrade\":true,"
                            + "\"maxParallelUpgrades\":1,\"maxUnavailable\":1}}}");
            String failed =
                    await().atMost(ROLLOUT)
                            .pollInterval(Duration.ofMillis(250))
                            .ignoreExceptions()
                            .until(
                                    () ->
                                            poolA.stream()
                                                    .filter(n -> "upgrade-failed".equals(state(n)))
                                                    .findFirst()
                                                    .orElse(null),
                                    n -> n != null);
            String waiting =
                    poolA.stream().filter(n -> !n.equals(failed)).findFirst().orElseThrow();
            String reason = Scenarios.annotations(client, failed).get(FAILURE_REASON);
            System.out.println("  " + failed + " failed: " + reason);
            assertThat(reason)
                    .startsWith("validation: the validator reports toolkit: ")
                    .contains("driver error: broken by driver " + V3);
            assertThat(cordoned(failed)).as("a failed node stays cordoned").isTrue();
            // the status names the failed node, the one waiting and what to set back
            await().atMost(Duration.ofSeconds(30))
                    .pollInterval(Duration.ofMillis(250))
                    .ignoreExceptions()
                    .untilAsserted(
                            () ->
                                    assertThat(upgradeLines())
                                            .contains(
                                                    "nvidiadriver pool-a: node "
                                                            + failed
                                                            + ": upgrade-failed: "
                                                            + reason)
                                            .anySatisfy(
                                                    l ->
                                                            assertThat(l)
                                                                    .startsWith(
                                                                            "nvidiadriver pool-a:"
                                                                                    + " node "
                                                                                    + waiting
                                                                                    + ": upgrade-required:")
                                                                    .contains("maxUnavailable 1"))
                                            .anySatisfy(
                                                    l ->
                                                            assertThat(l)
                                                                    .contains(
                                                                            "set spec.version of"
                                                                                    + " NVIDIADriver"
                                                                                    + " pool-a to"
                                                                                    + " the last good"
                                                                                    + " version: "
                                                                                    + V2
                                                                                    + " ("
                                                                                    + failed
                                                                                    + ")")));
            System.out.println(
                    "  status lines:\n"
                            + kubectl(
                                            "get",
                                            "clusterpolicy",
                                            POLICY,
                                            "-o",
                                            "jsonpath={range .status.driverUpgrade.lines[*]}{@}"
                                                    + "{\"\\n\"}{end}")
                                    .indent(4));
            // maxUnavailable 1 is spent on the failed node: the other waits, schedulable, on V2
            for (int i = 0; i < 10; i++) {
                assertThat(state(waiting)).as("state of %s", waiting).isEqualTo("upgrade-required");
                assertThat(cordoned(waiting)).as("%s cordoned", waiting).isFalse();
                assertThat(driverPod(waiting).orElseThrow().getMetadata().getUid())
                        .as("the driver pod on %s", waiting)
                        .isEqualTo(podUids.get(waiting));
                TimeUnit.SECONDS.sleep(1);
            }
            // and it never moved, from the node watch's record
            assertThat(walkOf(waiting, from))
                    .as("states of %s", waiting)
                    .isNotEmpty()
                    .allMatch(s -> s.equals("upgrade-required") || s.equals("upgrade-done"));
            assertThat(cordonsOf(waiting, cordonsFrom)).as("cordons of %s", waiting).isEmpty();
            assertThat(driverPod("gpu-node-3").orElseThrow().getMetadata().getUid())
                    .as("pool-b's driver pod")
                    .isEqualTo(podUids.get("gpu-node-3"));

            // back to the last good version, without the NVIDIADriver's own policy
            kubectl(
                    "patch",
                    "nvidiadriver",
                    "pool-a",
                    "--type",
                    "merge",
                    "-p",
                    "{\"spec\":{\"version\":\"" + V2 + "\",\"upgradePolicy\":null}}");
            // status.driverVersions is not checked in scenarios 6 to 8
            awaitAllDone(POOL_VERSIONS, null, ROLLOUT);
            System.out.println("  transitions: " + transitions.subList(from, transitions.size()));
            assertThat(walkOf(failed, from)).containsSubsequence(WALK);
            for (String n : NODES) {
                assertThat(cordoned(n)).as("%s schedulable", n).isFalse();
                assertThat(Scenarios.annotations(client, n)).doesNotContainKey(FAILURE_REASON);
            }
            assertThat(driverPod(waiting).orElseThrow().getMetadata().getUid())
                    .as("the driver pod on %s, never outdated for long", waiting)
                    .isEqualTo(podUids.get(waiting));
        }
    }

    /**
     * Leaving NVIDIADriver mode hands the nodes back to the ClusterPolicy's driver DaemonSet the
     * same way: the NVIDIADrivers' DaemonSets are deleted keeping their pods, and each node walks
     * the upgrade states to the ClusterPolicy's driver pod, its old driver pod deleted only once
     * the node is cordoned and emptied (pod-restart-required), never both of pool-a's nodes at once
     * without a Ready driver pod. The owner and pool labels go, the NVIDIADrivers are told they are
     * not acted on.
     */
    @Test
    @Order(90)
    void leavingNvidiaDriverModeHandsEachNodeBackThroughTheUpgradeStates() throws Exception {
        int from = transitions.size();
        DriverReadiness readiness = DriverReadiness.watch(List.of("gpu-node-1", "gpu-node-2"));
        editSpec(spec -> section(spec, "driver").put("useNvidiaDriverCRD", false));
        await().atMost(ROLLOUT)
                .pollInterval(Duration.ofMillis(250))
                .ignoreExceptions()
                .untilAsserted(
                        () -> {
                            assertThat(nvidiaDriverDaemonSets())
                                    .as("the NVIDIADrivers' DaemonSets")
                                    .isEmpty();
                            for (String n : NODES) {
                                assertThat(state(n)).as("state of %s", n).isEqualTo("upgrade-done");
                                assertThat(driverPodNamesOn(n))
                                        .as("driver pods on %s", n)
                                        .singleElement()
                                        .satisfies(
                                                name ->
                                                        assertThat(name)
                                                                .startsWith(
                                                                        "nvidia-driver-daemonset-"));
                                assertThat(driverVersion(n)).as("driver on %s", n).isEqualTo(V2);
                                assertThat(node(n).getMetadata().getLabels())
                                        .as("labels of %s", n)
                                        .doesNotContainKeys(OWNER, "nvidia.com/gpu.driver-pool");
                                assertThat(cordoned(n)).as("%s cordoned", n).isFalse();
                                assertThat(Scenarios.annotations(client, n))
                                        .containsEntry(
                                                "nvidia.com/gpu-operator.validation", ALL_READY);
                            }
                        });
        readiness.close();
        List<String> timeline;
        synchronized (transitions) {
            timeline = new ArrayList<>(transitions.subList(from, transitions.size()));
        }
        System.out.println("  handover back: " + timeline);
        assertThat(readiness.allWithout)
                .as("moments when nodes 1 and 2 both had no Ready driver pod")
                .isEmpty();
        for (String n : NODES) {
            assertThat(walkOf(n, from)).as("states of %s", n).containsSubsequence(WALK);
            // the NVIDIADriver's pod went only once its node was cordoned and emptied
            int gone = indexOf(timeline, t -> t.startsWith("driver-deleted/" + n + "=nvidia-gpu-"));
            assertThat(gone).as("%s's NVIDIADriver pod deleted", n).isNotNegative();
            assertThat(timeline.indexOf(n + "=pod-restart-required"))
                    .as("%s at pod-restart-required before its driver pod went", n)
                    .isBetween(0, gone);
        }
        for (String d : List.of("pool-a", "pool-b")) {
            // listed at most once a minute
            await().atMost(Duration.ofMinutes(2))
                    .pollInterval(Duration.ofMillis(250))
                    .ignoreExceptions()
                    .untilAsserted(
                            () ->
                                    assertThat(Serialization.asJson(policyStatus().get("warnings")))
                                            .as("the ClusterPolicy's warning about %s", d)
                                            .contains("NVIDIADriver is not acted on")
                                            .contains(d));
        }
    }

    /** The names of the NVIDIADrivers' driver DaemonSets. */
    private static List<String> nvidiaDriverDaemonSets() {
        return client
                .apps()
                .daemonSets()
                .inNamespace(SimulatedCluster.NAMESPACE)
                .list()
                .getItems()
                .stream()
                .map(ds -> ds.getMetadata().getName())
                .filter(name -> name.startsWith("nvidia-gpu-driver-"))
                .toList();
    }

    /** The names of the driver pods on a node that are not being deleted (any driver's). */
    private static List<String> driverPodNamesOn(String node) {
        return cluster.operandPodsOn(node).stream()
                .filter(
                        p ->
                                "nvidia-driver-daemonset"
                                        .equals(p.getMetadata().getLabels().get("app")))
                .filter(p -> p.getMetadata().getDeletionTimestamp() == null)
                .map(p -> p.getMetadata().getName())
                .toList();
    }

    private static int indexOf(List<String> list, java.util.function.Predicate<String> test) {
        for (int i = 0; i < list.size(); i++) {
            if (test.test(list.get(i))) {
                return i;
            }
        }
        return -1;
    }

    private static String kubectl(String... args) throws Exception {
        return Scenarios.kubectl(cluster, args);
    }

    /** Each node's driver pod uid. */
    private static Map<String, String> driverPodUids() {
        Map<String, String> out = new TreeMap<>();
        for (String n : NODES) {
            out.put(n, driverPod(n).orElseThrow().getMetadata().getUid());
        }
        return out;
    }

    private static boolean podReady(Pod p) {
        return p.getStatus() != null
                && p.getStatus().getConditions() != null
                && p.getStatus().getConditions().stream()
                        .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
    }

    /** The recorded cordons and uncordons of one node, in order, from index {@code from}. */
    private static List<String> cordonsOf(String node, int from) {
        synchronized (cordons) {
            return cordons.subList(from, cordons.size()).stream()
                    .filter(t -> t.startsWith(node + "="))
                    .map(t -> t.substring(node.length() + 1))
                    .toList();
        }
    }

    /**
     * A GPU workload pod on a node, created with kubectl as a user would and Running: from then on
     * a pod watch keeps every change that took it out of Running (another phase, being deleted or
     * deleted, its container restarted, replaced or not running). Closing it deletes the pod (not
     * waited for).
     */
    /**
     * Records, across the handover, whether the watched nodes were ever all without a Ready driver
     * pod at once (the driver pods of the operator's namespace, by node), and puts each driver
     * pod's deletion, on any node, in the timeline ({@code driver-deleted/<node>=<pod>}).
     */
    private static final class DriverReadiness implements Watcher<Pod>, AutoCloseable {
        private final List<String> nodes;
        private final Map<String, Map<String, Boolean>> readyByNode = new HashMap<>();
        private final List<String> allWithout = Collections.synchronizedList(new ArrayList<>());
        private Watch watch;

        private DriverReadiness(List<String> nodes) {
            this.nodes = nodes;
        }

        static DriverReadiness watch(List<String> nodes) {
            DriverReadiness r = new DriverReadiness(nodes);
            var pods =
                    client.pods()
                            .inNamespace(SimulatedCluster.NAMESPACE)
                            .withLabel("app", "nvidia-driver-daemonset");
            pods.list().getItems().forEach(p -> r.seen(p, false));
            r.watch = pods.watch(r);
            return r;
        }

        private synchronized void seen(Pod p, boolean deleted) {
            String node = p.getSpec() == null ? null : p.getSpec().getNodeName();
            if (node == null) {
                return;
            }
            boolean ready =
                    !deleted
                            && p.getMetadata().getDeletionTimestamp() == null
                            && p.getStatus() != null
                            && p.getStatus().getConditions() != null
                            && p.getStatus().getConditions().stream()
                                    .anyMatch(
                                            c ->
                                                    "Ready".equals(c.getType())
                                                            && "True".equals(c.getStatus()));
            Boolean was =
                    readyByNode
                            .computeIfAbsent(node, k -> new HashMap<>())
                            .put(p.getMetadata().getName(), ready);
            if (deleted && was != null) {
                transitions.add("driver-deleted/" + node + "=" + p.getMetadata().getName());
            }
            if (!nodes.contains(node)) {
                return;
            }
            boolean none =
                    nodes.stream()
                            .noneMatch(
                                    n ->
                                            readyByNode.getOrDefault(n, Map.of()).values().stream()
                                                    .anyMatch(Boolean::booleanValue));
            if (none) {
                allWithout.add(p.getMetadata().getName() + " " + (deleted ? "deleted" : "changed"));
            }
        }

        @Override
        public void eventReceived(Action action, Pod pod) {
            seen(pod, action == Action.DELETED);
        }

        @Override
        public void onClose(WatcherException cause) {
            if (cause != null) {
                allWithout.add("the watch closed: " + cause);
            }
        }

        @Override
        public void close() {
            watch.close();
        }
    }

    private static final class KeptRunning implements Watcher<Pod>, AutoCloseable {
        private final String name;
        private final String uid;
        private final String containerId;
        private final List<String> breaks = Collections.synchronizedList(new ArrayList<>());
        private Watch watch;

        private KeptRunning(String name, Pod running) {
            this.name = name;
            this.uid = running.getMetadata().getUid();
            this.containerId =
                    running.getStatus().getContainerStatuses().getFirst().getContainerID();
        }

        static KeptRunning start(String name, String node) throws Exception {
            Path manifest = cluster.workDir().resolve(name + ".yaml");
            Files.writeString(
                    manifest,
                    """
                    apiVersion: v1
                    kind: Pod
                    metadata:
                      name: %s
                      namespace: default
                      labels:
                        gpu-keep: %s
                    spec:
                      nodeName: %s
                      runtimeClassName: nvidia
                      terminationGracePeriodSeconds: 2
                      containers:
                      - name: main
                        image: %s
                        command: ["sh", "-c", "nvidia-smi -L; exec sleep 3600"]
                        resources:
                          limits:
                            nvidia.com/gpu: 1
                    """
                            .formatted(name, name, node, Workloads.IMAGE));
            kubectl("apply", "-f", manifest.toString());
            Scenarios.kubectlTimed(
                    cluster,
                    100,
                    "wait",
                    "-n",
                    "default",
                    "--for=condition=Ready",
                    "pod/" + name,
                    "--timeout=90s");
            KeptRunning kept =
                    new KeptRunning(
                            name, client.pods().inNamespace("default").withName(name).get());
            kept.watch =
                    client.pods().inNamespace("default").withLabel("gpu-keep", name).watch(kept);
            return kept;
        }

        /**
         * Why the pod is not as it was started (null: it is): same pod, Running, same container.
         */
        private String why(Pod p) {
            if (!uid.equals(p.getMetadata().getUid())) {
                return "another pod " + p.getMetadata().getUid();
            }
            if (p.getMetadata().getDeletionTimestamp() != null) {
                return "being deleted";
            }
            if (p.getStatus() == null || !"Running".equals(p.getStatus().getPhase())) {
                return "phase " + (p.getStatus() == null ? null : p.getStatus().getPhase());
            }
            var c = p.getStatus().getContainerStatuses().getFirst();
            if (c.getState() == null || c.getState().getRunning() == null) {
                return "container not running: " + c.getState();
            }
            if (!containerId.equals(c.getContainerID()) || Scenarios.restarts(p) != 0) {
                return "container " + c.getContainerID() + ", restarts " + Scenarios.restarts(p);
            }
            return null;
        }

        @Override
        public void eventReceived(Action action, Pod pod) {
            String why = action == Action.DELETED ? "deleted" : why(pod);
            if (why != null) {
                breaks.add(action + ": " + why);
            }
        }

        @Override
        public void onClose(WatcherException cause) {
            if (cause != null) {
                breaks.add("the watch closed: " + cause);
            }
        }

        /**
         * The pod was never out of Running, is Running now, and its container runs commands with
         * its GPU (kubectl exec).
         */
        void assertKeptRunning() throws Exception {
            assertThat(breaks).as("what took %s out of Running", name).isEmpty();
            Pod now = client.pods().inNamespace("default").withName(name).get();
            assertThat(now).as(name).isNotNull();
            assertThat(why(now)).as(name).isNull();
            assertThat(kubectl("exec", "-n", "default", name, "--", "nvidia-smi", "-L"))
                    .as("nvidia-smi in %s", name)
                    .startsWith("GPU ");
        }

        @Override
        public void close() throws Exception {
            watch.close();
            kubectl("delete", "pod", "-n", "default", name, "--wait=false");
        }
    }

    private static NVIDIADriver nvidiaDriver(
            String name, Map<String, String> selector, String version) {
        NVIDIADriver d = new NVIDIADriver();
        d.setMetadata(
                new io.fabric8.kubernetes.api.model.ObjectMetaBuilder().withName(name).build());
        NVIDIADriverSpec spec = new NVIDIADriverSpec();
        spec.setNodeSelector(selector);
        spec.setVersion(version);
        d.setSpec(spec);
        return d;
    }

    private static NVIDIADriver nvidiaDriverObject(String name) {
        return client.resources(NVIDIADriver.class).withName(name).get();
    }

    private static String nvidiaDriverState(String name) {
        NVIDIADriver d = nvidiaDriverObject(name);
        return d.getStatus() == null || d.getStatus().getState() == null
                ? null
                : Serialization.asJson(d.getStatus().getState()).replace("\"", "");
    }

    private static List<io.fabric8.kubernetes.api.model.Condition> nvidiaDriverConditions(
            String name) {
        NVIDIADriver d = nvidiaDriverObject(name);
        return d.getStatus() == null || d.getStatus().getConditions() == null
                ? List.of()
                : d.getStatus().getConditions();
    }

    /**
     * {@code operator-controller plan} against this cluster, through its kubeconfig, as an admin
     * runs it: it exits 0 and changes nothing. Returns what it printed.
     */
    private String plan(String... args) throws Exception {
        Map<String, String> before = plannedObjects();
        List<String> command =
                new ArrayList<>(
                        List.of(
                                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                                "-cp",
                                System.getProperty("java.class.path"),
                                "org.gpuoperator.controller.ControllerMain",
                                "plan"));
        command.addAll(List.of(args));
        ProcessBuilder plan = new ProcessBuilder(command).redirectErrorStream(true);
        plan.environment().put("KUBECONFIG", cluster.api().kubeconfig().toString());
        Process running = plan.start();
        running.getOutputStream().close();
        String out = new String(running.getInputStream().readAllBytes());
        assertThat(running.waitFor(2, TimeUnit.MINUTES)).isTrue();
        System.out.println("  plan:\n" + out.indent(4));
        assertThat(running.exitValue()).as(out).isZero();
        assertThat(plannedObjects()).as("plan wrote nothing").isEqualTo(before);
        return out;
    }

    /** The ClusterPolicy as it is now, its spec edited, as a file for plan. */
    private static Path policyFile(String name, Consumer<Map<String, Object>> edit)
            throws Exception {
        GenericKubernetesResource current =
                client.genericKubernetesResources(SimulatedCluster.CLUSTER_POLICIES)
                        .withName(POLICY)
                        .get();
        edit.accept(Scenarios.spec(current));
        return resourcesFile(name, List.of(current));
    }

    /** The cluster's NVIDIADrivers as they are now, one's spec edited, as a file for plan. */
    private static Path nvidiaDriversFile(
            String name, String driver, Consumer<Map<String, Object>> edit) throws Exception {
        List<GenericKubernetesResource> drivers =
                client.genericKubernetesResources(
                                ResourceDefinitionContext.fromResourceType(NVIDIADriver.class))
                        .list()
                        .getItems();
        drivers.stream()
                .filter(d -> d.getMetadata().getName().equals(driver))
                .findFirst()
                .ifPresentOrElse(
                        d -> edit.accept(Scenarios.spec(d)),
                        () -> {
                            throw new AssertionError("no NVIDIADriver " + driver);
                        });
        return resourcesFile(name, drivers);
    }

    /** Objects as a user writes them (no server fields, no status), a multi-document YAML file. */
    private static Path resourcesFile(String name, List<GenericKubernetesResource> objects)
            throws Exception {
        StringBuilder yaml = new StringBuilder();
        for (GenericKubernetesResource o : objects) {
            o.getMetadata().setResourceVersion(null);
            o.getMetadata().setUid(null);
            o.getMetadata().setManagedFields(null);
            o.getMetadata().setGeneration(null);
            o.getMetadata().setCreationTimestamp(null);
            o.getAdditionalProperties().remove("status");
            String doc = Serialization.asYaml(o);
            yaml.append(doc.startsWith("---") ? "" : "---\n").append(doc);
        }
        Path file = cluster.workDir().resolve(name);
        Files.writeString(file, yaml);
        return file;
    }

    /** One node's block of plan's "Nodes:" list: its line and the indented lines under it. */
    private static String planOf(String plan, String node) {
        List<String> lines = plan.lines().toList();
        int at = lines.indexOf("  " + node + ":");
        assertThat(at).as("%s in the plan", node).isNotNegative();
        StringBuilder block = new StringBuilder(lines.get(at)).append('\n');
        for (int i = at + 1; i < lines.size() && lines.get(i).startsWith("    "); i++) {
            block.append(lines.get(i)).append('\n');
        }
        return block.toString();
    }

    /** What plan must not change: the nodes' labels and cordon, the policy's generation. */
    private Map<String, String> plannedObjects() {
        Map<String, String> out = new TreeMap<>();
        for (Node n : client.nodes().list().getItems()) {
            Map<String, String> labels = new TreeMap<>(n.getMetadata().getLabels());
            labels.remove("nvidia.com/gfd.timestamp"); // feature discovery's, on its restarts
            out.put(
                    "node/" + n.getMetadata().getName(),
                    labels
                            + " unschedulable="
                            + (n.getSpec() == null ? null : n.getSpec().getUnschedulable()));
        }
        out.put(
                "policy generation",
                String.valueOf(
                        client.genericKubernetesResources(SimulatedCluster.CLUSTER_POLICIES)
                                .withName(POLICY)
                                .get()
                                .getMetadata()
                                .getGeneration()));
        return out;
    }
}
