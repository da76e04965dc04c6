package org.gpuoperator.controller.reconcile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.gpuoperator.controller.metrics.OperatorMetrics;
import org.gpuoperator.controller.nvidiadriver.DriverPools;
import org.gpuoperator.controller.nvidiadriver.DriverRouting;
import org.gpuoperator.controller.nvidiadriver.DriverSelector;
import org.gpuoperator.controller.nvidiadriver.NodeOs;
import org.gpuoperator.controller.operand.Operand;
import org.gpuoperator.controller.operand.PodContract;
import org.gpuoperator.controller.status.ClusterRollup;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The rollout re-plans only the nodes whose labels or operand pods changed; all of them only when
 * what every plan depends on changes. Caches and the patcher are in-memory fakes that behave like
 * an informer fed by the API server: a patch bumps the node's resourceVersion, as the watch event
 * would.
 */
class NodeRolloutTest {

    private static final String SIM = "gpuoperator.org/simulated-gpu";
    private static final Set<Operand> ALL = EnumSet.allOf(Operand.class);

    private final Map<String, Node> nodes = new TreeMap<>();
    private final Map<String, List<Pod>> pods = new HashMap<>();
    private final List<String> patched = new ArrayList<>();
    private final MutableClock clock = new MutableClock();
    private String failPatchOn;
    private OperatorMetrics metrics;
    private NodeRollout rollout;

    @BeforeEach
    void setUp() {
        metrics = new OperatorMetrics(new PrometheusRegistry());
        NodeRollout.Caches caches =
                new NodeRollout.Caches() {
                    @Override
                    public Stream<Node> nodes() {
                        return List.copyOf(nodes.values()).stream();
                    }

                    @Override
                    public Optional<Node> node(String name) {
                        return Optional.ofNullable(nodes.get(name));
                    }

                    @Override
                    public List<Pod> operandPodsOn(String node) {
                        return pods.getOrDefault(node, List.of());
                    }

                    @Override
                    public Stream<Pod> operandPods() {
                        return pods.values().stream().flatMap(List::stream).toList().stream();
                    }
                };
        rollout = new NodeRollout(this::patch, caches, metrics, clock);
        for (int i = 0; i < 10; i++) {
            addNode("gpu-" + i, Map.of(SIM, "true"));
        }
        addNode("cpu-0", Map.of());
    }

    private Map<String, String> patch(String name, List<Map<String, Object>> ops) {
        if (name.equals(failPatchOn)) {
            throw new IllegalStateException("conflict on " + name);
        }
        patched.add(name);
        Node node = nodes.get(name);
        Map<String, String> labels = new HashMap<>(node.getMetadata().getLabels());
        for (Map<String, Object> op : ops) {
            String key =
                    ((String) op.get("path"))
                            .substring("/metadata/labels/".length())
                            .replace("~1", "/");
            switch ((String) op.get("op")) {
                case "add", "replace" -> labels.put(key, (String) op.get("value"));
                case "remove" -> labels.remove(key);
                default -> {}
            }
        }
        addNode(name, labels);
        return labels;
    }

    private void addNode(String name, Map<String, String> labels) {
        Node old = nodes.get(name);
        long version = old == null ? 1 : Long.parseLong(old.getMetadata().getResourceVersion()) + 1;
        nodes.put(
                name,
                new NodeBuilder()
                        .withNewMetadata()
                        .withName(name)
                        .withLabels(labels)
                        .withResourceVersion(Long.toString(version))
                        .endMetadata()
                        .build());
    }

    private void readyPod(String node, Operand operand) {
        pods.computeIfAbsent(node, n -> new ArrayList<>())
                .add(
                        new PodBuilder()
                                .withNewMetadata()
                                .withName(operand.daemonSetName() + "-" + node)
                                .withLabels(Map.of(PodContract.APP_NAME_LABEL, operand.module()))
                                .endMetadata()
                                .withNewSpec()
                                .withNodeName(node)
                                .endSpec()
                                .withNewStatus()
                                .addNewCondition()
                                .withType("Ready")
                                .withStatus("True")
                                .endCondition()
                                .endStatus()
                                .build());
    }

    private static NodeRollout.Inputs inputs(Set<Operand> enabled) {
        return new NodeRollout.Inputs("uid-1", enabled, SIM, Map.of(), null);
    }

    private ClusterRollup pass(Set<Operand> enabled) {
        patched.clear();
        long before = metrics.gateEvaluations();
        ClusterRollup rollup = rollout.pass(inputs(enabled));
        lastEvaluations = metrics.gateEvaluations() - before;
        return rollup;
    }

    private long lastEvaluations;

    private String label(String node, Operand operand) {
        return nodes.get(node).getMetadata().getLabels().get(operand.deployLabel());
    }

    @Test
    void theFirstPassPlansEveryNodeThenOnlyChangedNodesAreReplanned() {
        ClusterRollup rollup = pass(ALL);
        assertThat(lastEvaluations).isEqualTo(11);
        assertThat(patched).hasSize(10).doesNotContain("cpu-0");
        assertThat(rollup.gpuNodes()).isEqualTo(10);
        assertThat(rollup.stuckTotal()).isEqualTo(10);

        // our own patches came back as events: re-planned once each, nothing more written
        pass(ALL);
        assertThat(lastEvaluations).isEqualTo(10);
        assertThat(patched).isEmpty();

        pass(ALL);
        assertThat(lastEvaluations).isZero();

        readyPod("gpu-3", Operand.DRIVER);
        rollup = pass(ALL);
        assertThat(lastEvaluations).isEqualTo(1);
        assertThat(patched).containsExactly("gpu-3");
        assertThat(label("gpu-3", Operand.CONTAINER_TOOLKIT)).isEqualTo("true");
        assertThat(label("gpu-4", Operand.CONTAINER_TOOLKIT)).isNull();
        assertThat(rollup.readyPods(Operand.DRIVER)).isEqualTo(1);
        assertThat(rollup.desired(Operand.CONTAINER_TOOLKIT)).isEqualTo(1);
        assertThat(rollup.firstStuck(20))
                .filteredOn(s -> s.name().equals("gpu-3"))
                .singleElement()
                .satisfies(s -> assertThat(s.stuckAt()).isEqualTo(Operand.CONTAINER_TOOLKIT));
    }

    @Test
    void whatEveryPlanDependsOnChangingReplansAllNodes() {
        pass(ALL);
        pass(ALL);
        Set<Operand> noExporter = EnumSet.complementOf(EnumSet.of(Operand.DCGM_EXPORTER));
        pass(noExporter);
        assertThat(lastEvaluations).isEqualTo(11);
        pass(noExporter);
        assertThat(lastEvaluations).isZero();
        rollout.pass(new NodeRollout.Inputs("uid-2", noExporter, SIM, Map.of(), null));
        assertThat(metrics.gateEvaluations()).isEqualTo(11 + 10 + 11 + 11);
    }

    @Test
    void aDeletedNodeLeavesTheFigures() {
        pass(ALL);
        nodes.remove("gpu-0");
        ClusterRollup rollup = pass(ALL);
        assertThat(rollup.gpuNodes()).isEqualTo(9);
        assertThat(rollup.nodeNames()).doesNotContain("gpu-0");
    }

    @Test
    void aFailedPatchLeavesTheUnfinishedNodesForTheRetry() {
        pass(ALL);
        pass(ALL);
        readyPod("gpu-1", Operand.DRIVER);
        readyPod("gpu-2", Operand.DRIVER);
        readyPod("gpu-3", Operand.DRIVER);
        failPatchOn = "gpu-2";
        assertThatThrownBy(() -> pass(ALL)).hasMessageContaining("gpu-2");
        failPatchOn = null;
        pass(ALL);
        assertThat(label("gpu-1", Operand.CONTAINER_TOOLKIT)).isEqualTo("true");
        assertThat(label("gpu-2", Operand.CONTAINER_TOOLKIT)).isEqualTo("true");
        assertThat(label("gpu-3", Operand.CONTAINER_TOOLKIT)).isEqualTo("true");
    }

    @Test
    void aFullPassRunsAgainAfterTheSafetyInterval() {
        pass(ALL);
        pass(ALL);
        clock.advance(NodeRollout.FULL_PASS_INTERVAL.plusSeconds(1));
        pass(ALL);
        assertThat(lastEvaluations).isEqualTo(11);
    }

    @Test
    void deletingThePolicyTakesOurLabelsOffAndTheNextPolicyStartsFromAllNodes() {
        pass(ALL);
        pass(ALL);
        rollout.removeOurLabels();
        assertThat(nodes.values())
                .allSatisfy(
                        n ->
                                assertThat(n.getMetadata().getLabels().keySet())
                                        .noneMatch(k -> k.startsWith("nvidia.com/")));
        pass(ALL);
        assertThat(lastEvaluations).isEqualTo(11);
    }

    @Test
    void inNvidiaDriverModeEachGpuNodeGetsItsPoolLabelInItsOnePatchAndNoWriteWhenUnchanged() {
        addNode("gpu-0", Map.of(SIM, "true", "pool", "a"));
        addNode("gpu-1", Map.of(SIM, "true", "pool", "a", "zone", "x"));
        addNode("cpu-0", Map.of("pool", "a"));
        DriverRouting routing =
                new DriverRouting(
                        List.of(
                                new DriverSelector("a-driver", false, Map.of("pool", "a")),
                                new DriverSelector("z-driver", false, Map.of("zone", "x"))),
                        Map.of());
        NodeRollout.Inputs inputs =
                new NodeRollout.Inputs("uid-1", ALL, SIM, Map.of(), null, false, routing);

        rollout.pass(inputs);

        String pool = nodes.get("gpu-0").getMetadata().getLabels().get(DriverPools.POOL_LABEL);
        assertThat(pool).isEqualTo("a-driver-unknown");
        assertThat(nodes.get("gpu-0").getMetadata().getLabels())
                .as("upstream's owner label, in the same patch")
                .containsEntry(DriverPools.OWNER_LABEL, "a-driver");
        assertThat(nodes.get("gpu-1").getMetadata().getLabels())
                .as("contested: no pool, no owner")
                .doesNotContainKeys(DriverPools.POOL_LABEL, DriverPools.OWNER_LABEL);
        assertThat(nodes.get("cpu-0").getMetadata().getLabels())
                .as("not a GPU node")
                .doesNotContainKeys(DriverPools.POOL_LABEL, DriverPools.OWNER_LABEL);
        assertThat(patched).as("one patch per GPU node").containsOnlyOnce("gpu-0", "gpu-1");

        patched.clear();
        clock.advance(NodeRollout.FULL_PASS_INTERVAL.plusSeconds(1));
        rollout.pass(inputs);
        assertThat(patched).as("nothing changed: no write").isEmpty();

        // the mode off: the label comes off
        rollout.pass(new NodeRollout.Inputs("uid-1", ALL, SIM, Map.of(), null, false, null));
        assertThat(nodes.get("gpu-0").getMetadata().getLabels())
                .doesNotContainKeys(DriverPools.POOL_LABEL, DriverPools.OWNER_LABEL);
        assertThat(patched).containsExactly("gpu-0");
    }

    @Test
    void aContestedNodeKeepsItsOwnerLabelWithItsPoolAndAWrongOneIsCorrected() {
        DriverSelector a = new DriverSelector("a-driver", false, Map.of("pool", "a"));
        String poolA = DriverPools.poolId("a-driver", NodeOs.of(nodes.get("gpu-0")));
        // gpu-0 was a's and is now contested; gpu-2 carries another driver's owner label
        addNode(
                "gpu-0",
                Map.of(
                        SIM,
                        "true",
                        "pool",
                        "a",
                        "zone",
                        "x",
                        DriverPools.POOL_LABEL,
                        poolA,
                        DriverPools.OWNER_LABEL,
                        "a-driver"));
        addNode("gpu-2", Map.of(SIM, "true", "pool", "a", DriverPools.OWNER_LABEL, "z-driver"));
        DriverRouting routing =
                new DriverRouting(
                        List.of(a, new DriverSelector("z-driver", false, Map.of("zone", "x"))),
                        Map.of(),
                        Map.of(poolA, "a-driver"));

        rollout.pass(new NodeRollout.Inputs("uid-1", ALL, SIM, Map.of(), null, false, routing));

        assertThat(nodes.get("gpu-0").getMetadata().getLabels())
                .containsEntry(DriverPools.POOL_LABEL, poolA)
                .containsEntry(DriverPools.OWNER_LABEL, "a-driver");
        assertThat(nodes.get("gpu-2").getMetadata().getLabels())
                .containsEntry(DriverPools.OWNER_LABEL, "a-driver");
        assertThat(patched).containsOnlyOnce("gpu-2");
    }

    @Test
    void thePluginsConfigReportIsReadOnlyWhileThePolicyNamesDevicePluginConfig() {
        Node n = nodes.get("gpu-1");
        nodes.put(
                "gpu-1",
                new NodeBuilder(n)
                        .editMetadata()
                        .addToAnnotations("nvidia.com/device-plugin.config.applied", "ts-4")
                        .withResourceVersion("100")
                        .endMetadata()
                        .build());
        ClusterRollup with =
                rollout.pass(
                        new NodeRollout.Inputs(
                                "uid-1", ALL, SIM, Map.of(), null, false, null, true));
        assertThat(with.pluginConfigs()).containsExactly(Map.entry("ts-4", 1));
        // devicePlugin.config removed: the annotation is an earlier policy's, not in the status
        ClusterRollup without =
                rollout.pass(
                        new NodeRollout.Inputs("uid-1", ALL, SIM, Map.of(), null, false, null));
        assertThat(without.pluginConfigs()).isEmpty();
    }
}
