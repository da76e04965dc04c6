package org.gpuoperator.controller.upgrade;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import org.gpuoperator.api.common.DriverUpgradePolicySpec;
import org.gpuoperator.api.common.WaitForCompletionSpec;
import org.gpuoperator.controller.operand.PodContract;
import org.gpuoperator.controller.upgrade.UpgradeAction.DeleteDriverPod;
import org.gpuoperator.controller.upgrade.UpgradeAction.EvictPod;
import org.gpuoperator.controller.upgrade.UpgradeAction.SetLabel;
import org.junit.jupiter.api.Test;

/** Upstream's restart-only path: the driver configuration digest unchanged, nothing evicted. */
class UpgradeRestartOnlyTest {

    private static final String NEW = "580.65.06";

    private final UpgradeWorld world = new UpgradeWorld();

    /** A node on NEW whose driver pod is outdated only by what does not change the driver. */
    private UpgradeWorld.Node restartOnlyNode(String name) {
        UpgradeWorld.Node n = world.node(name, NEW);
        n.driver =
                new UpgradeNode.DriverPod(
                        "gpu-operator",
                        "nvidia-driver-" + name,
                        false,
                        true,
                        0,
                        NEW,
                        UpgradeWorld.T0.minus(Duration.ofDays(1)),
                        true);
        return n;
    }

    @Test
    void theNodeIsCordonedAndItsDriverPodReplacedWithNothingEvictedWaitedForOrPaused() {
        DriverUpgradePolicySpec s = new DriverUpgradePolicySpec();
        s.setAutoUpgrade(true);
        WaitForCompletionSpec wait = new WaitForCompletionSpec();
        wait.setPodSelector("app=train");
        s.setWaitForCompletion(wait);
        world.policy = UpgradePolicy.from(s);
        UpgradeWorld.Node n = restartOnlyNode("a");
        n.gpuPod("train", false);

        for (int i = 0; i < 30; i++) {
            world.pass();
            world.now = world.now.plusSeconds(1);
            for (UpgradePlan.NodeStep step : world.last.steps()) {
                assertThat(step.actions())
                        .noneMatch(a -> a instanceof EvictPod || a instanceof SetLabel);
            }
            if (n.state().equals("pod-restart-required")) {
                assertThat(n.annotations).containsEntry(UpgradeKeys.RESTART_ONLY, "true");
            }
        }
        assertThat(n.states)
                .containsExactly(
                        "upgrade-done",
                        "upgrade-required",
                        "cordon-required",
                        "pod-restart-required",
                        "validation-required",
                        "uncordon-required",
                        "upgrade-done");
        assertThat(world.evicted).isEmpty();
        assertThat(n.pods).extracting(NodePod::name).containsExactly("train");
        assertThat(n.users).as("the operands were never paused").hasSize(4);
        assertThat(n.driver.inSync()).isTrue();
        assertThat(n.unschedulable).isFalse();
        assertThat(n.annotations).isEmpty();
    }

    @Test
    void theLineSaysTheDriverPodIsReplacedInPlace() {
        UpgradeWorld.Node n = restartOnlyNode("a");
        n.labels.put(UpgradeKeys.STATE_LABEL, "pod-restart-required");
        n.unschedulable = true;
        n.annotations.put(UpgradeKeys.INITIAL_STATE_UNSCHEDULABLE, "false");
        n.annotations.put(UpgradeKeys.RESTART_ONLY, "true");
        world.pass();
        assertThat(world.last.step("a").orElseThrow().actions())
                .containsExactly(new DeleteDriverPod("gpu-operator", "nvidia-driver-a"));
        assertThat(world.last.lines())
                .containsExactly(
                        "node a: pod-restart-required: restart only (driver configuration"
                                + " unchanged): deleting the outdated driver pod"
                                + " gpu-operator/nvidia-driver-a; nothing evicted");
    }

    @Test
    void aTargetThatChangesTheDriverMidWayTakesTheFullWay() {
        UpgradeWorld.Node n = restartOnlyNode("a");
        n.gpuPod("train", false);
        n.labels.put(UpgradeKeys.STATE_LABEL, "pod-restart-required");
        n.unschedulable = true;
        n.annotations.put(UpgradeKeys.INITIAL_STATE_UNSCHEDULABLE, "false");
        n.annotations.put(UpgradeKeys.RESTART_ONLY, "true");
        // a new version before the pod was replaced: its configuration differs now
        world.target("590.10.01");
        world.pass();
        assertThat(n.state()).isEqualTo("wait-for-jobs-required");
        assertThat(n.annotations).doesNotContainKey(UpgradeKeys.RESTART_ONLY);
        world.settle(40);
        assertThat(world.evicted).containsExactly("work/train");
        assertThat(n.states).endsWith("upgrade-done");
        assertThat(n.driver.version()).isEqualTo("590.10.01");
    }

    private static Node node() {
        return new NodeBuilder()
                .withNewMetadata()
                .withName("a")
                .endMetadata()
                .withNewStatus()
                .addNewCondition()
                .withType("Ready")
                .withStatus("True")
                .endCondition()
                .endStatus()
                .build();
    }

    private static Pod driverPod(String templateHash) {
        return new PodBuilder()
                .withNewMetadata()
                .withNamespace("gpu-operator")
                .withName("nvidia-driver-daemonset-a")
                .addToLabels(PodContract.APP_LABEL, "nvidia-driver-daemonset")
                .addToAnnotations(PodContract.TEMPLATE_HASH_ANNOTATION, templateHash)
                .addNewOwnerReference()
                .withKind("DaemonSet")
                .withName("nvidia-driver-daemonset")
                .withUid("ds-uid")
                .withController(true)
                .endOwnerReference()
                .endMetadata()
                .withNewSpec()
                .withNodeName("a")
                .endSpec()
                .build();
    }

    private static boolean restartOnly(String podHash, String daemonSetHash) {
        return UpgradeNodes.of(node(), List.of(driverPod(podHash)), daemonSetHash, Set.of())
                .driverPod()
                .orElseThrow()
                .restartOnly();
    }

    @Test
    void aPodIsRestartOnlyWhenItsTemplateHashCarriesTheDaemonSetsDigest() {
        assertThat(restartOnly("d1-aaaa", "d1-bbbb")).isTrue();
        assertThat(restartOnly("d1-aaaa", "d2-bbbb")).as("the driver changes").isFalse();
        assertThat(restartOnly("aaaa", "d1-bbbb")).as("made by an earlier version").isFalse();
        assertThat(restartOnly("d1-bbbb", "d1-bbbb")).as("current").isFalse();
    }
}
