package org.gpuoperator.controller.events;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

/**
 * Decides what one recorded Event becomes, as client-go's EventCorrelator does for the kubelet
 * (pure but for the injected clock):
 *
 * <ol>
 *   <li><b>rate limit</b>: a token bucket per object and type ({@link Settings#burst} Events, then
 *       one per {@link Settings#refillEvery}); an Event without a token is dropped;
 *   <li><b>aggregation</b>: once {@link Settings#aggregateAfter} different messages with the same
 *       object, type and reason come within {@link Settings#aggregateWindow}, they become one Event
 *       whose message reads {@value #COMBINED} and the latest message;
 *   <li><b>deduplication</b>: the same object, type, reason and message within {@link
 *       Settings#dedupWindow} updates the Event already written (count + 1, last timestamp) instead
 *       of creating another.
 * </ol>
 *
 * Every cache is an LRU of at most {@link Settings#cacheSize} entries, so memory stays bounded
 * however many nodes there are.
 */
public final class EventCorrelator {

    static final String COMBINED = "(combined from similar events): ";

    /** Where Events about cluster-scoped objects live (kube-apiserver accepts only this or ""). */
    static final String DEFAULT_NAMESPACE = "default";

    /**
     * @param cacheSize entries per cache (client-go: 4096)
     * @param burst Events per object before the rate limit applies (client-go: 25)
     * @param refillEvery one more Event per object after this (client-go: 5 minutes)
     * @param aggregateAfter different messages that make one combined Event (client-go: 10)
     * @param aggregateWindow within this (client-go: 10 minutes)
     * @param dedupWindow a repeat within this updates the written Event; later it may have expired
     *     (kube-apiserver's default event TTL: 1 hour)
     */
    public record Settings(
            int cacheSize,
            int burst,
            Duration refillEvery,
            int aggregateAfter,
            Duration aggregateWindow,
            Duration dedupWindow) {

        public static final Settings CLIENT_GO =
                new Settings(
                        4096,
                        25,
                        Duration.ofMinutes(5),
                        10,
                        Duration.ofMinutes(10),
                        Duration.ofHours(1));
    }

    /** What to do with one recorded Event. */
    public sealed interface Decision {}

    /** Write a new Event. */
    public record Create(EventData event) implements Decision {}

    /** Update the Event written before: count, last timestamp, message. */
    public record Update(EventData event) implements Decision {}

    /** Rate-limited: nothing is written. */
    public record Drop() implements Decision {}

    private record Similar(Set<String> messages, Instant lastSeen) {}

    private final Settings settings;
    private final Clock clock;
    private final Map<String, TokenBucket> buckets;
    private final Map<String, Similar> similar;
    private final Map<String, EventData> written;
    private long lastNanos;

    public EventCorrelator(Settings settings, Clock clock) {
        this.settings = settings;
        this.clock = clock;
        this.buckets = lru(settings.cacheSize());
        this.similar = lru(settings.cacheSize());
        this.written = lru(settings.cacheSize());
    }

    public synchronized Decision correlate(
            InvolvedObject object, EventType type, String reason, String message) {
        Instant now = clock.instant();
        // per object and type: Normal chatter (DaemonSets, gates) never silences a Warning
        String spamKey = object.key() + "\u0000" + type.value();
        TokenBucket bucket = buckets.get(spamKey);
        if (bucket == null) {
            bucket = new TokenBucket(settings.burst(), settings.refillEvery(), now);
            buckets.put(spamKey, bucket);
        }
        if (!bucket.tryTake(now)) {
            return new Drop();
        }
        String aggregateKey = String.join("\u0000", object.key(), type.value(), reason);
        Similar seen = similar.get(aggregateKey);
        if (seen == null
                || Duration.between(seen.lastSeen(), now).compareTo(settings.aggregateWindow())
                        > 0) {
            seen = new Similar(new LinkedHashSet<>(), now);
        }
        if (seen.messages().size() < settings.aggregateAfter()) {
            seen.messages().add(message);
        }
        similar.put(aggregateKey, new Similar(seen.messages(), now));
        String key;
        String text;
        if (seen.messages().size() >= settings.aggregateAfter()) {
            key = aggregateKey;
            text = COMBINED + message;
        } else {
            key = aggregateKey + "\u0000" + message;
            text = message;
        }
        EventData last = written.get(key);
        if (last != null
                && Duration.between(last.lastTimestamp(), now).compareTo(settings.dedupWindow())
                        <= 0) {
            EventData next = last.repeated(text, now);
            written.put(key, next);
            return new Update(next);
        }
        EventData created =
                new EventData(
                        object.namespace() == null ? DEFAULT_NAMESPACE : object.namespace(),
                        object.name() + "." + Long.toHexString(uniqueNanos(now)),
                        object,
                        type,
                        reason,
                        text,
                        1,
                        now,
                        now);
        written.put(key, created);
        return new Create(created);
    }

    /** A write that failed: the next occurrence creates the Event anew. */
    public synchronized void failed(EventData event) {
        written.values().removeIf(e -> e.name().equals(event.name()));
    }

    /** Entries held (tests: the caches stay bounded). */
    synchronized int cached() {
        return buckets.size() + similar.size() + written.size();
    }

    /** Unix nanoseconds, distinct per Event even when the clock stands still (tests). */
    private long uniqueNanos(Instant now) {
        long nanos = now.getEpochSecond() * 1_000_000_000L + now.getNano();
        lastNanos = Math.max(nanos, lastNanos + 1);
        return lastNanos;
    }

    private static <V> Map<String, V> lru(int max) {
        return new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<String, V> eldest) {
                return size() > max;
            }
        };
    }
}
