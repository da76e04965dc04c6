package org.gpuoperator.validator;

import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.gpuoperator.node.agent.AgentCommand;
import org.gpuoperator.node.agent.Backoff;
import org.gpuoperator.node.agent.EventLog;
import org.gpuoperator.node.agent.ReadinessFiles;
import org.gpuoperator.validator.report.CheckResult;
import org.gpuoperator.validator.report.Layer;
import org.gpuoperator.validator.report.NodeReport;
import org.gpuoperator.validator.report.ReportSink;

/**
 * Validates the layers in order, round after round: quickly while one is not ready, every recheck
 * interval once all are ({@link #nextWait}). Each round writes or removes the readiness files the
 * validator owns, and publishes the report (node annotations, metrics, readiness). In the rounds
 * while a layer is not ready the toolkit and cuda layers, whose checks each run a workload
 * container, keep a pass for the recheck interval instead of running it again each round
 * (upstream's init containers check each layer once); a node waiting for its device plugin ran both
 * every round. The driver check (files and NVML) runs every round.
 */
public final class ValidatorDaemon implements AutoCloseable {

    /** One layer's check; may block while a workload runs. */
    @FunctionalInterface
    public interface Check {
        CheckResult run() throws InterruptedException;
    }

    private final Map<Layer, Check> checks;
    private final Map<Layer, Boolean> managed;
    private final ReadinessFiles files;
    private final ReportSink sink;
    private final EventLog log;
    private final Duration recheck;
    private final Backoff backoff;

    /** The longest wait between rounds while layers only wait (upstream's validator: 5 s). */
    static final Duration WAITING_POLL_MAX = Duration.ofSeconds(5);

    private final Backoff waiting;
    private String waitingFor = "";
    private final CountDownLatch stopped = new CountDownLatch(1);
    private final java.util.function.LongSupplier nanoTime;
    private volatile NodeReport report = new NodeReport(Map.of());

    /** A layer's last passed check, and when it ran ({@link System#nanoTime}). */
    private record Passed(CheckResult result, long atNanos) {}

    private final Map<Layer, Passed> passed = new EnumMap<>(Layer.class);

    public ValidatorDaemon(
            Map<Layer, Check> checks,
            Map<Layer, Boolean> managed,
            ReadinessFiles files,
            ReportSink sink,
            EventLog log,
            Duration recheck,
            Backoff backoff) {
        this(checks, managed, files, sink, log, recheck, backoff, System::nanoTime);
    }

    ValidatorDaemon(
            Map<Layer, Check> checks,
            Map<Layer, Boolean> managed,
            ReadinessFiles files,
            ReportSink sink,
            EventLog log,
            Duration recheck,
            Backoff backoff,
            java.util.function.LongSupplier nanoTime) {
        this.nanoTime = nanoTime;
        this.checks = Map.copyOf(checks);
        this.managed = Map.copyOf(managed);
        this.files = files;
        this.sink = sink;
        this.log = log;
        this.recheck = recheck;
        this.backoff = backoff;
        this.waiting = new Backoff(backoff.peek(), WAITING_POLL_MAX);
    }

    public NodeReport report() {
        return report;
    }

    /** One pass over the four layers; returns the new report (also kept for metrics/readiness). */
    public NodeReport round() throws InterruptedException {
        Map<Layer, CheckResult> results = new EnumMap<>(Layer.class);
        Layer previous = null;
        boolean predecessorReady = true;
        for (Layer layer : Layer.values()) {
            boolean isManaged = managed.getOrDefault(layer, false);
            LayerPlan.Step step =
                    LayerPlan.step(
                            layer,
                            isManaged,
                            predecessorReady,
                            files.read(layer.readinessFile()).isPresent());
            CheckResult result =
                    step == LayerPlan.Step.CHECK
                            ? checkOrKeep(layer)
                            : LayerPlan.notChecked(step, layer, previous);
            if (step != LayerPlan.Step.CHECK || !result.isReady()) {
                passed.remove(layer);
            }
            applyFile(layer, isManaged, result);
            results.put(layer, result);
            if (step != LayerPlan.Step.DISABLED) {
                predecessorReady = predecessorReady && result.isReady();
                previous = layer;
            }
        }
        NodeReport next = new NodeReport(results);
        if (!next.annotation().equals(report.annotation())
                || !next.reason().equals(report.reason())) {
            log.info(
                    "validation",
                    "state",
                    next.annotation(),
                    "reason",
                    next.reason().orElse("none"));
        }
        report = next;
        try {
            sink.publish(next);
        } catch (RuntimeException e) {
            log.warn("report-failed", "error", AgentCommand.oneLine(e));
        }
        return next;
    }

    /** Runs rounds until {@link #stop}. */
    public void run() throws InterruptedException {
        while (!isStopped()) {
            Duration wait = nextWait(round());
            if (stopped.await(wait.toNanos(), TimeUnit.NANOSECONDS)) {
                break;
            }
        }
    }

    /**
     * The wait before the round after {@code r}: the recheck interval once every layer is ready;
     * the back-off (doubling) after a failed check, which may have cost a workload pod; while
     * layers only wait (a predecessor's readiness file, the node's advertised GPUs: cheap to look
     * at again) the back-off's first delay, doubling to at most {@link #WAITING_POLL_MAX} and
     * starting again whenever what they wait for changes. Waiting once shared the failure back-off,
     * so a node whose toolkit took a minute saw its device plugin's GPUs up to 30 s late.
     */
    Duration nextWait(NodeReport r) {
        if (r.ready()) {
            backoff.reset();
            waiting.reset();
            waitingFor = "";
            return recheck;
        }
        if (r.failed()) {
            waiting.reset();
            waitingFor = "";
            return backoff.next();
        }
        backoff.reset();
        String now = r.annotation() + "\n" + r.reason().orElse("");
        if (!now.equals(waitingFor)) {
            waiting.reset();
            waitingFor = now;
        }
        return waiting.next();
    }

    public void stop() {
        stopped.countDown();
    }

    public boolean isStopped() {
        return stopped.getCount() == 0;
    }

    /** Removes the readiness files the validator owns: it no longer vouches for them. */
    @Override
    public void close() {
        stop();
        for (Layer layer : Layer.values()) {
            if (!LayerPlan.ownedByOperand(layer, managed.getOrDefault(layer, false))) {
                try {
                    files.clear(layer.readinessFile());
                } catch (RuntimeException e) {
                    log.warn(
                            "cleanup-failed",
                            "file",
                            layer.readinessFile(),
                            "error",
                            e.getMessage());
                }
            }
        }
    }

    /**
     * The layer's check, or its last pass when the check runs a workload, the last round left a
     * layer not ready, and that pass is younger than the recheck interval.
     */
    private CheckResult checkOrKeep(Layer layer) throws InterruptedException {
        Passed last = passed.get(layer);
        long now = nanoTime.getAsLong();
        if (last != null
                && LayerPlan.runsWorkload(layer)
                && !report.ready()
                && now - last.atNanos() < recheck.toNanos()) {
            return last.result();
        }
        CheckResult result = runCheck(layer);
        if (result.isReady()) {
            passed.put(layer, new Passed(result, now));
        }
        return result;
    }

    private CheckResult runCheck(Layer layer) throws InterruptedException {
        Check check = checks.get(layer);
        if (check == null) {
            return CheckResult.failed("no check configured");
        }
        try {
            return check.run();
        } catch (RuntimeException e) {
            return CheckResult.failed(AgentCommand.oneLine(e));
        }
    }

    private void applyFile(Layer layer, boolean isManaged, CheckResult result) {
        switch (LayerPlan.fileAction(layer, isManaged, result)) {
            case WRITE -> {
                if (!files.read(layer.readinessFile())
                        .equals(java.util.Optional.of(result.facts()))) {
                    files.markReady(layer.readinessFile(), result.facts());
                    log.info("ready-file-written", "file", files.file(layer.readinessFile()));
                }
            }
            case REMOVE -> {
                if (files.read(layer.readinessFile()).isPresent()) {
                    files.clear(layer.readinessFile());
                    log.info("ready-file-removed", "file", files.file(layer.readinessFile()));
                }
            }
            case LEAVE -> {}
        }
    }
}
