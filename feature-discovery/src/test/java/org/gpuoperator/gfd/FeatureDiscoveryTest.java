package org.gpuoperator.gfd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import org.gpuoperator.gfd.host.HostFiles;
import org.gpuoperator.gfd.labels.LabelConfig;
import org.gpuoperator.gfd.labels.Sharing;
import org.gpuoperator.gfd.publish.LabelPublisher;
import org.gpuoperator.gfd.publish.PublishException;
import org.gpuoperator.node.agent.EventLog;
import org.gpuoperator.node.deviceconfig.MigStrategy;
import org.gpuoperator.node.deviceconfig.SleepInterval;
import org.gpuoperator.node.inventory.GpuInventory;
import org.gpuoperator.node.inventory.GpuSourceOptions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The labelling loop with a recording publisher: oneshot, relabel, reload, failures. */
class FeatureDiscoveryTest {

    @TempDir Path hostRoot;

    private GpuInventory inventory;
    private final List<SortedMap<String, String>> published = new CopyOnWriteArrayList<>();
    private final ByteArrayOutputStream logBytes = new ByteArrayOutputStream();
    private final EventLog log =
            new EventLog(
                    "feature-discovery", new PrintStream(logBytes, true, StandardCharsets.UTF_8));
    private final Clock clock = Clock.fixed(Instant.ofEpochSecond(1_700_000_000L), ZoneOffset.UTC);

    @BeforeEach
    void open() {
        inventory = GpuSourceOptions.of("simulated:t4-x1", hostRoot, "n1").open();
    }

    @AfterEach
    void close() {
        inventory.close();
    }

    private static Settings settings(boolean oneshot, SleepInterval sleep, Sharing sharing) {
        return new Settings(
                new LabelConfig(MigStrategy.NONE, sharing),
                false,
                oneshot,
                sleep,
                Optional.empty(),
                Settings.DEFAULT_MACHINE_TYPE_FILE,
                Settings.NodeFeatureApi.FALSE);
    }

    private LabelPublisher recording() {
        return new LabelPublisher() {
            @Override
            public Outcome publish(SortedMap<String, String> labels) {
                published.add(labels);
                return new Outcome(true, labels.size(), 0);
            }

            @Override
            public String target() {
                return "memory";
            }
        };
    }

    private FeatureDiscovery discovery(
            FeatureDiscovery.SettingsSource source, LabelPublisher publisher) {
        return new FeatureDiscovery(
                inventory,
                new HostFiles(hostRoot),
                source,
                s -> publisher,
                log,
                clock,
                (s, p, l) -> {});
    }

    private String log() {
        return logBytes.toString(StandardCharsets.UTF_8);
    }

    @Test
    void oneshotPublishesOnceAndReturns() throws Exception {
        Settings s = settings(true, SleepInterval.DEFAULT, Sharing.NONE);

        discovery(() -> s, recording()).run(s);

        assertThat(published)
                .singleElement()
                .satisfies(
                        l ->
                                assertThat(l)
                                        .containsEntry("nvidia.com/gpu.product", "Tesla-T4")
                                        .containsEntry("nvidia.com/gfd.timestamp", "1700000000"));
        assertThat(log())
                .contains("event=labels-published")
                .contains("labels=" + published.getFirst().size());
    }

    @Test
    void theDaemonRelabelsEachIntervalAndStopsOnRequest() throws Exception {
        Settings s = settings(false, SleepInterval.parse("50ms", "test"), Sharing.NONE);
        FeatureDiscovery fd = discovery(() -> s, recording());

        CompletableFuture<Settings> run = CompletableFuture.supplyAsync(() -> runQuietly(fd, s));
        await().atMost(Duration.ofSeconds(30)).until(() -> published.size() >= 3);
        fd.stop();

        assertThat(run.get()).isEqualTo(s);
        assertThat(published)
                .allMatch(l -> l.equals(published.getFirst())); // same timestamp between reloads
        assertThat(fd.healthy()).isTrue();
    }

    @Test
    void reloadPicksUpTheNewConfig() throws Exception {
        Settings plain = settings(false, SleepInterval.INFINITE, Sharing.NONE);
        Settings shared =
                settings(
                        false,
                        SleepInterval.INFINITE,
                        new Sharing(
                                Sharing.Strategy.TIME_SLICING, false, Map.of("nvidia.com/gpu", 4)));
        AtomicReference<Settings> current = new AtomicReference<>(plain);
        FeatureDiscovery fd = discovery(current::get, recording());

        CompletableFuture<Settings> run =
                CompletableFuture.supplyAsync(() -> runQuietly(fd, plain));
        await().atMost(Duration.ofSeconds(30)).until(() -> published.size() == 1);
        current.set(shared);
        fd.reload();
        await().atMost(Duration.ofSeconds(30)).until(() -> published.size() == 2);
        fd.stop();

        assertThat(run.get()).isEqualTo(shared);
        assertThat(published.get(0)).containsEntry("nvidia.com/gpu.product", "Tesla-T4");
        assertThat(published.get(1))
                .containsEntry("nvidia.com/gpu.product", "Tesla-T4-SHARED")
                .containsEntry("nvidia.com/gpu.replicas", "4")
                .containsEntry("nvidia.com/gpu.sharing-strategy", "time-slicing");
        assertThat(log()).contains("event=config-reloaded");
    }

    @Test
    void aBrokenConfigOnReloadKeepsThePreviousSettings() throws Exception {
        Settings plain = settings(false, SleepInterval.INFINITE, Sharing.NONE);
        AtomicReference<Boolean> broken = new AtomicReference<>(false);
        FeatureDiscovery fd =
                discovery(
                        () -> {
                            if (broken.get()) {
                                throw new IllegalArgumentException(
                                        "/config/config.yaml: field version: unknown version 'v9'");
                            }
                            return plain;
                        },
                        recording());

        CompletableFuture<Settings> run =
                CompletableFuture.supplyAsync(() -> runQuietly(fd, plain));
        await().atMost(Duration.ofSeconds(30)).until(() -> published.size() == 1);
        broken.set(true);
        fd.reload();
        await().atMost(Duration.ofSeconds(30)).until(() -> published.size() == 2);
        fd.stop();

        assertThat(run.get()).isEqualTo(plain);
        assertThat(published.get(1)).isEqualTo(published.get(0));
        assertThat(log()).contains("event=config-reload-failed").contains("unknown version 'v9'");
    }

    @Test
    void aFailedPublishIsLoggedAndRetriedByTheDaemonButFailsAOneshotRun() throws Exception {
        LabelPublisher failing =
                new LabelPublisher() {
                    @Override
                    public Outcome publish(SortedMap<String, String> labels) {
                        published.add(labels);
                        throw new PublishException("node n1 not found");
                    }

                    @Override
                    public String target() {
                        return "node/n1";
                    }
                };
        Settings oneshot = settings(true, SleepInterval.DEFAULT, Sharing.NONE);
        assertThatThrownBy(() -> discovery(() -> oneshot, failing).run(oneshot))
                .hasMessage("node n1 not found");

        Settings daemon = settings(false, SleepInterval.parse("20ms", "test"), Sharing.NONE);
        FeatureDiscovery fd = discovery(() -> daemon, failing);
        CompletableFuture<Settings> run =
                CompletableFuture.supplyAsync(() -> runQuietly(fd, daemon));
        await().atMost(Duration.ofSeconds(30)).until(() -> published.size() >= 3);
        fd.stop();
        run.get();

        assertThat(fd.healthy()).isFalse();
        assertThat(log()).contains("event=labelling-failed").contains("node n1 not found");
    }

    @Test
    void aPublisherThatCannotBeBuiltIsTriedAgainAtTheNextPass() throws Exception {
        Settings daemon = settings(false, SleepInterval.parse("20ms", "test"), Sharing.NONE);
        java.util.concurrent.atomic.AtomicInteger attempts =
                new java.util.concurrent.atomic.AtomicInteger();
        LabelPublisher recording = recording();
        FeatureDiscovery fd =
                new FeatureDiscovery(
                        inventory,
                        new HostFiles(hostRoot),
                        () -> daemon,
                        s -> {
                            if (attempts.incrementAndGet() < 3) {
                                throw new PublishException("API server unreachable");
                            }
                            return recording;
                        },
                        log,
                        clock,
                        (s, p, l) -> {});

        CompletableFuture<Settings> run =
                CompletableFuture.supplyAsync(() -> runQuietly(fd, daemon));
        await().atMost(Duration.ofSeconds(30)).until(() -> published.size() >= 2);
        fd.stop();
        run.get();

        assertThat(attempts.get()).isEqualTo(3); // built once it worked, then kept
        assertThat(fd.healthy()).isTrue();
        assertThat(log())
                .contains("API server unreachable")
                .contains("event=publisher-chosen target=memory");
    }

    @Test
    void aFailedPassIsRetriedAfterASecondNotAfterTheSleepInterval() throws Exception {
        // the first publish fails (an API timeout while the node's JVMs start), the second works
        java.util.concurrent.atomic.AtomicInteger calls =
                new java.util.concurrent.atomic.AtomicInteger();
        LabelPublisher flaky =
                new LabelPublisher() {
                    @Override
                    public Outcome publish(SortedMap<String, String> labels) {
                        if (calls.incrementAndGet() == 1) {
                            throw new PublishException("timeout getting a connection");
                        }
                        published.add(labels);
                        return new Outcome(true, labels.size(), 0);
                    }

                    @Override
                    public String target() {
                        return "node/n1";
                    }
                };
        Settings hourly = settings(false, SleepInterval.parse("1h", "test"), Sharing.NONE);
        FeatureDiscovery fd = discovery(() -> hourly, flaky);
        CompletableFuture<Settings> run =
                CompletableFuture.supplyAsync(() -> runQuietly(fd, hourly));

        await().atMost(Duration.ofSeconds(30)).until(() -> published.size() == 1);
        assertThat(fd.healthy()).isTrue();
        fd.stop();
        run.get();

        assertThat(calls.get()).isEqualTo(2);
        assertThat(log())
                .contains("event=labelling-failed")
                .contains("retry-in=1s")
                .contains("event=labels-published");
    }

    @Test
    void retriesDoubleFromASecondUpToTheIntervalAndAMinuteAtMost() {
        assertThat(retryDelays(SleepInterval.DEFAULT, 8))
                .containsExactlyElementsOf(seconds(1, 2, 4, 8, 16, 32, 60, 60));
        assertThat(retryDelays(SleepInterval.parse("5s", "t"), 4))
                .containsExactlyElementsOf(seconds(1, 2, 4, 5));
        assertThat(retryDelays(SleepInterval.INFINITE, 8))
                .containsExactlyElementsOf(seconds(1, 2, 4, 8, 16, 32, 60, 60));
        assertThat(retryDelays(SleepInterval.parse("20ms", "t"), 1))
                .containsExactly(Duration.ofMillis(20));
    }

    /** The first {@code n} retry delays of a daemon with this sleep interval. */
    private static List<Duration> retryDelays(SleepInterval interval, int n) {
        org.gpuoperator.node.agent.Backoff backoff =
                FeatureDiscovery.retryBackoff(settings(false, interval, Sharing.NONE));
        List<Duration> out = new java.util.ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(backoff.next());
        }
        return out;
    }

    private static List<Duration> seconds(long... values) {
        return java.util.Arrays.stream(values).mapToObj(Duration::ofSeconds).toList();
    }

    private static Settings runQuietly(FeatureDiscovery fd, Settings s) {
        try {
            return fd.run(s);
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }
}
