package org.gpuoperator.migmanager.reconcile;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.gpuoperator.node.agent.EventLog;
import org.gpuoperator.node.inventory.GpuResetRequiredException;
import org.gpuoperator.node.inventory.MigPartitioner;
import org.gpuoperator.node.inventory.MigPartitioner.Layout;

/**
 * One reconcile of the node's MIG layout: look, let {@link MigDecision} choose one step, do it,
 * look again, until a step ends it. Every look reads the node and the GPUs afresh, so nothing here
 * remembers a half-done change: a restart carries it through.
 */
public final class MigReconciler {

    /** Plans a named layout for this node's GPUs; throws with the reason to refuse it. */
    @FunctionalInterface
    public interface Planner {
        Map<Integer, Layout> plan(String configName, Map<Integer, Layout> current);
    }

    /** Waits between looks at the clients' pods. */
    @FunctionalInterface
    public interface Sleeper {
        void sleep(Duration d) throws InterruptedException;
    }

    private static final Duration POLL = Duration.ofMillis(500);

    private final MigNodeAccess node;
    private final MigPartitioner gpus;
    private final int gpuCount;
    private final Planner planner;
    private final LayoutPublisher publisher;
    private final String defaultConfig;
    private final boolean allowGpuPods;
    private final Duration clientWait;
    private final Sleeper sleeper;
    private final Clock clock;
    private final EventLog log;
    private final HostReboot reboot;

    /**
     * @param reboot how to ask for the node's reboot when a GPU needs a reset ({@code
     *     WITH_REBOOT=true}); null: never, such a change fails with the reason
     */
    public MigReconciler(
            MigNodeAccess node,
            MigPartitioner gpus,
            int gpuCount,
            Planner planner,
            LayoutPublisher publisher,
            String defaultConfig,
            boolean allowGpuPods,
            Duration clientWait,
            Sleeper sleeper,
            Clock clock,
            EventLog log,
            HostReboot reboot) {
        this.reboot = reboot;
        this.node = node;
        this.gpus = gpus;
        this.gpuCount = gpuCount;
        this.planner = planner;
        this.publisher = publisher;
        this.defaultConfig =
                defaultConfig == null || defaultConfig.isBlank() ? null : defaultConfig;
        this.allowGpuPods = allowGpuPods;
        this.clientWait = clientWait;
        this.sleeper = sleeper;
        this.clock = clock;
        this.log = log;
    }

    /** Runs until the node is converged or the change failed; returns the step that ended it. */
    public MigStep reconcile() throws InterruptedException {
        Instant waitingSince = null;
        List<String> waitedFor = List.of();
        while (true) {
            MigObservation seen = observe(waitingSince != null);
            MigStep step = MigDecision.next(seen);
            if (step instanceof MigStep.WaitForClients wait) {
                if (waitingSince == null) {
                    waitingSince = clock.instant();
                }
                if (!wait.pods().equals(waitedFor)) {
                    log.info("waiting-for-clients", "pods", String.join(",", wait.pods()));
                    waitedFor = wait.pods();
                }
                if (Duration.between(waitingSince, clock.instant()).compareTo(clientWait) > 0) {
                    step =
                            failure(
                                    seen,
                                    "the GPU clients' pods did not leave the node within "
                                            + clientWait.toSeconds()
                                            + " s: "
                                            + String.join(", ", wait.pods()));
                } else {
                    sleeper.sleep(POLL);
                    continue;
                }
            }
            if (step instanceof MigStep.Apply apply) {
                Applied result = apply(seen.configName(), apply.layouts());
                if (result == null) {
                    continue;
                }
                MigObservation after = observe(false);
                step =
                        result.resetRequired()
                                ? MigDecision.resetRequired(after, result.error(), reboot != null)
                                : failure(after, result.error());
            }
            act(seen, step);
            if (step.last()) {
                return step;
            }
        }
    }

    private MigObservation observe(boolean withClients) {
        MigNodeAccess.Meta meta = node.meta();
        Map<String, String> labels = meta.labels();
        String config = labels.getOrDefault(MigLabels.CONFIG, defaultConfig);
        if (config != null && config.isBlank()) {
            config = null;
        }
        Map<Integer, Layout> current = new TreeMap<>();
        for (int i = 0; i < gpuCount; i++) {
            current.put(i, gpus.layout(i));
        }
        Map<Integer, Layout> desired = null;
        String planError = null;
        if (config != null) {
            try {
                desired = planner.plan(config, current);
            } catch (RuntimeException e) {
                planError = e.getMessage();
            }
        }
        // one list of the node's pods serves both questions
        MigNodeAccess.Pods pods = node.pods(config != null, withClients || paused(labels));
        return new MigObservation(
                config,
                desired,
                planError,
                current,
                labels,
                meta.annotations(),
                pods.gpuHolders(),
                pods.clients(),
                allowGpuPods);
    }

    private static boolean paused(Map<String, String> labels) {
        return MigLabels.CLIENTS.keySet().stream()
                .anyMatch(k -> MigLabels.PAUSED.equals(labels.get(k)));
    }

    /** Why an apply ended early; {@code resetRequired} when a GPU waits for a reset. */
    private record Applied(String error, boolean resetRequired) {}

    /**
     * Repartitions GPU by GPU; the first failure ends it, with its reason. A GPU that needs a reset
     * does not stop the others: every GPU gets as far as it can before the one reboot.
     */
    private Applied apply(String config, Map<Integer, Layout> layouts) {
        String reset = null;
        for (Map.Entry<Integer, Layout> e : layouts.entrySet()) {
            try {
                gpus.apply(e.getKey(), e.getValue());
            } catch (GpuResetRequiredException ex) {
                if (reset == null) {
                    reset = "config " + config + ": GPU " + e.getKey() + ": " + ex.getMessage();
                }
                continue;
            } catch (RuntimeException ex) {
                return new Applied(
                        "config " + config + ": GPU " + e.getKey() + ": " + ex.getMessage(), false);
            }
            log.info(
                    "gpu-repartitioned",
                    "config",
                    config,
                    "gpu",
                    e.getKey(),
                    "mig",
                    e.getValue().enabled() ? "enabled" : "disabled",
                    "devices",
                    String.join(",", e.getValue().devices()));
        }
        return reset == null ? null : new Applied(reset, true);
    }

    private MigStep failure(MigObservation seen, String reason) {
        return MigDecision.next(
                new MigObservation(
                        seen.configName(),
                        null,
                        reason,
                        seen.current(),
                        seen.labels(),
                        seen.annotations(),
                        List.of(),
                        List.of(),
                        allowGpuPods));
    }

    private void act(MigObservation seen, MigStep step) throws InterruptedException {
        switch (step) {
            case MigStep.Converged c -> {
                if (seen.configName() != null) {
                    publisher.publish(seen.current());
                }
            }
            case MigStep.Finish f -> {
                if (seen.configName() != null) {
                    // before the clients come back: what they advertise must resolve
                    publisher.publish(seen.current());
                }
                node.patch(f.changes());
                if (seen.configName() != null) {
                    log.info(
                            "mig-config-applied",
                            "config",
                            seen.configName(),
                            "resumed",
                            String.join(",", resumed(f.changes())));
                } else {
                    log.info("clients-resumed", "labels", String.join(",", resumed(f.changes())));
                }
            }
            case MigStep.Reboot r -> {
                node.patch(r.changes());
                try {
                    reboot.request(r.reason());
                    log.warn(
                            "mig-reboot-requested",
                            "config",
                            seen.configName(),
                            "reason",
                            r.reason(),
                            "action",
                            "clients stay paused until the layout is in force after the reboot");
                } catch (java.io.IOException e) {
                    log.error("mig-reboot-request-failed", "error", e.getMessage());
                }
            }
            case MigStep.Fail f -> {
                node.patch(f.changes());
                log.error("mig-config-failed", "config", seen.configName(), "reason", f.reason());
            }
            case MigStep.Pause p -> {
                node.patch(p.changes());
                log.info(
                        "mig-config-pending",
                        "config",
                        seen.configName(),
                        "paused",
                        String.join(
                                ",",
                                p.changes().labels().keySet().stream()
                                        .filter(MigLabels.CLIENTS::containsKey)
                                        .toList()));
            }
            case MigStep.WaitForClients w -> {}
            case MigStep.Apply a -> {}
        }
    }

    private static List<String> resumed(MigStep.NodeChanges changes) {
        return changes.labels().keySet().stream().filter(MigLabels.CLIENTS::containsKey).toList();
    }
}
