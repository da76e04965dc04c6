package org.gpuoperator.exporter.podresources;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.gpuoperator.exporter.entity.GpuEntity;
import org.gpuoperator.node.agent.EventLog;
import org.gpuoperator.node.deviceconfig.MigStrategy;
import org.gpuoperator.node.inventory.simulated.SimulatedGpuInventory;
import org.gpuoperator.node.inventory.simulated.SimulatedProfiles;
import org.junit.jupiter.api.Test;

/**
 * {@link CachedPodAttribution} in background mode, over a counting fake source and a clock the test
 * moves: what asks the source (the background thread, not {@link CachedPodAttribution#current()}),
 * what a change triggers, and that {@link CachedPodAttribution#close()} stops the thread.
 */
class BackgroundRefreshTest {

    private static final String NODE = "n1";
    private static final List<GpuEntity> ENTITIES =
            GpuEntity.of(
                    new SimulatedGpuInventory(
                                    SimulatedProfiles.withUserFile(null).get("l4-x2"),
                                    NODE,
                                    Path.of("/nonexistent"),
                                    Clock.systemUTC())
                            .gpus());

    private final AtomicLong clock = new AtomicLong(1_000_000_000L);
    private final ByteArrayOutputStream logBytes = new ByteArrayOutputStream();
    private final EventLog log =
            new EventLog("test", new PrintStream(logBytes, true, StandardCharsets.UTF_8));

    /** Counts List calls, separately for the background thread. */
    static final class CountingSource implements PodResourcesSource {
        volatile List<ContainerDevices> answer = List.of();
        volatile RuntimeException failure;
        final AtomicInteger calls = new AtomicInteger();
        final ConcurrentHashMap<String, AtomicInteger> byThread = new ConcurrentHashMap<>();

        @Override
        public List<ContainerDevices> list() {
            calls.incrementAndGet();
            byThread.computeIfAbsent(Thread.currentThread().getName(), k -> new AtomicInteger())
                    .incrementAndGet();
            RuntimeException f = failure;
            if (f != null) {
                throw f;
            }
            return answer;
        }

        int callsFrom(String thread) {
            AtomicInteger n = byThread.get(thread);
            return n == null ? 0 : n.get();
        }

        int backgroundCalls() {
            return callsFrom(CachedPodAttribution.THREAD_NAME);
        }
    }

    private CachedPodAttribution attribution(CountingSource source, Duration ttl) {
        return new CachedPodAttribution(source, ENTITIES, MigStrategy.NONE, ttl, log, clock::get);
    }

    private static ContainerDevices holding(String pod, int gpu) {
        return new ContainerDevices(
                pod,
                "ns",
                "c",
                "nvidia.com/gpu",
                List.of(SimulatedGpuInventory.gpuUuid(NODE, gpu)));
    }

    @Test
    void scrapesDoNotAskTheSourceWhileTheBackgroundThreadRefreshes() {
        CountingSource source = new CountingSource();
        String scraper = Thread.currentThread().getName();
        try (CachedPodAttribution a = attribution(source, Duration.ofMillis(20))) {
            a.current(); // the start-up call
            a.refreshInBackground(() -> {});
            AtomicInteger scrapes = new AtomicInteger();
            await().atMost(Duration.ofSeconds(10))
                    .until(
                            () -> {
                                for (int i = 0; i < 100; i++) {
                                    a.current();
                                    scrapes.incrementAndGet();
                                }
                                return source.backgroundCalls() >= 5;
                            });
            assertThat(scrapes.get()).isGreaterThanOrEqualTo(100);
            assertThat(source.callsFrom(scraper)).isEqualTo(1);

            // Still served from the background's answer up to 2 x ttl after it was asked for.
            clock.addAndGet(Duration.ofMillis(39).toNanos());
            a.current();
            assertThat(source.callsFrom(scraper)).isEqualTo(1);
        }
    }

    @Test
    void aStalledBackgroundRefreshIsCoveredByTheScrapeOncePer2Ttl() {
        CountingSource source = new CountingSource();
        String scraper = Thread.currentThread().getName();
        Duration ttl = Duration.ofHours(1); // the background thread never gets to run in this test
        try (CachedPodAttribution a = attribution(source, ttl)) {
            a.current();
            a.refreshInBackground(() -> {});
            clock.addAndGet(ttl.multipliedBy(2).toNanos());
            source.answer = List.of(holding("p", 1));
            assertThat(a.current().holders()).containsKey("1");
            assertThat(a.current().holders()).containsKey("1");
            assertThat(source.callsFrom(scraper)).isEqualTo(2);
            assertThat(source.backgroundCalls()).isZero();
        }
    }

    @Test
    void aChangedAnswerRunsTheCallbackAndAnUnchangedOneDoesNot() {
        CountingSource source = new CountingSource();
        AtomicInteger changes = new AtomicInteger();
        try (CachedPodAttribution a = attribution(source, Duration.ofMillis(10))) {
            Attribution first = a.current();
            a.refreshInBackground(changes::incrementAndGet);
            await().atMost(Duration.ofSeconds(10)).until(() -> source.backgroundCalls() >= 3);
            assertThat(changes.get()).isZero();
            assertThat(a.current())
                    .isSameAs(first); // an equal answer keeps the instance: scrapes compare by
            // identity

            source.answer = List.of(holding("p", 0));
            await().atMost(Duration.ofSeconds(10)).until(() -> changes.get() == 1);
            assertThat(a.current().holders().get("0"))
                    .containsExactly(new ContainerRef("p", "ns", "c"));

            int calls = source.backgroundCalls();
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> source.backgroundCalls() >= calls + 3);
            assertThat(changes.get()).isEqualTo(1);

            // The kubelet failing: pod labels go, logged once however many rounds fail, and come
            // back with it.
            source.failure =
                    new PodResourcesUnavailableException("List failed: UNAVAILABLE", false);
            await().atMost(Duration.ofSeconds(10)).until(() -> a.current().holders().isEmpty());
            int failing = source.backgroundCalls();
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> source.backgroundCalls() >= failing + 3);
            source.failure = null;
            await().atMost(Duration.ofSeconds(10)).until(() -> !a.current().holders().isEmpty());
            assertThat(
                            logBytes.toString(StandardCharsets.UTF_8)
                                    .lines()
                                    .filter(l -> l.contains("event=pod-resources-unavailable")))
                    .hasSize(1);
            assertThat(
                            logBytes.toString(StandardCharsets.UTF_8)
                                    .lines()
                                    .filter(l -> l.contains("event=pod-resources-available")))
                    .hasSize(1);
        }
    }

    @Test
    void closeStopsTheBackgroundThread() throws Exception {
        CountingSource source = new CountingSource();
        CachedPodAttribution a = attribution(source, Duration.ofMillis(5));
        a.refreshInBackground(() -> {});
        await().atMost(Duration.ofSeconds(10)).until(() -> source.backgroundCalls() >= 2);
        a.close();
        int after = source.calls.get();
        await().atMost(Duration.ofSeconds(10)).until(() -> !refreshThreadAlive());
        Thread.sleep(50); // ten refresh periods: none may happen after close
        assertThat(source.calls.get()).isEqualTo(after);
    }

    @Test
    void aZeroTtlHasNoBackgroundModeAndAsksOnEveryCall() {
        CountingSource source = new CountingSource();
        try (CachedPodAttribution a = attribution(source, Duration.ZERO)) {
            a.current();
            a.current();
            assertThat(source.calls.get()).isEqualTo(2);
            org.assertj.core.api.Assertions.assertThatThrownBy(
                            () -> a.refreshInBackground(() -> {}))
                    .isInstanceOf(IllegalStateException.class);
        }
    }

    static boolean refreshThreadAlive() {
        return Thread.getAllStackTraces().keySet().stream()
                .anyMatch(t -> t.getName().equals(CachedPodAttribution.THREAD_NAME) && t.isAlive());
    }
}
