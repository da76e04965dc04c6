package org.gpuoperator.controller.plan;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.gpuoperator.api.v1.ClusterPolicy;
import org.gpuoperator.api.v1.ClusterPolicySpec;
import org.gpuoperator.controller.cli.RenderedPolicy;
import org.gpuoperator.controller.matrix.VersionMatrix;
import org.gpuoperator.controller.operand.Operand;
import org.gpuoperator.controller.operand.PodContract;
import org.gpuoperator.controller.plan.RolloutPlan.Change;
import org.gpuoperator.controller.plan.RolloutPlan.NodeEntry;
import org.junit.jupiter.api.Test;

/** The planner alone: rendered policies, nodes and pods in, the plan out. */
class PlanRolloutPlannerTest {

    private static ClusterPolicySpec spec(String driverVersion, String extraDriver) {
        String yaml = PlanFixtures.policy(driverVersion, extraDriver);
        return Serialization.unmarshal(yaml, ClusterPolicy.class).getSpec();
    }

    private static RolloutPlanner.Side side(ClusterPolicySpec spec, List<Node> nodes) {
        RenderedPolicy r = RenderedPolicy.of(spec, nodes, "gpu-operator", Map.of());
        assertThat(r.errors()).isEmpty();
        return new RolloutPlanner.Side(spec, r.settings(), r.desired());
    }

    private static Node gpuNode(String name, Map<String, String> extra, boolean ready) {
        return new NodeBuilder()
                .withNewMetadata()
                .withName(name)
                .addToLabels("feature.node.kubernetes.io/pci-10de.present", "true")
                .addToLabels(Operand.DRIVER.deployLabel(), "true")
                .addToLabels(extra)
                .endMetadata()
                .withNewStatus()
                .addNewCondition()
                .withType("Ready")
                .withStatus(ready ? "True" : "False")
                .endCondition()
                .endStatus()
                .build();
    }

    private static RolloutPlan plan(
            Optional<ClusterPolicySpec> current,
            ClusterPolicySpec next,
            List<Node> nodes,
            List<Pod> pods) {
        return RolloutPlanner.plan(
                new RolloutPlanner.Input(
                        current.map(c -> side(c, nodes)),
                        side(next, nodes),
                        nodes,
                        pods,
                        VersionMatrix.load(),
                        List.of(),
                        null));
    }

    private static NodeEntry node(RolloutPlan plan, String name) {
        return plan.nodes().stream().filter(n -> n.name().equals(name)).findFirst().orElseThrow();
    }

    private static Pod operandPod(Operand o, String node, String hash) {
        return new PodBuilder()
                .withNewMetadata()
                .withNamespace("gpu-operator")
                .withName(o.module() + "-" + node)
                .addToLabels(PodContract.APP_NAME_LABEL, o.module())
                .addToLabels(PodContract.MANAGED_BY_LABEL, PodContract.MANAGED_BY)
                .addToAnnotations(PodContract.TEMPLATE_HASH_ANNOTATION, hash)
                .endMetadata()
                .withNewSpec()
                .withNodeName(node)
                .endSpec()
                .build();
    }

    @Test
    void aDriverChangeThatLeavesItsConfigurationDigestTakesTheRestartOnlyPath() {
        List<Node> nodes = List.of(gpuNode("a", Map.of(), true), gpuNode("b", Map.of(), true));
        ClusterPolicySpec current = spec("580.65.06", "");
        // the driver container's resources: not part of what installs the driver
        ClusterPolicySpec next = spec("580.65.06", "resources:\n  limits:\n    memory: 2Gi");
        String running = side(current, nodes).desired().templateHashes().get(Operand.DRIVER);
        Pod train =
                new PodBuilder()
                        .withNewMetadata()
                        .withNamespace("work")
                        .withName("train")
                        .addNewOwnerReference()
                        .withKind("Job")
                        .withName("j")
                        .withController(true)
                        .endOwnerReference()
                        .endMetadata()
                        .withNewSpec()
                        .withNodeName("a")
                        .addNewContainer()
                        .withName("c")
                        .withNewResources()
                        .addToLimits(
                                "nvidia.com/gpu", new io.fabric8.kubernetes.api.model.Quantity("1"))
                        .endResources()
                        .endContainer()
                        .endSpec()
                        .build();
        List<Pod> pods =
                List.of(
                        operandPod(Operand.DRIVER, "a", running),
                        train,
                        // made by an earlier version: no digest to compare
                        operandPod(Operand.DRIVER, "b", "0123456789abcdef"));
        RolloutPlan p = plan(Optional.of(current), next, nodes, pods);
        NodeEntry a = node(p, "a");
        assertThat(a.driverRestart()).isTrue();
        assertThat(a.driverRestartOnly()).isTrue();
        assertThat(a.evicts()).isEmpty();
        assertThat(a.driverUnload()).isNull();
        assertThat(a.restarts()).noneMatch(r -> r.contains("paused"));
        assertThat(node(p, "b").driverRestartOnly()).isFalse();
        assertThat(p.text())
                .contains(
                        "  a:\n"
                                + "    restarts: driver-agent-a\n"
                                + "    driver unload: no\n"
                                + "    driver path: restart only (driver configuration unchanged:"
                                + " cordon, driver pod replaced, nothing evicted)\n"
                                + "    evicts: none\n")
                .contains(
                        "    driver path: full (cordon, wait for jobs, evict, driver"
                                + " restarted)\n");
    }

    @Test
    void aKernelModuleTypeChangeUnloadsTheDriverAtTheSameVersion() {
        List<Node> nodes = List.of(gpuNode("a", Map.of(), true));
        RolloutPlan p =
                plan(
                        Optional.of(spec("580.65.06", "")),
                        spec("580.65.06", "kernelModuleType: open"),
                        nodes,
                        List.of());
        assertThat(p.driverUnload()).contains("kernel module type auto -> open");
    }

    @Test
    void aDevicePluginChangeRollsItsPodsAndLeavesTheDriverAlone() {
        Map<String, String> plugin = Map.of(Operand.DEVICE_PLUGIN.deployLabel(), "true");
        List<Node> nodes = List.of(gpuNode("a", plugin, true));
        ClusterPolicySpec current = spec("580.65.06", "");
        ClusterPolicySpec next = spec("580.65.06", "");
        next.getDevicePlugin().setArgs(List.of("--fail-on-init-error=false"));
        RolloutPlan p = plan(Optional.of(current), next, nodes, List.of());
        RolloutPlan.OperandChange dp =
                p.operands().stream()
                        .filter(c -> c.operand() == Operand.DEVICE_PLUGIN)
                        .findFirst()
                        .orElseThrow();
        assertThat(dp.change()).isEqualTo(Change.CHANGED);
        assertThat(dp.paths()).containsExactly("spec.containers[device-plugin].args");
        assertThat(dp.rollout()).isEqualTo("rolling restart on every node (maxUnavailable 1)");
        assertThat(p.driverUnload()).isEmpty();
        NodeEntry a = node(p, "a");
        assertThat(a.restarts()).containsExactly("nvidia-device-plugin-daemonset pod");
        assertThat(a.driverRestart()).isFalse();
        assertThat(p.batches()).isEmpty();
    }

    @Test
    void withoutACurrentPolicyEachPodIsComparedByItsTemplateHash() {
        List<Node> nodes = List.of(gpuNode("a", Map.of(), true));
        ClusterPolicySpec next = spec("580.65.06", "");
        String driverHash = side(next, nodes).desired().templateHashes().get(Operand.DRIVER);
        List<Pod> pods =
                List.of(
                        operandPod(Operand.DRIVER, "a", driverHash),
                        operandPod(Operand.DEVICE_PLUGIN, "a", "an-older-template"));
        RolloutPlan p = plan(Optional.empty(), next, nodes, pods);
        assertThat(node(p, "a").restarts()).containsExactly("device-plugin-a");
        assertThat(node(p, "a").driverRestart()).isFalse();
        assertThat(p.notes()).anySatisfy(n -> assertThat(n).startsWith("no current policy"));
    }

    @Test
    void aDriverRestartAlsoRestartsTheOperandsThatUseTheDriverButNotTheToolkit() {
        List<Node> nodes = List.of(gpuNode("a", Map.of(), true));
        ClusterPolicySpec next = spec("580.65.06", "");
        Map<Operand, String> hashes = side(next, nodes).desired().templateHashes();
        List<Pod> pods =
                List.of(
                        operandPod(Operand.DRIVER, "a", "an-older-template"),
                        operandPod(
                                Operand.CONTAINER_TOOLKIT,
                                "a",
                                hashes.get(Operand.CONTAINER_TOOLKIT)),
                        operandPod(Operand.DEVICE_PLUGIN, "a", hashes.get(Operand.DEVICE_PLUGIN)),
                        operandPod(
                                Operand.GPU_FEATURE_DISCOVERY,
                                "a",
                                hashes.get(Operand.GPU_FEATURE_DISCOVERY)));
        NodeEntry a = node(plan(Optional.empty(), next, nodes, pods), "a");
        assertThat(a.driverRestart()).isTrue();
        assertThat(a.restarts())
                .containsExactly(
                        "driver-agent-a",
                        "device-plugin-a (paused until the new driver is Ready)",
                        "feature-discovery-a (paused until the new driver is Ready)");
    }

    @Test
    void aNodeAlreadyOnTheTargetVersionRestartsWithoutUnloading() {
        // a rollback after a partial rollout: b never left the previous version
        List<Node> nodes =
                List.of(
                        gpuNode(
                                "a",
                                Map.of("nvidia.com/cuda.driver-version.full", "580.65.06"),
                                true),
                        gpuNode(
                                "b",
                                Map.of("nvidia.com/cuda.driver-version.full", "570.172.08"),
                                true));
        RolloutPlan p =
                plan(Optional.of(spec("580.65.06", "")), spec("570.172.08", ""), nodes, List.of());
        assertThat(node(p, "a").driverUnload()).isEqualTo("driver version 580.65.06 -> 570.172.08");
        assertThat(node(p, "b").driverUnload()).isNull();
        assertThat(node(p, "b").driverRestart()).isTrue();
    }

    @Test
    void skippedAndNotReadyNodesAreNotStartedAndSaySo() {
        List<Node> nodes =
                List.of(
                        gpuNode("a", Map.of("nvidia.com/gpu-driver-upgrade.skip", "true"), true),
                        gpuNode("b", Map.of(), false),
                        gpuNode("c", Map.of(), true),
                        gpuNode("d", Map.of(Operand.DRIVER.deployLabel(), "pre-installed"), true));
        RolloutPlan p =
                plan(
                        Optional.of(spec("570.172.08", "")),
                        spec(
                                "580.65.06",
                                "upgradePolicy:\n  maxParallelUpgrades: 0\n  maxUnavailable: 100%"),
                        nodes,
                        List.of());
        assertThat(p.batches()).containsExactly(List.of("c"));
        assertThat(p.notStarted())
                .containsExactly(
                        "node a: upgrade-required: skipped: label"
                                + " nvidia.com/gpu-driver-upgrade.skip=true",
                        "node b: upgrade-required: NotReady: not started until Ready");
        assertThat(node(p, "d").driverRestart()).as("a host driver is not ours").isFalse();
    }

    @Test
    void batchesFollowMaxParallelAndMaxUnavailable() {
        List<Node> nodes =
                List.of(
                        gpuNode("a", Map.of(), true),
                        gpuNode("b", Map.of(), true),
                        gpuNode("c", Map.of(), true),
                        gpuNode("d", Map.of(), true),
                        gpuNode("e", Map.of(), true));
        RolloutPlan p =
                plan(
                        Optional.of(spec("570.172.08", "")),
                        spec(
                                "580.65.06",
                                "upgradePolicy:\n  maxParallelUpgrades: 3\n  maxUnavailable: 40%"),
                        nodes,
                        List.of());
        assertThat(p.batches()).containsExactly(List.of("a", "b"), List.of("c", "d"), List.of("e"));
        assertThat(p.budget())
                .isEqualTo("maxParallelUpgrades 3, maxUnavailable 40% = 2 of 5 nodes");
    }

    @Test
    void thePodsOfTheNodeAreEvictedOrWaitedForAsThePolicySays() {
        List<Node> nodes = List.of(gpuNode("a", Map.of(), true));
        Pod job =
                new PodBuilder()
                        .withNewMetadata()
                        .withNamespace("work")
                        .withName("job")
                        .addToLabels("kind", "batch")
                        .addNewOwnerReference()
                        .withKind("Job")
                        .withName("j")
                        .withController(true)
                        .endOwnerReference()
                        .endMetadata()
                        .withNewSpec()
                        .withNodeName("a")
                        .addNewContainer()
                        .withName("c")
                        .withNewResources()
                        .addToLimits(
                                "nvidia.com/gpu", new io.fabric8.kubernetes.api.model.Quantity("1"))
                        .endResources()
                        .endContainer()
                        .endSpec()
                        .build();
        RolloutPlan p =
                plan(
                        Optional.of(spec("570.172.08", "")),
                        spec(
                                "580.65.06",
                                "upgradePolicy:\n  waitForCompletion:\n    podSelector: kind=batch"),
                        nodes,
                        List.of(job));
        assertThat(node(p, "a").waitsFor()).containsExactly("work/job");
        assertThat(node(p, "a").evicts()).containsExactly("work/job");
    }

    /**
     * The device plugin's MPS control daemon is ours: its pod is no workload the upgrade waits for
     * or evicts, and the device plugin's change is its own DaemonSet's.
     */
    @Test
    void theMpsControlDaemonsPodIsNoWorkloadAndTheDevicePluginIsJudgedByItsOwnDaemonSet() {
        List<Node> nodes =
                List.of(gpuNode("a", Map.of(Operand.DEVICE_PLUGIN.deployLabel(), "true"), true));
        Pod daemon =
                new PodBuilder()
                        .withNewMetadata()
                        .withNamespace("gpu-operator")
                        .withName("nvidia-device-plugin-mps-control-daemon-x")
                        .addToLabels("app", "nvidia-device-plugin-mps-control-daemon")
                        .addToLabels(PodContract.APP_NAME_LABEL, "mps-control-daemon")
                        .addToLabels(PodContract.MANAGED_BY_LABEL, PodContract.MANAGED_BY)
                        .endMetadata()
                        .withNewSpec()
                        .withNodeName("a")
                        .endSpec()
                        .build();
        ClusterPolicySpec next =
                spec(
                        "580.65.06",
                        "upgradePolicy:\n  waitForCompletion:\n    podSelector:"
                                + " app=nvidia-device-plugin-mps-control-daemon");
        RolloutPlan p = plan(Optional.of(spec("570.172.08", "")), next, nodes, List.of(daemon));
        assertThat(node(p, "a").driverRestart()).isTrue();
        assertThat(node(p, "a").waitsFor()).isEmpty();
        assertThat(node(p, "a").evicts()).isEmpty();

        // the MPS root changes both DaemonSets; the plan shows the plugin's own change
        ClusterPolicySpec moved = spec("580.65.06", "");
        org.gpuoperator.api.v1.MpsSpec mps = new org.gpuoperator.api.v1.MpsSpec();
        mps.setRoot("/var/run/mps");
        moved.getDevicePlugin().setMps(mps);
        RolloutPlan q = plan(Optional.of(spec("580.65.06", "")), moved, nodes, List.of());
        RolloutPlan.OperandChange dp =
                q.operands().stream()
                        .filter(c -> c.operand() == Operand.DEVICE_PLUGIN)
                        .findFirst()
                        .orElseThrow();
        assertThat(dp.change()).isEqualTo(Change.CHANGED);
        assertThat(dp.paths()).allMatch(path -> !path.contains("mps-control-daemon"));
        assertThat(dp.paths()).anyMatch(path -> path.contains("device-plugin"));
    }
}
