package org.gpuoperator.controller.upgrade;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.IntOrString;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.gpuoperator.api.common.DrainSpec;
import org.gpuoperator.api.common.DriverUpgradePolicySpec;
import org.gpuoperator.api.common.PodDeletionSpec;
import org.gpuoperator.api.common.WaitForCompletionSpec;
import org.gpuoperator.controller.nodes.ValidationReport;
import org.gpuoperator.controller.upgrade.UpgradeAction.Annotate;
import org.gpuoperator.controller.upgrade.UpgradeAction.Cordon;
import org.gpuoperator.controller.upgrade.UpgradeAction.DeleteDriverPod;
import org.gpuoperator.controller.upgrade.UpgradeAction.EvictPod;
import org.gpuoperator.controller.upgrade.UpgradeAction.SetLabel;
import org.gpuoperator.controller.upgrade.UpgradeAction.SetState;
import org.gpuoperator.controller.upgrade.UpgradeAction.Uncordon;
import org.junit.jupiter.api.Test;

class UpgradeMachineTest {

    private static final String OLD = "570.172.08";
    private static final String NEW = "580.65.06";

    private final UpgradeWorld world = new UpgradeWorld();

    private static UpgradePolicy policy(java.util.function.Consumer<DriverUpgradePolicySpec> edit) {
        DriverUpgradePolicySpec s = new DriverUpgradePolicySpec();
        s.setAutoUpgrade(true);
        edit.accept(s);
        return UpgradePolicy.from(s);
    }

    private UpgradeWorld.Node startAt(String name, UpgradeState state) {
        UpgradeWorld.Node n = world.node(name, OLD);
        world.target(NEW);
        n.labels.put(UpgradeKeys.STATE_LABEL, state.label());
        if (state.active() && state != UpgradeState.CORDON_REQUIRED) {
            n.unschedulable = true;
            n.annotations.put(UpgradeKeys.INITIAL_STATE_UNSCHEDULABLE, "false");
        }
        return n;
    }

    private UpgradePlan.NodeStep step(String node) {
        return world.last.step(node).orElseThrow(() -> new AssertionError("no step for " + node));
    }

    @Test
    void aNodeWithoutAStateIsDoneWhenItsDriverIsCurrentAndRequiredWhenNot() {
        UpgradeWorld.Node current = world.node("a", NEW);
        UpgradeWorld.Node outdated = world.node("b", OLD);
        current.labels.clear();
        outdated.labels.clear();
        world.pass();
        assertThat(current.state()).isEqualTo("upgrade-done");
        assertThat(outdated.state()).isEqualTo("upgrade-required");
    }

    @Test
    void aDoneNodeWithAnUpgradeRequestedIsUpgradedAgainAndTheRequestIsClearedWhenItStarts() {
        UpgradeWorld.Node n = world.node("a", NEW);
        n.annotations.put(UpgradeKeys.UPGRADE_REQUESTED, "true");
        world.pass();
        assertThat(n.state()).isEqualTo("upgrade-required");
        world.pass();
        assertThat(n.state()).isEqualTo("cordon-required");
        assertThat(n.annotations).doesNotContainKey(UpgradeKeys.UPGRADE_REQUESTED);
    }

    @Test
    void aWaitingNodeWhoseTargetComesBackToItsVersionIsDoneAndOneWithoutDriverPodWaits() {
        UpgradeWorld.Node n = startAt("a", UpgradeState.UPGRADE_REQUIRED);
        UpgradeWorld.Node gone = startAt("b", UpgradeState.UPGRADE_REQUIRED);
        gone.driver = null;
        world.target(OLD);
        world.pass();
        assertThat(n.state()).isEqualTo("upgrade-done");
        assertThat(step("a").actions()).containsExactly(new SetState(UpgradeState.UPGRADE_DONE));
        assertThat(gone.state()).isEqualTo("upgrade-required");
        assertThat(world.last.lines())
                .containsExactly(
                        "node b: upgrade-required: no driver pod on the node: not started");
    }

    @Test
    void failedNodesCountAsUnavailableSoTheRolloutStopsAtMaxUnavailable() {
        world.policy =
                policy(
                        s -> {
                            s.setMaxParallelUpgrades(0);
                            s.setMaxUnavailable(new IntOrString(2));
                        });
        for (String name : List.of("a", "b", "c")) {
            world.node(name, OLD).validatorPasses = false;
        }
        world.target(NEW);
        for (int i = 0; i < 5; i++) {
            world.settle(40);
            world.now = world.now.plusSeconds(600);
        }
        assertThat(world.nodes.values())
                .extracting(UpgradeWorld.Node::state)
                .containsExactly("upgrade-failed", "upgrade-failed", "upgrade-required");
        assertThat(world.last.lines())
                .containsExactly(
                        "node a: upgrade-failed: validation: the validator is not Ready on the node"
                                + " 600s after the new driver pod was Ready",
                        "node b: upgrade-failed: validation: the validator is not Ready on the node"
                                + " 600s after the new driver pod was Ready",
                        "node c: upgrade-required: waiting for a slot: maxParallelUpgrades"
                                + " unlimited, maxUnavailable 2 = 2 of 3 (2 unavailable: cordoned,"
                                + " NotReady, failed or upgrading)");
    }

    @Test
    void aFailedNodeKeepsItsMaxParallelUpgradesSlotEvenWhenUncordoned() {
        world.policy = policy(s -> s.setMaxUnavailable(new IntOrString(3)));
        UpgradeWorld.Node failed = startAt("a", UpgradeState.UPGRADE_FAILED);
        failed.annotations.put(UpgradeKeys.FAILURE_REASON, "driver-pod: not Ready");
        failed.driver = null;
        // an admin uncordoned it; it still failed
        failed.unschedulable = false;
        world.node("b", OLD).labels.put(UpgradeKeys.STATE_LABEL, "upgrade-required");
        world.target(NEW);
        world.pass();
        assertThat(world.nodes.get("b").state()).isEqualTo("upgrade-required");
        assertThat(world.last.lines())
                .contains(
                        "node b: upgrade-required: waiting for a slot: maxParallelUpgrades 1 (1 in"
                                + " progress or failed), maxUnavailable 3 = 3 of 2 (1 unavailable:"
                                + " cordoned, NotReady, failed or upgrading)");
        assertThat(world.last.summary().available()).isZero();
    }

    @Test
    void threeNodesWithMaxParallelOneWalkEveryStateOneAtATime() {
        world.policy =
                policy(
                        s -> {
                            s.setMaxParallelUpgrades(1);
                            s.setMaxUnavailable(new IntOrString(3));
                        });
        for (String name : List.of("a", "b", "c")) {
            world.node(name, OLD).gpuPod("train-" + name, false);
        }
        world.target(NEW);
        world.settle(100);

        for (UpgradeWorld.Node n : world.nodes.values()) {
            assertThat(n.states)
                    .as(n.name)
                    .containsExactly(
                            "upgrade-done",
                            "upgrade-required",
                            "cordon-required",
                            "wait-for-jobs-required",
                            "pod-deletion-required",
                            "pod-restart-required",
                            "validation-required",
                            "uncordon-required",
                            "upgrade-done");
            assertThat(n.unschedulable).as(n.name + " uncordoned").isFalse();
            assertThat(n.driver.version()).isEqualTo(NEW);
            assertThat(n.annotations).as(n.name + " annotations cleared").isEmpty();
        }
        assertThat(world.activePerPass)
                .allSatisfy(active -> assertThat(active).hasSizeLessThanOrEqualTo(1));
        assertThat(world.evicted).containsExactly("work/train-a", "work/train-b", "work/train-c");
    }

    @Test
    void theFirstStepsEmitTheirWritesInOrderWithTheStateLast() {
        UpgradeWorld.Node n = world.node("a", OLD).gpuPod("job", false);
        world.target(NEW);
        world.pass(); // -> upgrade-required
        world.pass(); // -> cordon-required
        assertThat(step("a").actions())
                .containsExactly(
                        new Annotate(UpgradeKeys.INITIAL_STATE_UNSCHEDULABLE, "false"),
                        new SetState(UpgradeState.CORDON_REQUIRED));
        world.pass();
        assertThat(step("a").actions())
                .containsExactly(new Cordon(), new SetState(UpgradeState.WAIT_FOR_JOBS_REQUIRED));
        world.pass(); // no podSelector: nothing to wait for
        assertThat(n.state()).isEqualTo("pod-deletion-required");
        world.pass();
        assertThat(step("a").actions())
                .containsExactly(
                        new Annotate(
                                UpgradeKeys.POD_DELETION_START, UpgradeMachine.epoch(world.now)),
                        new EvictPod("work", "job"));
        assertThat(step("a").to()).isEqualTo(UpgradeState.POD_DELETION_REQUIRED);
        world.pass();
        assertThat(n.state()).isEqualTo("pod-restart-required");
        assertThat(n.annotations).doesNotContainKey(UpgradeKeys.POD_DELETION_START);
        UpgradeNode.DriverPod old = n.driver;
        world.pass();
        assertThat(step("a").actions())
                .containsExactlyElementsOf(userLabels("paused-for-driver-upgrade"));
        world.pass();
        assertThat(step("a").actions())
                .containsExactly(new DeleteDriverPod(old.namespace(), old.name()));
    }

    @Test
    void aPodBehindAPdbWaitsIsRetriedAndFailsWithItsReasonAfterTheTimeout() {
        world.policy =
                policy(
                        s -> {
                            PodDeletionSpec pd = new PodDeletionSpec();
                            pd.setTimeoutSeconds(300);
                            s.setPodDeletion(pd);
                        });
        UpgradeWorld.Node n = startAt("a", UpgradeState.POD_DELETION_REQUIRED);
        n.gpuPod("guarded", true).gpuPod("free", false);
        world.pass();
        assertThat(world.evicted).containsExactly("work/free");
        world.now = world.now.plusSeconds(100);
        world.pass();
        assertThat(step("a").actions()).contains(new EvictPod("work", "guarded"));
        assertThat(world.last.lines())
                .containsExactly(
                        "node a: pod-deletion-required: evicting 1 GPU pod(s) (timeout 300s):"
                                + " work/guarded (blocked by a PodDisruptionBudget)");
        world.now = world.now.plusSeconds(200);
        world.pass();
        assertThat(n.state()).isEqualTo("upgrade-failed");
        assertThat(n.annotations)
                .containsEntry(
                        UpgradeKeys.FAILURE_REASON,
                        "pod-deletion: 1 GPU pod(s) not evicted after 300s: work/guarded"
                                + " (blocked by a PodDisruptionBudget)")
                .doesNotContainKey(UpgradeKeys.POD_DELETION_START);
        assertThat(world.last.lines())
                .containsExactly(
                        "node a: upgrade-failed: pod-deletion: 1 GPU pod(s) not evicted after"
                                + " 300s: work/guarded (blocked by a PodDisruptionBudget)");
        assertThat(n.unschedulable).as("a failed node stays cordoned").isTrue();
    }

    @Test
    void aPdbThatAllowsTheEvictionLaterLetsTheNodeGoOn() {
        UpgradeWorld.Node n = startAt("a", UpgradeState.POD_DELETION_REQUIRED);
        n.gpuPod("guarded", true);
        world.pass();
        world.pass();
        assertThat(n.state()).isEqualTo("pod-deletion-required");
        world.blockedByPdb.clear();
        world.pass();
        world.pass();
        assertThat(n.state()).isEqualTo("pod-restart-required");
    }

    @Test
    void aZeroTimeoutWaitsForeverAndSaysSo() {
        world.policy =
                policy(
                        s -> {
                            PodDeletionSpec pd = new PodDeletionSpec();
                            pd.setTimeoutSeconds(0);
                            s.setPodDeletion(pd);
                        });
        UpgradeWorld.Node n = startAt("a", UpgradeState.POD_DELETION_REQUIRED);
        n.gpuPod("guarded", true);
        world.pass();
        world.now = world.now.plus(Duration.ofDays(365));
        world.pass();
        assertThat(n.state()).isEqualTo("pod-deletion-required");
        assertThat(world.last.lines().getFirst()).contains("(no timeout)");
    }

    @Test
    void aFailedPodDeletionFallsBackToTheDrainWhenEnabled() {
        world.policy =
                policy(
                        s -> {
                            DrainSpec d = new DrainSpec();
                            d.setEnable(true);
                            d.setForce(true);
                            s.setDrain(d);
                        });
        UpgradeWorld.Node n = startAt("a", UpgradeState.POD_DELETION_REQUIRED);
        n.pod(
                new NodePod(
                        "work", "bare", Map.of(), true, false, false, false, false, false, false));
        n.pod(
                new NodePod(
                        "web", "cache", Map.of(), false, false, true, false, false, false, false));
        n.pod(
                new NodePod(
                        "gpu-operator",
                        "operator",
                        Map.of(UpgradeKeys.DRAIN_SKIP_POD_LABEL, "true"),
                        false,
                        false,
                        true,
                        false,
                        false,
                        false,
                        false));
        n.pod(
                new NodePod(
                        "kube-system",
                        "proxy",
                        Map.of(),
                        false,
                        true,
                        true,
                        false,
                        false,
                        false,
                        false));
        world.pass();
        assertThat(n.state()).isEqualTo("drain-required");
        assertThat(world.last.lines().getFirst())
                .contains(
                        "work/bare is not managed by a controller (set spec.driver.upgradePolicy.podDeletion.force)")
                .contains("draining the node");
        world.pass();
        assertThat(step("a").actions())
                .containsExactlyInAnyOrder(
                        new Annotate(UpgradeKeys.DRAIN_START, UpgradeMachine.epoch(world.now)),
                        new EvictPod("work", "bare"),
                        new EvictPod("web", "cache"));
        world.pass();
        assertThat(n.state()).isEqualTo("pod-restart-required");
        assertThat(n.pods).extracting(NodePod::name).containsExactlyInAnyOrder("operator", "proxy");
    }

    @Test
    void podsThePolicyDoesNotAllowToEvictFailTheNodeNamingTheFieldToSet() {
        UpgradeWorld.Node n = startAt("a", UpgradeState.POD_DELETION_REQUIRED);
        n.pod(
                new NodePod(
                        "work", "scratch", Map.of(), true, false, true, true, false, false, false));
        world.pass();
        assertThat(n.state()).isEqualTo("upgrade-failed");
        assertThat(n.annotations.get(UpgradeKeys.FAILURE_REASON))
                .isEqualTo(
                        "pod-deletion: work/scratch uses an emptyDir volume (set"
                                + " spec.driver.upgradePolicy.podDeletion.deleteEmptyDir)");
        assertThat(world.evicted).isEmpty();
        // the cause is gone once the policy allows it: retried from upgrade-required
        world.policy =
                policy(
                        s -> {
                            PodDeletionSpec pd = new PodDeletionSpec();
                            pd.setDeleteEmptyDir(true);
                            s.setPodDeletion(pd);
                        });
        world.pass();
        assertThat(n.state()).isEqualTo("upgrade-required");
        assertThat(n.annotations).doesNotContainKey(UpgradeKeys.FAILURE_REASON);
    }

    @Test
    void waitForCompletionWaitsForTheSelectedJobsThenMovesOn() {
        world.policy =
                policy(
                        s -> {
                            WaitForCompletionSpec w = new WaitForCompletionSpec();
                            w.setPodSelector("kind=batch");
                            s.setWaitForCompletion(w);
                        });
        UpgradeWorld.Node n = startAt("a", UpgradeState.WAIT_FOR_JOBS_REQUIRED);
        n.pod(
                new NodePod(
                        "work",
                        "job",
                        Map.of("kind", "batch"),
                        true,
                        false,
                        true,
                        false,
                        false,
                        false,
                        false));
        n.pod(
                new NodePod(
                        "work",
                        "web",
                        Map.of("kind", "web"),
                        true,
                        false,
                        true,
                        false,
                        false,
                        false,
                        false));
        world.pass();
        assertThat(n.state()).isEqualTo("wait-for-jobs-required");
        assertThat(n.annotations)
                .containsEntry(
                        UpgradeKeys.WAIT_FOR_POD_COMPLETION_START, UpgradeMachine.epoch(world.now));
        assertThat(world.last.lines())
                .containsExactly(
                        "node a: wait-for-jobs-required: waiting for 1 pod(s) matching 'kind=batch'"
                                + " to complete (no timeout): work/job");
        world.now = world.now.plus(Duration.ofDays(2));
        world.pass();
        assertThat(n.state()).isEqualTo("wait-for-jobs-required");
        n.pods.set(
                0,
                new NodePod(
                        "work",
                        "job",
                        Map.of("kind", "batch"),
                        true,
                        false,
                        true,
                        false,
                        true,
                        false,
                        false));
        world.pass();
        assertThat(n.state()).isEqualTo("pod-deletion-required");
        assertThat(n.annotations).doesNotContainKey(UpgradeKeys.WAIT_FOR_POD_COMPLETION_START);
    }

    @Test
    void waitForCompletionStopsWaitingAtItsTimeout() {
        world.policy =
                policy(
                        s -> {
                            WaitForCompletionSpec w = new WaitForCompletionSpec();
                            w.setPodSelector("kind=batch");
                            w.setTimeoutSeconds(60);
                            s.setWaitForCompletion(w);
                        });
        UpgradeWorld.Node n = startAt("a", UpgradeState.WAIT_FOR_JOBS_REQUIRED);
        n.pod(
                new NodePod(
                        "work",
                        "job",
                        Map.of("kind", "batch"),
                        true,
                        false,
                        true,
                        false,
                        false,
                        false,
                        false));
        world.pass();
        world.now = world.now.plusSeconds(59);
        world.pass();
        assertThat(n.state()).isEqualTo("wait-for-jobs-required");
        world.now = world.now.plusSeconds(1);
        world.pass();
        assertThat(n.state()).isEqualTo("pod-deletion-required");
    }

    @Test
    void aNodeCordonedBeforeTheUpgradeStaysCordonedAfterIt() {
        world.policy = policy(s -> s.setMaxUnavailable(new IntOrString(2)));
        UpgradeWorld.Node admin = world.node("a", OLD);
        admin.unschedulable = true;
        UpgradeWorld.Node other = world.node("b", OLD);
        world.target(NEW);
        world.settle(60);
        assertThat(admin.states).endsWith("upgrade-done");
        assertThat(admin.unschedulable).isTrue();
        assertThat(admin.annotations).isEmpty();
        assertThat(other.states).endsWith("upgrade-done");
        assertThat(other.unschedulable).isFalse();
    }

    @Test
    void aCordonedNodeStartsWithoutASlotButCountsAsUnavailableForTheOthers() {
        // defaults: maxParallelUpgrades 1, maxUnavailable 25% of 2 = 1
        UpgradeWorld.Node admin = world.node("a", OLD);
        admin.unschedulable = true;
        UpgradeWorld.Node other = world.node("b", OLD);
        UpgradeWorld.Node busy = world.node("c", OLD);
        busy.labels.put(UpgradeKeys.STATE_LABEL, "wait-for-jobs-required");
        busy.unschedulable = true;
        busy.annotations.put(UpgradeKeys.INITIAL_STATE_UNSCHEDULABLE, "false");
        admin.labels.put(UpgradeKeys.STATE_LABEL, "upgrade-required");
        other.labels.put(UpgradeKeys.STATE_LABEL, "upgrade-required");
        world.target(NEW);
        world.pass();
        // c holds the one slot; a is cordoned already and starts anyway, b waits
        assertThat(admin.state()).isEqualTo("cordon-required");
        assertThat(other.state()).isEqualTo("upgrade-required");
        world.settle(60);
        assertThat(admin.state()).isEqualTo("upgrade-done");
        assertThat(admin.unschedulable).isTrue();
        // a stays cordoned after its upgrade: it takes the whole maxUnavailable of 1
        assertThat(other.state()).isEqualTo("upgrade-required");
        assertThat(world.last.lines())
                .containsExactly(
                        "node b: upgrade-required: waiting for a slot: maxParallelUpgrades 1 (0 in"
                                + " progress or failed), maxUnavailable 25% = 1 of 3 (1 unavailable:"
                                + " cordoned, NotReady, failed or upgrading)");
    }

    @Test
    void aRetriedNodeStillCordonedByTheUpgradeCountsAsUnavailable() {
        world.policy = policy(s -> s.setMaxUnavailable(new IntOrString(1)));
        UpgradeWorld.Node retried = startAt("a", UpgradeState.UPGRADE_REQUIRED);
        retried.unschedulable = true;
        retried.annotations.put(UpgradeKeys.INITIAL_STATE_UNSCHEDULABLE, "false");
        world.node("b", OLD).labels.put(UpgradeKeys.STATE_LABEL, "upgrade-required");
        world.policy =
                policy(
                        s -> {
                            s.setMaxUnavailable(new IntOrString(1));
                            s.setMaxParallelUpgrades(0);
                        });
        world.pass();
        assertThat(world.last.steps()).extracting(UpgradePlan.NodeStep::node).containsExactly("a");
    }

    @Test
    void uncordonKeepsTheNodeCordonedWhenItsInitialStateSaysSo() {
        UpgradeWorld.Node n = startAt("a", UpgradeState.UNCORDON_REQUIRED);
        n.annotations.put(UpgradeKeys.INITIAL_STATE_UNSCHEDULABLE, "true");
        world.pass();
        assertThat(step("a").actions())
                .containsExactly(
                        new Annotate(UpgradeKeys.INITIAL_STATE_UNSCHEDULABLE, null),
                        new SetState(UpgradeState.UPGRADE_DONE));
        n.annotations.put(UpgradeKeys.INITIAL_STATE_UNSCHEDULABLE, "false");
        n.labels.put(UpgradeKeys.STATE_LABEL, "uncordon-required");
        world.pass();
        assertThat(step("a").actions()).startsWith(new Uncordon());
    }

    @Test
    void aCrashLoopingDriverFailsWithItsReasonAndARollbackRestartsTheNode() {
        UpgradeWorld.Node n = world.node("a", OLD);
        n.driverStartsReady = false;
        world.target(NEW);
        world.settle(40);
        assertThat(n.state()).isEqualTo("upgrade-failed");
        assertThat(n.annotations.get(UpgradeKeys.FAILURE_REASON))
                .isEqualTo(
                        "driver-pod: driver pod gpu-operator/nvidia-driver-a-new not Ready after 11"
                                + " restarts");
        assertThat(world.last.lines())
                .containsExactly(
                        "node a: upgrade-failed: driver-pod: driver pod"
                                + " gpu-operator/nvidia-driver-a-new not Ready after 11 restarts");

        // roll back: the previous version is the target again, the crashing pod is outdated
        n.driverStartsReady = true;
        world.target(OLD);
        world.settle(40);
        assertThat(n.state()).isEqualTo("upgrade-done");
        assertThat(n.driver.version()).isEqualTo(OLD);
        assertThat(n.states)
                .containsSubsequence("upgrade-failed", "upgrade-required", "cordon-required")
                .containsSubsequence("upgrade-failed", "validation-required", "upgrade-done");
        assertThat(n.unschedulable).isFalse();
    }

    @Test
    void aDriverThatRecoversInPlaceIsValidatedAgainNeverJumpingToDone() {
        UpgradeWorld.Node n = startAt("a", UpgradeState.UPGRADE_FAILED);
        n.annotations.put(UpgradeKeys.FAILURE_REASON, "driver-pod: crash");
        n.driver = new UpgradeNode.DriverPod("gpu-operator", "d", true, true, 12, NEW, world.now);
        world.pass();
        assertThat(step("a").to()).isEqualTo(UpgradeState.VALIDATION_REQUIRED);
        assertThat(n.annotations).doesNotContainKey(UpgradeKeys.FAILURE_REASON);
    }

    @Test
    void validationTimesOutIntoAFailureAndRecoversThroughUncordon() {
        UpgradeWorld.Node n = world.node("a", OLD);
        n.validatorPasses = false;
        world.target(NEW);
        world.settle(40);
        assertThat(n.state()).isEqualTo("validation-required");
        world.now = world.now.plusSeconds(600);
        world.pass();
        assertThat(n.state()).isEqualTo("upgrade-failed");
        assertThat(n.annotations.get(UpgradeKeys.FAILURE_REASON))
                .isEqualTo(
                        "validation: the validator is not Ready on the node 600s after the new"
                                + " driver pod was Ready");
        world.pass();
        assertThat(n.state()).isEqualTo("upgrade-failed");
        n.validator = UpgradeNode.ValidatorPod.of(true, world.now);
        world.pass();
        assertThat(n.state()).isEqualTo("uncordon-required");
        world.pass();
        assertThat(n.state()).isEqualTo("upgrade-done");
        assertThat(n.unschedulable).isFalse();
    }

    @Test
    void aValidatorReadyFromBeforeTheDriverRestartDoesNotCount() {
        UpgradeWorld.Node n = startAt("a", UpgradeState.VALIDATION_REQUIRED);
        n.driver = new UpgradeNode.DriverPod("gpu-operator", "d", true, true, 0, NEW, world.now);
        n.validator = UpgradeNode.ValidatorPod.of(true, world.now.minusSeconds(30));
        world.pass();
        assertThat(n.state()).isEqualTo("validation-required");
        assertThat(world.last.lines())
                .containsExactly(
                        "node a: validation-required: waiting for the validator on the node");
        // restarted, so that it validates the new driver rather than wait for its next recheck
        assertThat(world.validatorRestarts).containsExactly("a");
        world.pass();
        assertThat(n.state()).isEqualTo("uncordon-required");
    }

    private static final List<String> USER_LABELS =
            List.of(
                    "nvidia.com/gpu.deploy.device-plugin",
                    "nvidia.com/gpu.deploy.gpu-feature-discovery",
                    "nvidia.com/gpu.deploy.dcgm-exporter",
                    "nvidia.com/gpu.deploy.mig-manager",
                    "nvidia.com/gpu.deploy.operator-validator");

    private static List<UpgradeAction> userLabels(String value) {
        return USER_LABELS.stream().map(k -> (UpgradeAction) new SetLabel(k, value)).toList();
    }

    @Test
    void theOperandsThatUseTheDriverArePausedBeforeTheOldDriverGoesAndComeBackOnTheNewOne() {
        UpgradeWorld.Node n = startAt("a", UpgradeState.POD_RESTART_REQUIRED);
        assertThat(n.users).hasSize(4);
        world.now = world.now.plusSeconds(5);

        world.pass();
        // first they are taken off the node, while the old driver still runs
        assertThat(step("a").actions())
                .containsExactlyElementsOf(userLabels("paused-for-driver-upgrade"));
        assertThat(n.driver.inSync()).isFalse();
        assertThat(world.last.lines())
                .containsExactly(
                        "node a: pod-restart-required: pausing the operands that use the driver"
                                + " until the new driver is Ready: "
                                + String.join(", ", USER_LABELS));
        assertThat(n.users).isEmpty();
        assertThat(n.validator).isNull();

        world.pass();
        // then the outdated driver pod goes
        assertThat(step("a").actions())
                .containsExactly(new DeleteDriverPod("gpu-operator", "nvidia-driver-a"));
        n.driver =
                new UpgradeNode.DriverPod(
                        "gpu-operator", "nvidia-driver-a-new", true, false, 0, NEW, world.now);

        world.now = world.now.plusSeconds(5);
        world.pass();
        assertThat(world.last.steps()).isEmpty();
        assertThat(world.last.lines())
                .containsExactly(
                        "node a: pod-restart-required: waiting for the new driver pod"
                                + " gpu-operator/nvidia-driver-a-new to be Ready (0 restarts)");
        assertThat(n.users).as("still off while the new driver installs").isEmpty();

        n.driver =
                new UpgradeNode.DriverPod(
                        "gpu-operator",
                        "nvidia-driver-a-new",
                        true,
                        true,
                        0,
                        NEW,
                        world.now.minusSeconds(5));
        world.pass();
        // back in the same patch that starts the validation, the state label last
        assertThat(n.state()).isEqualTo("validation-required");
        assertThat(step("a").actions())
                .startsWith(
                        new Annotate(UpgradeKeys.VALIDATION_START, UpgradeMachine.epoch(world.now)))
                .containsSubsequence(userLabels("true"))
                .endsWith(new SetState(UpgradeState.VALIDATION_REQUIRED));
        assertThat(n.users)
                .as("recreated after the new driver started")
                .hasSize(4)
                .allSatisfy(p -> assertThat(p.createdAt()).isAfter(n.driver.startedAt()));

        world.pass();
        assertThat(n.state()).isEqualTo("uncordon-required");
        assertThat(world.validatorRestarts).isEmpty();
    }

    @Test
    void theOldDriverPodStaysUntilEveryOperandThatUsesItHasLeftTheNode() {
        UpgradeWorld.Node n = startAt("a", UpgradeState.POD_RESTART_REQUIRED);
        world.pass();
        // a pod that outlives its DaemonSet's removal (still terminating)
        n.users.add(
                new UpgradeNode.OperandPod(
                        "gpu-operator", "nvidia-dcgm-exporter-x", world.now, true));
        world.pass();
        assertThat(world.last.steps()).isEmpty();
        assertThat(world.last.lines())
                .containsExactly(
                        "node a: pod-restart-required: waiting for the operands that use the"
                                + " driver to leave the node: gpu-operator/nvidia-dcgm-exporter-x");
        n.users.clear();
        world.pass();
        assertThat(step("a").actions()).hasOnlyElementsOfType(DeleteDriverPod.class);
    }

    @Test
    void pausedOperandsComeBackWhenAutoUpgradeIsTurnedOffOnTheDriverPodThatIsReady() {
        UpgradeWorld.Node n = startAt("a", UpgradeState.POD_RESTART_REQUIRED);
        world.pass(); // paused
        world.pass(); // the old driver pod deleted
        n.driver = new UpgradeNode.DriverPod("gpu-operator", "d", true, false, 0, NEW, world.now);
        world.policy = policy(s -> s.setAutoUpgrade(false));
        world.pass();
        assertThat(step("a").actions())
                .as("no driver Ready to come back to: only the state label goes")
                .containsExactly(new SetState(UpgradeState.UNKNOWN));
        n.driver = new UpgradeNode.DriverPod("gpu-operator", "d", true, true, 0, NEW, world.now);
        world.pass();
        assertThat(step("a").actions()).containsExactlyElementsOf(userLabels("true"));
        assertThat(n.state()).isEmpty();
        assertThat(n.unschedulable).as("held as it was").isTrue();
        assertThat(n.users).hasSize(4);
    }

    @Test
    void pausedOperandsComeBackOnTheOldDriverWhenAutoUpgradeIsTurnedOffBeforeItGoes() {
        UpgradeWorld.Node n = startAt("a", UpgradeState.POD_RESTART_REQUIRED);
        world.pass(); // paused, the old driver pod still there
        world.policy = policy(s -> s.setAutoUpgrade(false));
        world.pass();
        List<UpgradeAction> resumed = new java.util.ArrayList<>(userLabels("true"));
        resumed.add(new SetState(UpgradeState.UNKNOWN));
        assertThat(step("a").actions()).containsExactlyElementsOf(resumed);
        assertThat(n.driver.inSync()).as("nothing replaces it now").isFalse();
    }

    @Test
    void aFailedDriverKeepsTheOperandsPausedUntilItRecovers() {
        UpgradeWorld.Node n = world.node("a", OLD);
        n.driverStartsReady = false;
        world.target(NEW);
        world.settle(40);
        assertThat(n.state()).isEqualTo("upgrade-failed");
        for (String key : USER_LABELS) {
            assertThat(n.labels).containsEntry(key, "paused-for-driver-upgrade");
        }
        n.driver = new UpgradeNode.DriverPod("gpu-operator", "d", true, true, 12, NEW, world.now);
        world.pass();
        assertThat(n.state()).isEqualTo("validation-required");
        for (String key : USER_LABELS) {
            assertThat(n.labels).containsEntry(key, "true");
        }
    }

    @Test
    void aValidatorThatReportsAFailedStepFailsTheNodeAtOnceWithItsReasonAndItIsRetriedWhenFixed() {
        UpgradeWorld.Node n = startAt("a", UpgradeState.VALIDATION_REQUIRED);
        n.driver = new UpgradeNode.DriverPod("gpu-operator", "d", true, true, 0, NEW, world.now);
        n.validator = UpgradeNode.ValidatorPod.of(false, null);
        n.annotations.put(
                ValidationReport.ANNOTATION,
                "driver=ready toolkit=failed cuda=waiting plugin=waiting");
        n.annotations.put(
                ValidationReport.REASON_ANNOTATION, "toolkit: handler nvidia: exit status 3");
        n.annotations.put(ValidationReport.POD_ANNOTATION, "an-earlier-validator");
        world.pass();
        assertThat(n.state())
                .as("a report of an earlier validator pod says nothing of the new driver")
                .isEqualTo("validation-required");
        n.annotations.put(ValidationReport.POD_ANNOTATION, n.validator.name());
        world.pass();
        assertThat(n.state()).isEqualTo("upgrade-failed");
        assertThat(n.annotations.get(UpgradeKeys.FAILURE_REASON))
                .isEqualTo(
                        "validation: the validator reports toolkit: handler nvidia: exit status 3");
        assertThat(n.unschedulable).isTrue();

        world.pass();
        assertThat(n.state()).isEqualTo("upgrade-failed");
        n.validator = UpgradeNode.ValidatorPod.of(true, world.now);
        world.pass();
        assertThat(n.state()).isEqualTo("uncordon-required");
        assertThat(n.annotations).doesNotContainKey(UpgradeKeys.FAILURE_REASON);
    }

    @Test
    void aWaitingStepInTheValidatorsReportIsNoFailure() {
        UpgradeWorld.Node n = startAt("a", UpgradeState.VALIDATION_REQUIRED);
        n.driver = new UpgradeNode.DriverPod("gpu-operator", "d", true, true, 0, NEW, world.now);
        n.validator = UpgradeNode.ValidatorPod.of(false, null);
        n.annotations.put(
                ValidationReport.ANNOTATION,
                "driver=ready toolkit=waiting cuda=waiting plugin=waiting");
        world.pass();
        assertThat(n.state()).isEqualTo("validation-required");
        assertThat(world.validatorRestarts).isEmpty();
    }

    @Test
    void aRollbackDuringValidationRestartsTheDriverAgain() {
        UpgradeWorld.Node n = startAt("a", UpgradeState.VALIDATION_REQUIRED);
        n.driver = new UpgradeNode.DriverPod("gpu-operator", "d", false, true, 0, NEW, world.now);
        world.pass();
        assertThat(n.state()).isEqualTo("pod-restart-required");
    }

    @Test
    void aFailedNodeNeverMovesStraightToDone() {
        for (String reason :
                List.of(
                        "validation: x",
                        "driver-pod: x",
                        "pod-deletion: x",
                        "drain: x",
                        "set by hand")) {
            for (boolean inSync : List.of(true, false)) {
                for (boolean ready : List.of(true, false)) {
                    UpgradeWorld w = new UpgradeWorld();
                    UpgradeWorld.Node n = w.node("a", NEW);
                    n.labels.put(UpgradeKeys.STATE_LABEL, "upgrade-failed");
                    n.annotations.put(UpgradeKeys.FAILURE_REASON, reason);
                    n.unschedulable = true;
                    n.driver = new UpgradeNode.DriverPod("ns", "d", inSync, ready, 0, NEW, w.now);
                    w.pass();
                    assertThat(n.state())
                            .as(reason + " " + inSync + " " + ready)
                            .isNotEqualTo("upgrade-done");
                }
            }
        }
    }

    @Test
    void aPodDeletionFailureIsRetriedOnlyOnceTheBlockingPodsAreGoneOrOnRequest() {
        UpgradeWorld.Node n = startAt("a", UpgradeState.UPGRADE_FAILED);
        n.annotations.put(UpgradeKeys.FAILURE_REASON, "pod-deletion: 1 GPU pod(s) not evicted");
        n.pod(
                new NodePod(
                        "work", "guarded", Map.of(), true, false, true, false, false, false, true));
        world.pass();
        assertThat(n.state()).isEqualTo("upgrade-failed");
        assertThat(world.last.lines())
                .containsExactly("node a: upgrade-failed: pod-deletion: 1 GPU pod(s) not evicted");
        n.annotations.put(UpgradeKeys.UPGRADE_REQUESTED, "true");
        world.pass();
        assertThat(n.state()).isEqualTo("upgrade-required");

        UpgradeWorld other = new UpgradeWorld();
        UpgradeWorld.Node m = other.node("b", OLD);
        other.target(NEW);
        m.labels.put(UpgradeKeys.STATE_LABEL, "upgrade-failed");
        m.annotations.put(UpgradeKeys.FAILURE_REASON, "pod-deletion: 1 GPU pod(s) not evicted");
        other.pass();
        assertThat(m.state()).as("no blocking pod left").isEqualTo("upgrade-required");
    }

    @Test
    void aNotReadyNodeMidWayIsParkedKeepsItsSlotAndIsReported() {
        UpgradeWorld.Node dead = startAt("a", UpgradeState.POD_RESTART_REQUIRED);
        dead.ready = false;
        UpgradeWorld.Node b = world.node("b", OLD);
        world.target(NEW);
        b.labels.put(UpgradeKeys.STATE_LABEL, "upgrade-required");
        world.policy = policy(s -> s.setMaxUnavailable(new IntOrString(2)));
        world.pass();
        assertThat(b.state()).isEqualTo("upgrade-required");
        assertThat(world.last.step("a")).isEmpty();
        assertThat(world.last.lines())
                .containsExactly(
                        "node a: pod-restart-required: NotReady: parked (it keeps its slot and"
                                + " counts as unavailable); it resumes when Ready",
                        "node b: upgrade-required: waiting for a slot: maxParallelUpgrades 1 (1 in"
                                + " progress or failed), maxUnavailable 2 = 2 of 2 (1 unavailable:"
                                + " cordoned, NotReady, failed or upgrading)");
        assertThat(world.last.summary().inProgress()).isEqualTo(1);
        // Ready again: it resumes where it was
        dead.ready = true;
        world.pass();
        assertThat(step("a").actions()).hasOnlyElementsOfType(SetLabel.class);
    }

    @Test
    void aNotReadyNodeWaitingToStartIsNotStartedAndCountsAsUnavailable() {
        world.policy =
                policy(
                        s -> {
                            s.setMaxParallelUpgrades(0);
                            s.setMaxUnavailable(new IntOrString("50%"));
                        });
        for (String name : List.of("a", "b", "c", "d")) {
            world.node(name, OLD).labels.put(UpgradeKeys.STATE_LABEL, "upgrade-required");
        }
        world.target(NEW);
        world.nodes.get("a").ready = false;
        world.pass();
        // 50% of 4 = 2; a (NotReady) is unavailable already and takes one of them
        assertThat(world.nodes.values())
                .extracting(UpgradeWorld.Node::state)
                .containsExactly(
                        "upgrade-required",
                        "cordon-required",
                        "upgrade-required",
                        "upgrade-required");
        assertThat(world.last.lines())
                .contains("node a: upgrade-required: NotReady: not started until Ready");
        assertThat(world.last.summary().available()).isEqualTo(1);
    }

    @Test
    void theBudgetIsTheSmallerOfFreeSlotsAndMaxUnavailableRoundedUp() {
        world.policy =
                policy(
                        s -> {
                            s.setMaxParallelUpgrades(3);
                            s.setMaxUnavailable(new IntOrString("25%"));
                        });
        for (String name : List.of("a", "b", "c", "d", "e")) {
            world.node(name, OLD).labels.put(UpgradeKeys.STATE_LABEL, "upgrade-required");
        }
        world.target(NEW);
        world.pass();
        // 25% of 5 rounded up = 2, fewer than the 3 slots
        assertThat(world.last.steps())
                .extracting(UpgradePlan.NodeStep::node)
                .containsExactly("a", "b");
        assertThat(world.last.summary().available()).isEqualTo(2);
        world.pass();
        assertThat(world.last.summary().available()).isZero();
    }

    @Test
    void aSkipLabelledNodeStaysAndIsReported() {
        UpgradeWorld.Node n = world.node("a", OLD);
        n.labels.put(UpgradeKeys.SKIP_LABEL, "true");
        world.target(NEW);
        world.pass();
        world.pass();
        assertThat(n.state()).isEqualTo("upgrade-required");
        assertThat(world.last.lines())
                .containsExactly(
                        "node a: upgrade-required: skipped: label"
                                + " nvidia.com/gpu-driver-upgrade.skip=true");
        assertThat(world.last.summary().pending()).isEqualTo(1);
    }

    @Test
    void withAutoUpgradeOffNoNodeMovesNoStateLabelIsLeftAndTheStatusSaysAnUpgradeIsPending() {
        world.policy = policy(s -> s.setAutoUpgrade(false));
        world.node("a", OLD);
        world.node("b", OLD);
        UpgradeWorld.Node mid = startAt("c", UpgradeState.POD_DELETION_REQUIRED);
        mid.gpuPod("train", false);
        world.pass();
        // as upstream's: the state label goes; nothing else is written
        assertThat(world.last.steps())
                .extracting(UpgradePlan.NodeStep::actions)
                .containsOnly(List.<UpgradeAction>of(new SetState(UpgradeState.UNKNOWN)));
        assertThat(world.last.lines())
                .containsExactly(
                        "node c: upgrade interrupted: autoUpgrade is false (the node stays as it"
                                + " is, cordoned, until autoUpgrade is true)",
                        "driver upgrade pending on 2 node(s) (a, b):"
                                + " spec.driver.upgradePolicy.autoUpgrade is false");
        assertThat(world.last.summary().metrics())
                .containsEntry(UpgradeSummary.PENDING, 2.0)
                .containsEntry(UpgradeSummary.AUTO_UPGRADE_ENABLED, 0.0)
                .containsEntry(UpgradeSummary.IN_PROGRESS, 1.0);
        assertThat(world.nodes.values()).extracting(UpgradeWorld.Node::state).containsOnly("");

        world.now = world.now.plusSeconds(3600);
        world.pass();
        assertThat(world.last.steps()).isEmpty();
        assertThat(world.last.lines())
                .containsExactly(
                        "node c: upgrade interrupted: autoUpgrade is false (the node stays as it"
                                + " is, cordoned, until autoUpgrade is true)",
                        "driver upgrade pending on 3 node(s) (a, b, c):"
                                + " spec.driver.upgradePolicy.autoUpgrade is false");
        assertThat(mid.unschedulable).isTrue();
        assertThat(mid.pods).as("nothing evicted").hasSize(1);
        assertThat(world.evicted).isEmpty();

        // on again: the interrupted node goes first (it is cordoned already), every node ends done
        world.policy = UpgradePolicy.defaultsWithAutoUpgrade();
        world.settle(200);
        assertThat(world.nodes.values())
                .allSatisfy(
                        n -> {
                            assertThat(n.state()).isEqualTo("upgrade-done");
                            assertThat(n.unschedulable).as(n.name + " uncordoned").isFalse();
                            assertThat(n.annotations).isEmpty();
                            assertThat(n.driver.version()).isEqualTo(NEW);
                        });
        assertThat(mid.states).containsSubsequence("", "upgrade-required", "cordon-required");
    }

    @Test
    void anUpgradeInterruptedByAutoUpgradeOffEndsThroughValidationWhenItsDriverIsCurrent() {
        UpgradeWorld.Node n = startAt("a", UpgradeState.UPGRADE_FAILED);
        n.unschedulable = true;
        n.annotations.put(UpgradeKeys.INITIAL_STATE_UNSCHEDULABLE, "false");
        n.annotations.put(UpgradeKeys.FAILURE_REASON, "validation: the validator reports x");
        n.annotations.put(UpgradeKeys.VALIDATION_START, UpgradeMachine.epoch(world.now));
        world.policy = policy(s -> s.setAutoUpgrade(false));
        world.pass();
        assertThat(world.last.lines())
                .containsExactly(
                        "node a: upgrade interrupted: autoUpgrade is false (the node stays as it"
                                + " is, cordoned, until autoUpgrade is true); it had failed:"
                                + " validation: the validator reports x");
        // the target comes back to what the node runs while autoUpgrade is off
        world.target(OLD);
        world.now = world.now.plusSeconds(3600);
        world.policy = UpgradePolicy.defaultsWithAutoUpgrade();
        world.pass();
        assertThat(n.state()).isEqualTo("validation-required");
        assertThat(n.annotations)
                .doesNotContainKey(UpgradeKeys.FAILURE_REASON)
                .containsEntry(UpgradeKeys.VALIDATION_START, UpgradeMachine.epoch(world.now));
        world.settle(20);
        assertThat(n.states).endsWith("validation-required", "uncordon-required", "upgrade-done");
        assertThat(n.unschedulable).isFalse();
        assertThat(n.annotations).isEmpty();
    }

    @Test
    void theSummaryCountsEveryStateUnderUpstreamsMetricNames() {
        world.policy = policy(s -> s.setMaxUnavailable(new IntOrString("100%")));
        startAt("a", UpgradeState.UPGRADE_FAILED);
        startAt("b", UpgradeState.VALIDATION_REQUIRED);
        world.node("c", NEW);
        startAt("d", UpgradeState.UPGRADE_REQUIRED);
        world.node("e", OLD);
        UpgradeSummary s = UpgradeMachine.plan(world.views(), world.policy, world.now).summary();
        assertThat(s.metrics())
                .containsExactly(
                        Map.entry("gpu_operator_nodes_upgrades_in_progress", 1.0),
                        Map.entry("gpu_operator_nodes_upgrades_done", 2.0),
                        Map.entry("gpu_operator_nodes_upgrades_failed", 1.0),
                        Map.entry("gpu_operator_nodes_upgrades_available", 0.0),
                        Map.entry("gpu_operator_nodes_upgrades_pending", 2.0),
                        Map.entry("gpu_operator_driver_auto_upgrade_enabled", 1.0));
    }

    @Test
    void theInProgressFigureLeavesOutFailedNodesThoughTheyHoldASlot() {
        world.policy =
                policy(
                        s -> {
                            s.setMaxUnavailable(new IntOrString("100%"));
                            s.setMaxParallelUpgrades(4);
                        });
        UpgradeWorld.Node failed = startAt("a", UpgradeState.UPGRADE_FAILED);
        failed.annotations.put(UpgradeKeys.FAILURE_REASON, "validation: the validator reports x");
        UpgradeWorld.Node failedNotReady = startAt("b", UpgradeState.UPGRADE_FAILED);
        failedNotReady.ready = false;
        startAt("c", UpgradeState.WAIT_FOR_JOBS_REQUIRED).ready = false;
        startAt("d", UpgradeState.UNCORDON_REQUIRED);
        startAt("e", UpgradeState.UPGRADE_REQUIRED);
        UpgradeSummary s = UpgradeMachine.plan(world.views(), world.policy, world.now).summary();
        // between cordon and uncordon, NotReady or not: c and d; the failed ones only as failed
        assertThat(s.inProgress()).isEqualTo(2);
        assertThat(s.failed()).isEqualTo(2);
        assertThat(s.metrics())
                .containsEntry(UpgradeSummary.IN_PROGRESS, 2.0)
                .containsEntry(UpgradeSummary.FAILED, 2.0);
        // yet the failed nodes hold maxParallelUpgrades slots (upstream's accounting): 4 of 4
        // taken, so none is available (2 would be without them, 1 under maxUnavailable)
        assertThat(s.available()).isZero();
    }

    @Test
    void theLastGoodVersionFollowsDoneNodesAndGivesTheRollbackLine() {
        UpgradeWorld.Node a = world.node("a", OLD);
        world.node("b", OLD);
        world.target(OLD);
        Map<String, String> good = LastGoodVersions.update(Map.of("gone", "1"), world.views());
        assertThat(good).containsExactly(Map.entry("a", OLD), Map.entry("b", OLD));
        world.target(NEW);
        a.labels.put(UpgradeKeys.STATE_LABEL, "upgrade-failed");
        a.driver = new UpgradeNode.DriverPod("ns", "d", true, false, 11, NEW, world.now);
        good = LastGoodVersions.update(good, world.views());
        assertThat(good).containsEntry("a", OLD);
        assertThat(LastGoodVersions.rollbackHint(good, world.views()))
                .contains(
                        "to roll back, set spec.driver.version to the last good version: "
                                + OLD
                                + " (a)");
        // NVIDIADriver mode: the failed node's NVIDIADriver and its spec.version
        assertThat(LastGoodVersions.rollbackHint(good, world.views(), Map.of("a", "a100-pool")))
                .contains(
                        "to roll back, set spec.version of NVIDIADriver a100-pool to the last good"
                                + " version: "
                                + OLD
                                + " (a)");
        a.labels.put(UpgradeKeys.STATE_LABEL, "upgrade-done");
        a.driver = new UpgradeNode.DriverPod("ns", "d", true, true, 0, NEW, world.now);
        assertThat(LastGoodVersions.update(good, world.views())).containsEntry("a", NEW);
    }
}
