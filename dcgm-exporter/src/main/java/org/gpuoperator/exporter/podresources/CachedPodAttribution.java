package org.gpuoperator.exporter.podresources;

import java.time.Duration;
import java.util.List;
import java.util.function.LongSupplier;
import org.gpuoperator.exporter.entity.GpuEntity;
import org.gpuoperator.node.agent.EventLog;

/**
 * The current {@link Attribution}, refreshed from the pod-resources source at most once per {@code ttl}: a burst of
 * scrapes costs the kubelet one call. When the source is unavailable the exporter goes on without pod labels; the
 * reason is logged once per change of state, not on every scrape.
 */
public final class CachedPodAttribution {

    private enum State { UNKNOWN, OK, MISSING, FAILING }

    private final PodResourcesSource source;
    private final List<GpuEntity> entities;
    private final long ttlNanos;
    private final LongSupplier nanoClock;
    private final EventLog log;
    private Attribution current = Attribution.NONE;
    private long fetchedAt;
    private boolean fetched;
    private State state = State.UNKNOWN;

    public CachedPodAttribution(PodResourcesSource source, List<GpuEntity> entities, Duration ttl, EventLog log) {
        this(source, entities, ttl, log, System::nanoTime);
    }

    CachedPodAttribution(PodResourcesSource source, List<GpuEntity> entities, Duration ttl, EventLog log,
            LongSupplier nanoClock) {
        this.source = source;
        this.entities = List.copyOf(entities);
        this.ttlNanos = ttl.toNanos();
        this.log = log;
        this.nanoClock = nanoClock;
    }

    public synchronized Attribution current() {
        long now = nanoClock.getAsLong();
        if (fetched && now - fetchedAt < ttlNanos) {
            return current;
        }
        fetched = true;
        fetchedAt = now;
        try {
            current = Attribution.compute(entities, source.list());
            transition(State.OK, null);
        } catch (PodResourcesUnavailableException e) {
            current = Attribution.NONE;
            transition(e.missing() ? State.MISSING : State.FAILING, e.getMessage());
            // A failed call (kubelet restarting) is retried on the next scrape rather than held for the whole ttl.
            fetched = e.missing();
        }
        return current;
    }

    private void transition(State next, String reason) {
        if (next == state) {
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
            case MISSING -> log.warn("pod-resources-socket-missing", "reason", reason,
                    "effect", "exporting without pod, namespace and container labels");
            case FAILING -> log.warn("pod-resources-unavailable", "reason", reason,
                    "effect", "exporting without pod, namespace and container labels");
            default -> { }
        }
    }
}
