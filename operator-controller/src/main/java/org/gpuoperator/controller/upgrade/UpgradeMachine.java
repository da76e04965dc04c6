package org.gpuoperator.controller.upgrade;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Predicate;
import org.gpuoperator.controller.nodes.NodeLabels;
import org.gpuoperator.controller.operand.Operand;
import org.gpuoperator.controller.upgrade.UpgradeAction.Annotate;
import org.gpuoperator.controller.upgrade.UpgradeAction.Cordon;
import org.gpuoperator.controller.upgrade.UpgradeAction.DeleteDriverPod;
import org.gpuoperator.controller.upgrade.UpgradeAction.EvictPod;
import org.gpuoperator.controller.upgrade.UpgradeAction.RestartOperandPod;
import org.gpuoperator.controller.upgrade.UpgradeAction.SetLabel;
import org.gpuoperator.controller.upgrade.UpgradeAction.SetState;
import org.gpuoperator.controller.upgrade.UpgradeAction.Uncordon;
import org.gpuoperator.controller.upgrade.UpgradePlan.NodeStep;

/**
 * The driver upgrade state machine, pure: the nodes, the policy and the time in; per node the next
 * state and the writes out. One pass moves each node at most one state; the wiring applies the
 * actions and calls it again on the next event or resync.
 *
 * <p>The budget is upstream's: a node in progress or failed holds a {@code maxParallelUpgrades}
 * slot, and a cordoned, NotReady, failed or in-progress node counts against {@code maxUnavailable},
 * so the rollout stops at failures instead of going on past them. A node already cordoned starts
 * even when neither is left (it is out already).
 *
 * <p>As upstream's, a node cordoned before its upgrade stays cordoned. Beyond upstream: {@code
 * upgrade-failed} always carries its reason ({@link UpgradeKeys#FAILURE_REASON} and a status line)
 * and is retried once its cause is gone, through validation (never straight to {@code
 * upgrade-done}); a NotReady node is not started, and one mid-way is parked (no writes) and
 * reported.
 */
public final class UpgradeMachine {

    /** What one upgrade of a node writes for itself (its timers, the path); its end clears them. */
    private static final List<String> TIMERS =
            List.of(
                    UpgradeKeys.WAIT_FOR_POD_COMPLETION_START,
                    UpgradeKeys.POD_DELETION_START,
                    UpgradeKeys.DRAIN_START,
                    UpgradeKeys.VALIDATION_START,
                    UpgradeKeys.RESTART_ONLY);

    private final UpgradePolicy policy;
    private final Instant now;
    private final Map<String, NodeStep> steps = new TreeMap<>();
    private final Map<String, String> lines = new TreeMap<>();

    private UpgradeMachine(UpgradePolicy policy, Instant now) {
        this.policy = policy;
        this.now = now;
    }

    /** One pass over every managed node (GPU nodes with a driver pod or an upgrade state). */
    public static UpgradePlan plan(List<UpgradeNode> nodes, UpgradePolicy policy, Instant now) {
        return new UpgradeMachine(policy, now).run(nodes);
    }

    private UpgradePlan run(List<UpgradeNode> nodes) {
        int managed = nodes.size();
        int maxUnavailable = policy.maxUnavailable().of(managed);
        int unavailable = count(nodes, UpgradeMachine::unavailable);
        int inProgress = count(nodes, UpgradeMachine::holdsSlot);
        int slots =
                policy.maxParallelUpgrades() == 0
                        ? managed
                        : Math.max(0, policy.maxParallelUpgrades() - inProgress);
        int available = Math.min(slots, Math.max(0, maxUnavailable - unavailable));
        UpgradeSummary summary =
                new UpgradeSummary(
                        count(nodes, n -> n.state().active()),
                        count(nodes, n -> n.state() == UpgradeState.UPGRADE_DONE),
                        count(nodes, n -> n.state() == UpgradeState.UPGRADE_FAILED),
                        policy.autoUpgrade() ? available : 0,
                        count(nodes, UpgradeMachine::pending),
                        policy.autoUpgrade());
        if (!policy.autoUpgrade()) {
            return held(nodes, summary);
        }
        List<UpgradeNode> waiting = new ArrayList<>();
        for (UpgradeNode node : nodes) {
            if (node.state() == UpgradeState.UPGRADE_REQUIRED) {
                waiting.add(node);
            } else {
                advance(node);
            }
        }
        // already-cordoned nodes first: they use a free slot, or start without one
        waiting.sort(
                Comparator.comparing((UpgradeNode n) -> !n.unschedulable())
                        .thenComparing(UpgradeNode::name));
        for (UpgradeNode node : waiting) {
            if (node.driverPod().isEmpty()) {
                lines.put(node.name(), line(node, "no driver pod on the node: not started"));
            } else if (!node.needsUpgrade()) {
                // the target came back to what the node runs (e.g. a rollback before it started)
                move(node, UpgradeState.UPGRADE_DONE, new ArrayList<>());
            } else if (!node.ready()) {
                lines.put(node.name(), line(node, "NotReady: not started until Ready"));
            } else if (node.skipped()) {
                lines.put(
                        node.name(),
                        line(node, "skipped: label " + UpgradeKeys.SKIP_LABEL + "=true"));
            } else if (available > 0 || node.unschedulable()) {
                // a cordoned node is out already: it starts even without a slot (upstream's rule)
                available = Math.max(0, available - 1);
                List<UpgradeAction> actions = new ArrayList<>();
                recordInitialState(node, actions);
                if (node.annotation(UpgradeKeys.UPGRADE_REQUESTED) != null) {
                    actions.add(new Annotate(UpgradeKeys.UPGRADE_REQUESTED, null));
                }
                move(node, UpgradeState.CORDON_REQUIRED, actions);
            } else {
                lines.put(
                        node.name(),
                        line(
                                node,
                                "waiting for a slot: maxParallelUpgrades "
                                        + (policy.maxParallelUpgrades() == 0
                                                ? "unlimited"
                                                : policy.maxParallelUpgrades()
                                                        + " ("
                                                        + inProgress
                                                        + " in progress or failed)")
                                        + ", maxUnavailable "
                                        + policy.maxUnavailable()
                                        + " = "
                                        + maxUnavailable
                                        + " of "
                                        + managed
                                        + " ("
                                        + unavailable
                                        + " unavailable: cordoned, NotReady, failed or"
                                        + " upgrading)"));
            }
        }
        return finish(nodes, summary, List.of());
    }

    /**
     * autoUpgrade false: no node moves (no cordon, eviction or restart), but the state label goes,
     * as upstream's; say what waits and which nodes an interrupted upgrade left as they were.
     */
    private UpgradePlan held(List<UpgradeNode> nodes, UpgradeSummary summary) {
        for (UpgradeNode node : nodes) {
            if (node.state() != UpgradeState.UNKNOWN) {
                move(node, UpgradeState.UNKNOWN, new ArrayList<>());
            }
            if (interrupted(node)) {
                String reason = node.annotation(UpgradeKeys.FAILURE_REASON);
                lines.put(
                        node.name(),
                        "node "
                                + node.name()
                                + ": upgrade interrupted: autoUpgrade is false (the node stays as"
                                + " it is"
                                + (node.unschedulable() ? ", cordoned," : "")
                                + " until autoUpgrade is true)"
                                + (reason == null ? "" : "; it had failed: " + reason));
            }
        }
        List<String> pending =
                nodes.stream()
                        .filter(UpgradeMachine::pending)
                        .map(UpgradeNode::name)
                        .sorted()
                        .toList();
        List<String> global =
                pending.isEmpty()
                        ? List.of()
                        : List.of(
                                "driver upgrade pending on "
                                        + pending.size()
                                        + " node(s) ("
                                        + String.join(
                                                ", ",
                                                pending.subList(0, Math.min(10, pending.size())))
                                        + (pending.size() > 10 ? ", ..." : "")
                                        + "): "
                                        + UpgradePolicy.FIELD
                                        + ".autoUpgrade is false");
        return finish(nodes, summary, global);
    }

    private UpgradePlan finish(
            List<UpgradeNode> nodes, UpgradeSummary summary, List<String> global) {
        for (UpgradeNode node : nodes) {
            NodeStep step = steps.get(node.name());
            UpgradeState next = step == null ? node.state() : step.to();
            List<UpgradeAction> resume = resumed(node, next);
            if (!resume.isEmpty()) {
                // before the state label, which stays last
                List<UpgradeAction> actions = new ArrayList<>(resume);
                if (step != null) {
                    actions.addAll(0, step.actions());
                    int state = indexOfSetState(actions);
                    if (state >= 0) {
                        actions.add(actions.remove(state));
                    }
                }
                steps.put(
                        node.name(),
                        new NodeStep(node.name(), node.state(), next, List.copyOf(actions)));
            }
        }
        List<String> all = new ArrayList<>(lines.values());
        all.addAll(global);
        return new UpgradePlan(List.copyOf(steps.values()), summary, List.copyOf(all));
    }

    /**
     * Counts against maxUnavailable (upstream's rule): a node cordoned (by us or an admin) or
     * NotReady, and one failed or in progress even if someone uncordoned it.
     */
    private static boolean unavailable(UpgradeNode n) {
        return n.unschedulable()
                || !n.ready()
                || n.state().active()
                || n.state() == UpgradeState.UPGRADE_FAILED;
    }

    /** Holds a maxParallelUpgrades slot (upstream's in-progress count): in progress or failed. */
    private static boolean holdsSlot(UpgradeNode n) {
        return n.state().active() || n.state() == UpgradeState.UPGRADE_FAILED;
    }

    private static boolean pending(UpgradeNode n) {
        return n.state() == UpgradeState.UPGRADE_REQUIRED
                || ((n.state() == UpgradeState.UNKNOWN || n.state() == UpgradeState.UPGRADE_DONE)
                        && n.needsUpgrade());
    }

    private void advance(UpgradeNode node) {
        UpgradeState state = node.state();
        if ((state.active() || state == UpgradeState.UPGRADE_FAILED) && !node.ready()) {
            String parked =
                    "NotReady: parked (it keeps its slot and counts as unavailable); it resumes"
                            + " when Ready";
            lines.put(
                    node.name(),
                    state == UpgradeState.UPGRADE_FAILED
                            ? failedLine(node) + "; " + parked
                            : line(node, parked));
            return;
        }
        switch (state) {
            case UNKNOWN, UPGRADE_DONE -> idle(node);
            case CORDON_REQUIRED -> cordon(node);
            case WAIT_FOR_JOBS_REQUIRED -> waitForJobs(node);
            case POD_DELETION_REQUIRED -> deletePods(node);
            case DRAIN_REQUIRED -> drain(node);
            case POD_RESTART_REQUIRED -> restartDriver(node);
            case VALIDATION_REQUIRED -> validate(node);
            case UNCORDON_REQUIRED -> uncordon(node);
            case UPGRADE_FAILED -> retryFailed(node);
            case UPGRADE_REQUIRED -> throw new IllegalStateException("handled with the budget");
        }
    }

    private void idle(UpgradeNode node) {
        // autoUpgrade was off mid-way (it removed the state label): start clean, not on old timers
        boolean interrupted = node.state() == UpgradeState.UNKNOWN && interrupted(node);
        List<UpgradeAction> actions = new ArrayList<>();
        if (interrupted) {
            actions.addAll(clear(node, UpgradeKeys.FAILURE_REASON));
            for (String timer : TIMERS) {
                actions.addAll(clear(node, timer));
            }
        }
        if (node.needsUpgrade()) {
            move(node, UpgradeState.UPGRADE_REQUIRED, actions);
        } else if (interrupted && node.driverPod().isPresent()) {
            // the driver is current: finish through validation and uncordon, never straight done
            revalidate(node, actions);
        } else if (node.state() == UpgradeState.UNKNOWN && node.driverPod().isPresent()) {
            move(node, UpgradeState.UPGRADE_DONE, actions);
        }
    }

    /**
     * Started but not finished (the initial-state annotation is written at the start and cleared at
     * uncordon), e.g. left by autoUpgrade false, which removes the state label.
     */
    private static boolean interrupted(UpgradeNode n) {
        return n.state() != UpgradeState.UPGRADE_DONE
                && n.annotation(UpgradeKeys.INITIAL_STATE_UNSCHEDULABLE) != null;
    }

    private void cordon(UpgradeNode node) {
        List<UpgradeAction> actions = new ArrayList<>();
        recordInitialState(node, actions);
        if (!node.unschedulable()) {
            actions.add(new Cordon());
        }
        if (node.driverPod().map(UpgradeNode.DriverPod::restartOnly).orElse(false)) {
            // the driver configuration is unchanged (upstream's restart-only path): the pod is
            // replaced in place, the workloads stay
            actions.add(new Annotate(UpgradeKeys.RESTART_ONLY, "true"));
            move(node, UpgradeState.POD_RESTART_REQUIRED, actions);
            return;
        }
        move(node, UpgradeState.WAIT_FOR_JOBS_REQUIRED, actions);
    }

    /**
     * The restart-only path: the outdated driver pod is deleted with nothing paused or evicted (the
     * new pod finds the same driver loaded); should the target change to one that changes the
     * driver, the node goes the full way from the wait for jobs.
     */
    private void restartOnly(UpgradeNode node) {
        Optional<UpgradeNode.DriverPod> pod = node.driverPod();
        if (pod.isPresent() && !pod.get().inSync() && !pod.get().restartOnly()) {
            move(node, UpgradeState.WAIT_FOR_JOBS_REQUIRED, clear(node, UpgradeKeys.RESTART_ONLY));
            return;
        }
        replaceDriverPod(
                node,
                "restart only (driver configuration unchanged): ",
                "; nothing evicted",
                "restart only: ");
    }

    /**
     * The outdated driver pod deleted, then its successor awaited (failed past the restart limit);
     * each line starts with its path's prefix.
     */
    private void replaceDriverPod(
            UpgradeNode node, String deletingPrefix, String deletingSuffix, String waitingPrefix) {
        if (node.driverPod().isEmpty()) {
            lines.put(
                    node.name(),
                    line(node, "waiting for the driver DaemonSet to create the new driver pod"));
            return;
        }
        UpgradeNode.DriverPod pod = node.driverPod().get();
        String ref = pod.namespace() + "/" + pod.name();
        if (!pod.inSync()) {
            act(node, new ArrayList<>(List.of(new DeleteDriverPod(pod.namespace(), pod.name()))));
            lines.put(
                    node.name(),
                    line(
                            node,
                            deletingPrefix
                                    + "deleting the outdated driver pod "
                                    + ref
                                    + deletingSuffix));
        } else if (pod.restartCount() > policy.driverRestartLimit()) {
            fail(
                    node,
                    FailureCause.DRIVER_POD,
                    "driver pod " + ref + " not Ready after " + pod.restartCount() + " restarts",
                    null,
                    false);
        } else {
            lines.put(
                    node.name(),
                    line(
                            node,
                            waitingPrefix
                                    + "waiting for the new driver pod "
                                    + ref
                                    + " to be Ready ("
                                    + pod.restartCount()
                                    + " restarts)"));
        }
    }

    private void waitForJobs(UpgradeNode node) {
        UpgradePolicy.WaitForCompletion wait = policy.waitForCompletion();
        List<NodePod> running =
                wait.enabled()
                        ? node.pods().stream()
                                .filter(
                                        p ->
                                                !p.finished()
                                                        && wait.podSelector().matches(p.labels()))
                                .toList()
                        : List.of();
        String key = UpgradeKeys.WAIT_FOR_POD_COMPLETION_START;
        if (running.isEmpty() || timedOut(node, key, wait.timeout())) {
            move(node, UpgradeState.POD_DELETION_REQUIRED, clear(node, key));
            return;
        }
        List<UpgradeAction> actions = startTimer(node, key);
        act(node, actions);
        lines.put(
                node.name(),
                line(
                        node,
                        "waiting for "
                                + running.size()
                                + " pod(s) matching '"
                                + wait.podSelector()
                                + "' to complete"
                                + timeoutNote(wait.timeout())
                                + ": "
                                + refs(running)));
    }

    private void deletePods(UpgradeNode node) {
        UpgradePolicy.PodDeletion pd = policy.podDeletion();
        List<NodePod> gpuPods =
                node.pods().stream()
                        .filter(p -> p.requestsGpu() && !p.finished() && !p.nodeBound())
                        .toList();
        evictOrFail(
                node,
                gpuPods,
                "GPU pod",
                UpgradeKeys.POD_DELETION_START,
                pd.timeout(),
                pd.force(),
                pd.deleteEmptyDir(),
                FailureCause.POD_DELETION,
                UpgradePolicy.FIELD + ".podDeletion",
                policy.drain().enable());
    }

    private void drain(UpgradeNode node) {
        UpgradePolicy.Drain d = policy.drain();
        if (!d.enable()) {
            move(node, UpgradeState.POD_RESTART_REQUIRED, clear(node, UpgradeKeys.DRAIN_START));
            return;
        }
        evictOrFail(
                node,
                drainPods(node),
                "pod",
                UpgradeKeys.DRAIN_START,
                d.timeout(),
                d.force(),
                d.deleteEmptyDir(),
                FailureCause.DRAIN,
                UpgradePolicy.FIELD + ".drain",
                false);
    }

    private List<NodePod> drainPods(UpgradeNode node) {
        return node.pods().stream()
                .filter(
                        p ->
                                !p.finished()
                                        && !p.nodeBound()
                                        && !"true"
                                                .equals(
                                                        p.labels()
                                                                .get(
                                                                        UpgradeKeys
                                                                                .DRAIN_SKIP_POD_LABEL))
                                        && policy.drain().podSelector().matches(p.labels()))
                .toList();
    }

    /**
     * Evicts {@code pods} until none is left (then the driver restarts), or fails when one may not
     * be evicted by the rules or the timeout passes; a pod-deletion failure falls back to the drain
     * when it is enabled.
     */
    private void evictOrFail(
            UpgradeNode node,
            List<NodePod> pods,
            String what,
            String timerKey,
            Duration timeout,
            boolean force,
            boolean deleteEmptyDir,
            FailureCause cause,
            String field,
            boolean drainFallback) {
        if (pods.isEmpty()) {
            move(node, UpgradeState.POD_RESTART_REQUIRED, clear(node, timerKey));
            return;
        }
        List<String> refused = refusedByRule(pods, force, deleteEmptyDir, field);
        if (!refused.isEmpty()) {
            fail(node, cause, String.join("; ", refused), timerKey, drainFallback);
            return;
        }
        if (timedOut(node, timerKey, timeout)) {
            fail(
                    node,
                    cause,
                    pods.size()
                            + " "
                            + what
                            + "(s) not evicted after "
                            + timeout.toSeconds()
                            + "s: "
                            + describe(pods),
                    timerKey,
                    drainFallback);
            return;
        }
        List<UpgradeAction> actions = startTimer(node, timerKey);
        pods.stream()
                .filter(p -> !p.terminating())
                .forEach(p -> actions.add(new EvictPod(p.namespace(), p.name())));
        act(node, actions);
        lines.put(
                node.name(),
                line(
                        node,
                        "evicting "
                                + pods.size()
                                + " "
                                + what
                                + "(s)"
                                + timeoutNote(timeout)
                                + ": "
                                + describe(pods)));
    }

    /** Pods the policy does not allow to evict, each with the field that would allow it. */
    private static List<String> refusedByRule(
            List<NodePod> pods, boolean force, boolean deleteEmptyDir, String field) {
        List<String> refused = new ArrayList<>();
        for (NodePod p : pods) {
            if (!p.controlled() && !force) {
                refused.add(p.ref() + " is not managed by a controller (set " + field + ".force)");
            } else if (p.usesEmptyDir() && !deleteEmptyDir) {
                refused.add(
                        p.ref() + " uses an emptyDir volume (set " + field + ".deleteEmptyDir)");
            }
        }
        return refused;
    }

    /**
     * Replaces the driver with nothing on top of it: the operands that use the driver are paused
     * first (their deploy labels, so their DaemonSets take their pods off the node and keep them
     * off), the outdated driver pod goes once they are gone, and they come back (see {@link
     * #resumed}) only when the new driver pod is Ready, so each starts on the new driver.
     */
    private void restartDriver(UpgradeNode node) {
        if (node.driverCurrentAndReady()) {
            List<UpgradeAction> actions = new ArrayList<>();
            actions.add(new Annotate(UpgradeKeys.VALIDATION_START, epoch(now)));
            move(node, UpgradeState.VALIDATION_REQUIRED, actions);
            return;
        }
        if ("true".equals(node.annotation(UpgradeKeys.RESTART_ONLY))) {
            restartOnly(node);
            return;
        }
        List<String> running = deployLabels(node, NodeLabels.TRUE);
        if (!running.isEmpty()) {
            act(
                    node,
                    running.stream()
                            .map(
                                    key ->
                                            (UpgradeAction)
                                                    new SetLabel(
                                                            key,
                                                            NodeLabels.PAUSED_FOR_DRIVER_UPGRADE))
                            .toList());
            lines.put(
                    node.name(),
                    line(
                            node,
                            "pausing the operands that use the driver until the new driver is"
                                    + " Ready: "
                                    + String.join(", ", running)));
            return;
        }
        if (!node.driverUsers().isEmpty()) {
            lines.put(
                    node.name(),
                    line(
                            node,
                            "waiting for the operands that use the driver to leave the node: "
                                    + String.join(
                                            ", ",
                                            node.driverUsers().stream()
                                                    .map(p -> p.namespace() + "/" + p.name())
                                                    .toList())));
            return;
        }
        replaceDriverPod(node, "", "", "");
    }

    /** The deploy labels of the operands that use the driver whose value is {@code value}. */
    private static List<String> deployLabels(UpgradeNode node, String value) {
        return UpgradeNodes.DRIVER_USERS.stream()
                .map(Operand::deployLabel)
                .filter(key -> value.equals(node.labels().get(key)))
                .toList();
    }

    /**
     * The paused operands come back once the node's driver is current and Ready and the node has
     * left {@code pod-restart-required} (whatever it moved to); with autoUpgrade off (nothing will
     * replace the driver now), as soon as the node's driver pod is Ready, current or not. Their
     * deploy labels go back to {@code true} in the node's one patch.
     */
    private List<UpgradeAction> resumed(UpgradeNode node, UpgradeState next) {
        boolean driverReady =
                policy.autoUpgrade()
                        ? node.driverCurrentAndReady() && next != UpgradeState.POD_RESTART_REQUIRED
                        : node.driverPod().map(UpgradeNode.DriverPod::ready).orElse(false);
        if (!driverReady) {
            return List.of();
        }
        return deployLabels(node, NodeLabels.PAUSED_FOR_DRIVER_UPGRADE).stream()
                .map(key -> (UpgradeAction) new SetLabel(key, NodeLabels.TRUE))
                .toList();
    }

    private void validate(UpgradeNode node) {
        String key = UpgradeKeys.VALIDATION_START;
        if (node.driverPod().map(p -> !p.inSync()).orElse(false)) {
            // the target changed under the validation (e.g. a rollback): restart again
            move(node, UpgradeState.POD_RESTART_REQUIRED, clear(node, key));
        } else if (node.validatedCurrentDriver()) {
            move(node, UpgradeState.UNCORDON_REQUIRED, clear(node, key));
        } else if (node.validatorFailure() != null) {
            fail(
                    node,
                    FailureCause.VALIDATION,
                    "the validator reports " + node.validatorFailure(),
                    key,
                    false);
        } else if (timedOut(node, key, policy.validationTimeout())) {
            fail(
                    node,
                    FailureCause.VALIDATION,
                    "the validator is not Ready on the node "
                            + policy.validationTimeout().toSeconds()
                            + "s after the new driver pod was Ready",
                    key,
                    false);
        } else {
            List<UpgradeAction> actions = startTimer(node, key);
            actions.addAll(restartStaleValidator(node));
            act(node, actions);
            lines.put(node.name(), line(node, "waiting for the validator on the node"));
        }
    }

    /** The validator's restart when it is Ready only from before the new driver pod started. */
    private static List<UpgradeAction> restartStaleValidator(UpgradeNode node) {
        if (!node.validatorReadyFromBefore()) {
            return List.of();
        }
        UpgradeNode.ValidatorPod v = node.validator().orElseThrow();
        return List.of(new RestartOperandPod(v.namespace(), v.name()));
    }

    private void uncordon(UpgradeNode node) {
        List<UpgradeAction> actions = new ArrayList<>();
        boolean keepCordoned =
                "true".equals(node.annotation(UpgradeKeys.INITIAL_STATE_UNSCHEDULABLE));
        if (!keepCordoned && node.unschedulable()) {
            actions.add(new Uncordon());
        }
        actions.addAll(clear(node, UpgradeKeys.INITIAL_STATE_UNSCHEDULABLE));
        actions.addAll(clear(node, UpgradeKeys.FAILURE_REASON));
        for (String timer : TIMERS) {
            actions.addAll(clear(node, timer));
        }
        move(node, UpgradeState.UPGRADE_DONE, actions);
    }

    /**
     * A failed node comes back once its cause is gone: never straight to done, always through the
     * validation (or a new start).
     */
    private void retryFailed(UpgradeNode node) {
        FailureCause cause = FailureCause.ofReason(node.annotation(UpgradeKeys.FAILURE_REASON));
        boolean outdated = node.driverPod().map(p -> !p.inSync()).orElse(false);
        List<UpgradeAction> actions = clear(node, UpgradeKeys.FAILURE_REASON);
        for (String timer : TIMERS) {
            actions.addAll(clear(node, timer));
        }
        if ("true".equals(node.annotation(UpgradeKeys.UPGRADE_REQUESTED))) {
            move(node, UpgradeState.UPGRADE_REQUIRED, actions);
            return;
        }
        switch (cause) {
            case VALIDATION -> {
                if (outdated) {
                    move(node, UpgradeState.UPGRADE_REQUIRED, actions);
                } else if (node.validatedCurrentDriver()) {
                    move(node, UpgradeState.UNCORDON_REQUIRED, actions);
                } else {
                    act(node, restartStaleValidator(node));
                    lines.put(node.name(), failedLine(node));
                }
            }
            case DRIVER_POD -> {
                if (outdated) {
                    move(node, UpgradeState.UPGRADE_REQUIRED, actions);
                } else if (node.driverCurrentAndReady()) {
                    revalidate(node, actions);
                } else {
                    lines.put(node.name(), failedLine(node));
                }
            }
            case POD_DELETION, DRAIN -> {
                if (node.driverCurrentAndReady()) {
                    revalidate(node, actions);
                } else if (blockers(node, cause).isEmpty()) {
                    move(node, UpgradeState.UPGRADE_REQUIRED, actions);
                } else {
                    lines.put(node.name(), failedLine(node));
                }
            }
            case UNKNOWN -> {
                if (node.driverCurrentAndReady()) {
                    revalidate(node, actions);
                } else {
                    move(node, UpgradeState.UPGRADE_REQUIRED, actions);
                }
            }
        }
    }

    private void revalidate(UpgradeNode node, List<UpgradeAction> actions) {
        actions.add(new Annotate(UpgradeKeys.VALIDATION_START, epoch(now)));
        move(node, UpgradeState.VALIDATION_REQUIRED, actions);
    }

    /** The pods that still stand in the way of the step that failed. */
    private List<NodePod> blockers(UpgradeNode node, FailureCause cause) {
        boolean drain = cause == FailureCause.DRAIN;
        List<NodePod> pods =
                drain
                        ? drainPods(node)
                        : node.pods().stream()
                                .filter(p -> p.requestsGpu() && !p.finished() && !p.nodeBound())
                                .toList();
        boolean force = drain ? policy.drain().force() : policy.podDeletion().force();
        boolean emptyDir =
                drain ? policy.drain().deleteEmptyDir() : policy.podDeletion().deleteEmptyDir();
        return pods.stream()
                .filter(
                        p ->
                                p.evictionBlocked()
                                        || !refusedByRule(List.of(p), force, emptyDir, "")
                                                .isEmpty())
                .toList();
    }

    private void fail(
            UpgradeNode node,
            FailureCause cause,
            String message,
            String timerKey,
            boolean drainFallback) {
        List<UpgradeAction> actions = timerKey == null ? new ArrayList<>() : clear(node, timerKey);
        if (drainFallback) {
            lines.put(
                    node.name(),
                    line(node, "pod deletion failed (" + message + "): draining the node"));
            move(node, UpgradeState.DRAIN_REQUIRED, actions);
            return;
        }
        String reason = cause.reason(message);
        actions.add(new Annotate(UpgradeKeys.FAILURE_REASON, reason));
        lines.put(node.name(), "node " + node.name() + ": upgrade-failed: " + reason);
        move(node, UpgradeState.UPGRADE_FAILED, actions);
    }

    private String failedLine(UpgradeNode node) {
        String reason = node.annotation(UpgradeKeys.FAILURE_REASON);
        return "node "
                + node.name()
                + ": upgrade-failed: "
                + (reason == null ? "no reason recorded" : reason);
    }

    /** Records whether the node was cordoned before the upgrade, once. */
    private static void recordInitialState(UpgradeNode node, List<UpgradeAction> actions) {
        if (node.annotation(UpgradeKeys.INITIAL_STATE_UNSCHEDULABLE) == null) {
            actions.add(
                    new Annotate(
                            UpgradeKeys.INITIAL_STATE_UNSCHEDULABLE,
                            Boolean.toString(node.unschedulable())));
        }
    }

    private boolean timedOut(UpgradeNode node, String key, Duration timeout) {
        if (timeout.isZero()) {
            return false;
        }
        Instant start = parseEpoch(node.annotation(key));
        return start != null && !now.isBefore(start.plus(timeout));
    }

    private List<UpgradeAction> startTimer(UpgradeNode node, String key) {
        List<UpgradeAction> actions = new ArrayList<>();
        if (parseEpoch(node.annotation(key)) == null) {
            actions.add(new Annotate(key, epoch(now)));
        }
        return actions;
    }

    private static List<UpgradeAction> clear(UpgradeNode node, String key) {
        List<UpgradeAction> actions = new ArrayList<>();
        if (node.annotation(key) != null) {
            actions.add(new Annotate(key, null));
        }
        return actions;
    }

    private void move(UpgradeNode node, UpgradeState to, List<UpgradeAction> actions) {
        actions.add(new SetState(to));
        steps.put(node.name(), new NodeStep(node.name(), node.state(), to, List.copyOf(actions)));
    }

    private void act(UpgradeNode node, List<UpgradeAction> actions) {
        if (!actions.isEmpty()) {
            steps.put(
                    node.name(),
                    new NodeStep(node.name(), node.state(), node.state(), List.copyOf(actions)));
        }
    }

    private static int indexOfSetState(List<UpgradeAction> actions) {
        for (int i = 0; i < actions.size(); i++) {
            if (actions.get(i) instanceof SetState) {
                return i;
            }
        }
        return -1;
    }

    private static String line(UpgradeNode node, String text) {
        return "node " + node.name() + ": " + node.state().label() + ": " + text;
    }

    private static String timeoutNote(Duration timeout) {
        return timeout.isZero() ? " (no timeout)" : " (timeout " + timeout.toSeconds() + "s)";
    }

    private static String refs(List<NodePod> pods) {
        return String.join(", ", pods.stream().map(NodePod::ref).toList());
    }

    private static String describe(List<NodePod> pods) {
        return String.join(
                ", ",
                pods.stream()
                        .map(
                                p ->
                                        p.ref()
                                                + (p.evictionBlocked()
                                                        ? " (blocked by a PodDisruptionBudget)"
                                                        : p.terminating() ? " (terminating)" : ""))
                        .toList());
    }

    static String epoch(Instant t) {
        return Long.toString(t.getEpochSecond());
    }

    static Instant parseEpoch(String value) {
        if (value == null) {
            return null;
        }
        try {
            return Instant.ofEpochSecond(Long.parseLong(value.trim()));
        } catch (NumberFormatException e) {
            return null;
        }
    }

    private static int count(List<UpgradeNode> nodes, Predicate<UpgradeNode> p) {
        return (int) nodes.stream().filter(p).count();
    }
}
