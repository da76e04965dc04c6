package org.gpuoperator.exporter.podresources;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.gpuoperator.exporter.entity.GpuEntity;
import org.gpuoperator.node.agent.EventLog;
import org.gpuoperator.node.deviceconfig.MigStrategy;

/**
 * The current {@link Attribution} from the pod-resources source. When the source is unavailable the
 * exporter goes on without pod labels; the reason is logged once per change of state, not on every
 * scrape.
 *
 * <p>Two modes:
 *
 * <ul>
 *   <li>On demand (as constructed, and always with a zero {@code ttl}): {@link #current()} asks the
 *       source when the answer is older than {@code ttl}, so a burst of scrapes costs the kubelet
 *       one call; a failed call is retried on the next {@link #current()}.
 *   <li>In the background ({@link #refreshInBackground}): one daemon thread asks the source every
 *       {@code ttl} and runs a callback when the attribution changed. {@link #current()} then only
 *       reads the last answer, which it treats as fresh for {@code 2 x ttl} after it was asked for;
 *       only when the background thread has stalled longer than that (and is not in a call right
 *       now) does {@link #current()} ask the source itself. Kubelet calls are at most one per
 *       {@code ttl}, whatever the scrape rate.
 * </ul>
 *
 * An answer equal to the previous one keeps the previous instance, so consumers can compare by
 * identity.
 */
public final class CachedPodAttribution implements AutoCloseable {

    private enum State {
        UNKNOWN,
        OK,
        MISSING,
        FAILING
    }

    /**
     * One answer: the attribution, when it was asked for, and whether a failure asks for a retry on
     * demand.
     */
    private record Answer(Attribution attribution, long askedAt, boolean retry) {}

    static final String THREAD_NAME = "pod-resources-refresh";

    private final PodResourcesSource source;
    private final Supplier<List<DeviceCheckpoint.Entry>> checkpoint;
    private final List<GpuEntity> entities;
    private final MigStrategy migStrategy;
    private final long ttlNanos;
    private final LongSupplier nanoClock;
    private final EventLog log;

    /** Held while the source is asked; the state machine below is guarded by it. */
    private final ReentrantLock asking = new ReentrantLock();

    private volatile Answer answer;
    private volatile ScheduledExecutorService refresher;
    private volatile boolean closed;
    private State state = State.UNKNOWN;

    public CachedPodAttribution(
            PodResourcesSource source,
            List<GpuEntity> entities,
            MigStrategy migStrategy,
            Duration ttl,
            EventLog log) {
        this(source, List::of, entities, migStrategy, ttl, log, System::nanoTime);
    }

    /**
     * @param checkpoint the kubelet's device checkpoint, read with each pod-resources answer, to
     *     know the pod UID of each holder
     */
    public CachedPodAttribution(
            PodResourcesSource source,
            Supplier<List<DeviceCheckpoint.Entry>> checkpoint,
            List<GpuEntity> entities,
            MigStrategy migStrategy,
            Duration ttl,
            EventLog log) {
        this(source, checkpoint, entities, migStrategy, ttl, log, System::nanoTime);
    }

    CachedPodAttribution(
            PodResourcesSource source,
            List<GpuEntity> entities,
            MigStrategy migStrategy,
            Duration ttl,
            EventLog log,
            LongSupplier nanoClock) {
        this(source, List::of, entities, migStrategy, ttl, log, nanoClock);
    }

    private CachedPodAttribution(
            PodResourcesSource source,
            Supplier<List<DeviceCheckpoint.Entry>> checkpoint,
            List<GpuEntity> entities,
            MigStrategy migStrategy,
            Duration ttl,
            EventLog log,
            LongSupplier nanoClock) {
        this.source = source;
        this.checkpoint = checkpoint;
        this.entities = List.copyOf(entities);
        this.migStrategy = migStrategy;
        this.ttlNanos = ttl.toNanos();
        this.log = log;
        this.nanoClock = nanoClock;
    }

    /**
     * What a scrape uses. In background mode it does not call the source while the background
     * thread is healthy.
     */
    public Attribution current() {
        if (refresher == null) {
            asking.lock();
            try {
                Answer a = answer;
                long now = nanoClock.getAsLong();
                if (a != null && !a.retry() && now - a.askedAt() < ttlNanos) {
                    return a.attribution();
                }
                return ask(now).attribution();
            } finally {
                asking.unlock();
            }
        }
        Answer a = answer;
        if (a != null && nanoClock.getAsLong() - a.askedAt() < 2 * ttlNanos) {
            return a.attribution();
        }
        // The background thread has stalled. If it is inside a call (a hung kubelet, up to the
        // call's deadline),
        // serve what we have rather than wait; otherwise ask here.
        if (!asking.tryLock()) {
            return a == null ? Attribution.NONE : a.attribution();
        }
        try {
            Answer again = answer;
            long now = nanoClock.getAsLong();
            if (again != null && now - again.askedAt() < 2 * ttlNanos) {
                return again.attribution();
            }
            return ask(now).attribution();
        } finally {
            asking.unlock();
        }
    }

    /**
     * At start: warns at once (as a failed call would) when the source cannot be asked, e.g. its
     * socket is missing, without asking it. The first scrape asks; until then the kubelet's gRPC
     * client is neither loaded nor connected, so an exporter nobody scrapes keeps its idle
     * footprint (about 14 MiB less).
     */
    public void checkReachable() {
        asking.lock();
        try {
            source.checkReachable();
        } catch (PodResourcesUnavailableException e) {
            transition(e.missing() ? State.MISSING : State.FAILING, e.getMessage());
        } finally {
            asking.unlock();
        }
    }

    /**
     * Asks the source every {@code ttl} on one daemon thread, from now on; {@code onChange} runs on
     * that thread after an answer that differs from the previous one. {@link #close()} stops it.
     *
     * @throws IllegalStateException with a zero ttl (that mode asks on every scrape) or when
     *     already started
     */
    public synchronized void refreshInBackground(Runnable onChange) {
        if (ttlNanos <= 0) {
            throw new IllegalStateException("background refresh needs a positive ttl");
        }
        if (refresher != null || closed) {
            throw new IllegalStateException("background refresh already started or closed");
        }
        ScheduledExecutorService executor =
                Executors.newSingleThreadScheduledExecutor(
                        r -> {
                            Thread t = new Thread(r, THREAD_NAME);
                            t.setDaemon(true);
                            return t;
                        });
        // Fixed delay, not fixed rate: a slow call (up to the deadline) is never followed by a
        // burst of catch-up calls.
        executor.scheduleWithFixedDelay(
                () -> refreshOnce(onChange), ttlNanos, ttlNanos, TimeUnit.NANOSECONDS);
        refresher = executor;
    }

    private void refreshOnce(Runnable onChange) {
        Attribution before;
        Attribution after;
        asking.lock();
        try {
            Answer a = answer;
            before = a == null ? null : a.attribution();
            after = ask(nanoClock.getAsLong()).attribution();
        } finally {
            asking.unlock();
        }
        if (after != before && !closed) {
            try {
                onChange.run();
            } catch (RuntimeException e) {
                // A scheduled task that throws is never run again: keep refreshing whatever
                // happened.
                log.error("pod-attribution-change-failed", "error", e.toString());
            }
        }
    }

    /** Asks the source now; caller holds {@link #asking}. */
    private Answer ask(long now) {
        Answer previous = answer;
        Attribution next;
        boolean retry = false;
        try {
            next = Attribution.compute(entities, source.list(), checkpoint.get(), migStrategy);
            transition(State.OK, null);
        } catch (PodResourcesUnavailableException e) {
            next = Attribution.NONE;
            transition(e.missing() ? State.MISSING : State.FAILING, e.getMessage());
            // On demand, a failed call (kubelet restarting) is retried on the next scrape rather
            // than held for the
            // whole ttl; in the background it is retried on the next round.
            retry = !e.missing();
        } catch (
                RuntimeException
                        e) { // not expected from a source; never let it stop the background thread
            next = Attribution.NONE;
            transition(State.FAILING, e.toString());
            retry = true;
        }
        if (previous != null && previous.attribution().equals(next)) {
            next = previous.attribution();
        }
        Answer a = new Answer(next, now, retry);
        answer = a;
        return a;
    }

    private void transition(State next, String reason) {
        if (next == state || closed) {
            return;
        }
        State before = state;
        state = next;
        switch (next) {
            case OK -> {
                if (before != State.UNKNOWN) {
                    log.info("pod-resources-available");
                }
            }
            case MISSING ->
                    log.warn(
                            "pod-resources-socket-missing",
                            "reason",
                            reason,
                            "effect",
                            "exporting without pod, namespace and container labels");
            case FAILING ->
                    log.warn(
                            "pod-resources-unavailable",
                            "reason",
                            reason,
                            "effect",
                            "exporting without pod, namespace and container labels");
            default -> {}
        }
    }

    /**
     * Stops the background thread (waiting up to a second for a call in progress); the source is
     * not closed.
     */
    @Override
    public void close() {
        ScheduledExecutorService executor;
        synchronized (this) {
            closed = true;
            executor = refresher;
        }
        if (executor != null) {
            executor.shutdownNow();
            try {
                executor.awaitTermination(1, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
