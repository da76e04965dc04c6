package org.gpuoperator.driver;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.gpuoperator.driver.host.GpuHolders;
import org.gpuoperator.node.agent.AtomicFiles;
import org.gpuoperator.node.agent.Backoff;
import org.gpuoperator.node.agent.Durations;
import org.gpuoperator.node.agent.EventLog;
import org.gpuoperator.node.agent.ReadinessFiles;

/**
 * Keeps the driver usable: runs {@link DriverAgent#reconcile()} now, again every check interval
 * while ready, and with a doubling delay while not ready. It never exits on a node problem (no
 * crash loop): the reason is in the logs, the status file and {@code /readyz}.
 */
public final class DriverDaemon {

    private final DriverAgent agent;
    private final ReadinessFiles readiness;
    private final Path statusFile;
    private final Duration checkInterval;
    private final Backoff backoff;
    private final EventLog log;
    private final Clock clock;
    private final CountDownLatch stop = new CountDownLatch(1);
    private final CountDownLatch stopped = new CountDownLatch(1);
    private final AtomicReference<DriverStatus> status =
            new AtomicReference<>(DriverStatus.notReady("start", "starting", List.of()));

    public DriverDaemon(
            DriverAgent agent,
            ReadinessFiles readiness,
            Path statusFile,
            Duration checkInterval,
            Duration firstRetry,
            Duration maxRetry,
            EventLog log,
            Clock clock) {
        this.agent = agent;
        this.readiness = readiness;
        this.statusFile = statusFile;
        this.checkInterval = checkInterval;
        this.backoff = new Backoff(firstRetry, maxRetry);
        this.log = log;
        this.clock = clock;
    }

    public DriverStatus status() {
        return status.get();
    }

    public boolean ready() {
        return status.get().ready();
    }

    /** Runs until {@link #stop()}; a stale driver-ready from an earlier run is removed first. */
    public void run() {
        try {
            readiness.clear(ReadinessFiles.DRIVER);
            writeStatus(status.get());
            while (stop.getCount() > 0) {
                DriverStatus previous = status.get();
                DriverStatus now = agent.reconcile();
                status.set(now);
                Duration wait;
                if (now.ready()) {
                    backoff.reset();
                    wait = checkInterval;
                    if (!previous.ready() || !previous.message().equals(now.message())) {
                        log.info("driver-ready", "mode", now.mode(), "detail", now.message());
                    }
                } else {
                    wait = backoff.next();
                    if (!now.holders().isEmpty()) {
                        log.warn(
                                "driver-in-use",
                                "holders",
                                GpuHolders.describe(now.holders()),
                                "retry-in",
                                Durations.format(wait),
                                "detail",
                                now.message());
                    } else {
                        log.error(
                                "driver-not-ready",
                                "step",
                                now.step(),
                                "retry-in",
                                Durations.format(wait),
                                "detail",
                                now.message());
                    }
                }
                if (!now.equals(previous)) {
                    writeStatus(now);
                }
                if (stop.await(wait.toMillis(), TimeUnit.MILLISECONDS)) {
                    break;
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            stopped.countDown();
        }
    }

    /** Asks the loop to end and waits (bounded) for the pass in progress. */
    public void stop(Duration wait) throws InterruptedException {
        agent.stop();
        stop.countDown();
        stopped.await(wait.toMillis(), TimeUnit.MILLISECONDS);
    }

    /** After stop: the driver step no longer counts as done on this node. */
    public void markStopped() {
        readiness.clear(ReadinessFiles.DRIVER);
        DriverStatus s = DriverStatus.notReady("stopped", "driver-agent stopped", List.of());
        status.set(s);
        writeStatus(s);
    }

    private void writeStatus(DriverStatus s) {
        try {
            AtomicFiles.writeString(statusFile, s.render(clock.instant()));
        } catch (IOException e) {
            log.warn("status-file-not-written", "file", statusFile, "error", e.getMessage());
        }
    }
}
