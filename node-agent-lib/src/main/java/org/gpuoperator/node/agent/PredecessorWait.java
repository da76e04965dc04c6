package org.gpuoperator.node.agent;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Waits for a predecessor's readiness file, and can be stopped from another thread (SIGTERM while
 * waiting): the agent then ends its wait at once instead of at the next poll, with nothing to clean
 * up.
 */
public final class PredecessorWait {

    private final ReadinessFiles files;
    private final Duration poll;
    private final EventLog log;
    private final CountDownLatch stopped = new CountDownLatch(1);

    public PredecessorWait(ReadinessFiles files, Duration poll, EventLog log) {
        this.files = files;
        this.poll = poll;
        this.log = log;
    }

    /**
     * The facts of {@code name} once it is ready; empty when {@link #stop} came first. Logs once
     * when it starts waiting and once when the wait is over.
     *
     * @param timeout zero or negative waits for ever
     * @throws TimeoutException when {@code timeout} passes first
     */
    public Optional<Map<String, String>> await(String name, Duration timeout)
            throws InterruptedException, TimeoutException {
        long deadline =
                timeout.isZero() || timeout.isNegative()
                        ? Long.MAX_VALUE
                        : System.nanoTime() + timeout.toNanos();
        boolean logged = false;
        while (true) {
            Optional<Map<String, String>> facts = files.read(name);
            if (facts.isPresent()) {
                if (logged) {
                    log.info("predecessor-ready", "file", files.file(name));
                }
                return facts;
            }
            if (!logged) {
                log.info(
                        "waiting-for-predecessor",
                        "file",
                        files.file(name),
                        "timeout",
                        timeout.isZero() || timeout.isNegative()
                                ? "none"
                                : Durations.format(timeout));
                logged = true;
            }
            if (System.nanoTime() - deadline > 0 && deadline != Long.MAX_VALUE) {
                throw new TimeoutException(
                        "timed out after "
                                + Durations.format(timeout)
                                + " waiting for "
                                + files.file(name));
            }
            if (stopped.await(poll.toNanos(), TimeUnit.NANOSECONDS)) {
                log.info("wait-stopped", "file", files.file(name));
                return Optional.empty();
            }
        }
    }

    /** Ends a running or future {@link #await}; idempotent. */
    public void stop() {
        stopped.countDown();
    }

    public boolean isStopped() {
        return stopped.getCount() == 0;
    }
}
