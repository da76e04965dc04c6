package org.gpuoperator.gfd;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.SortedMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.gpuoperator.gfd.host.HostFiles;
import org.gpuoperator.gfd.labels.GfdLabels;
import org.gpuoperator.gfd.labels.NodeFacts;
import org.gpuoperator.gfd.publish.LabelPublisher;
import org.gpuoperator.node.agent.Backoff;
import org.gpuoperator.node.agent.Durations;
import org.gpuoperator.node.agent.EventLog;
import org.gpuoperator.node.inventory.GpuInventory;

/**
 * The labelling loop: read the facts, compute the labels, publish them; then sleep for the
 * interval, relabel, and start over with freshly loaded settings on {@link #reload()} (SIGHUP). The
 * same timestamp is kept between reloads, so a relabel of an unchanged node writes nothing. A
 * failed pass is retried after a back-off ({@link #FIRST_RETRY} doubling up to the interval, at
 * most {@link #LONGEST_RETRY}), not after the whole interval: one API timeout at start must not
 * keep a node unlabelled for a minute.
 */
public final class FeatureDiscovery {

    /** The wait before the first retry of a failed pass. */
    public static final Duration FIRST_RETRY = Duration.ofSeconds(1);

    /** The longest wait between retries, also with an infinite sleep interval. */
    public static final Duration LONGEST_RETRY = Duration.ofSeconds(60);

    /**
     * Loads the settings (flags, environment, config file); throws with a clear message when they
     * are invalid.
     */
    public interface SettingsSource {
        Settings load();
    }

    /** Chooses and builds the publisher the settings ask for. */
    public interface PublisherFactory {
        LabelPublisher create(Settings settings);
    }

    /** Called after each successful publish. */
    public interface PublishListener {
        void published(
                Settings settings, LabelPublisher publisher, SortedMap<String, String> labels);
    }

    private enum Signal {
        RELOAD,
        STOP
    }

    private final GpuInventory inventory;
    private final HostFiles host;
    private final SettingsSource settingsSource;
    private final PublisherFactory publishers;
    private final EventLog log;
    private final Clock clock;
    private final PublishListener listener;
    private final LinkedBlockingQueue<Signal> signals = new LinkedBlockingQueue<>();
    private volatile boolean healthy;

    public FeatureDiscovery(
            GpuInventory inventory,
            HostFiles host,
            SettingsSource settingsSource,
            PublisherFactory publishers,
            EventLog log,
            Clock clock,
            PublishListener listener) {
        this.inventory = inventory;
        this.host = host;
        this.settingsSource = settingsSource;
        this.publishers = publishers;
        this.log = log;
        this.clock = clock;
        this.listener = listener;
    }

    /** The labels for the node as it is now. */
    public SortedMap<String, String> labels(Settings settings, Optional<Instant> timestamp) {
        var gpus = inventory.gpus();
        NodeFacts facts =
                new NodeFacts(
                        inventory.node(),
                        gpus,
                        host.machineType(settings.machineTypeFile()),
                        host.pciClasses(gpus));
        return GfdLabels.compute(
                facts, settings.labels(), timestamp, w -> log.warn("labels-warning", "detail", w));
    }

    /**
     * Runs until {@link #stop()}, or after the first publish when the settings say oneshot.
     *
     * @param initial the settings loaded at start; later ones come from the {@link SettingsSource}
     *     on reload
     * @return the settings in force at the end (the caller cleans up accordingly)
     * @throws RuntimeException when a oneshot run fails
     */
    public Settings run(Settings initial) throws InterruptedException {
        Settings settings = initial;
        while (true) {
            Optional<Instant> timestamp =
                    settings.noTimestamp() ? Optional.empty() : Optional.of(clock.instant());
            log.info(
                    "labelling-started",
                    "source",
                    inventory.describe(),
                    "mig-strategy",
                    settings.labels().migStrategy().value(),
                    "sharing",
                    settings.labels().sharing().strategy().label(),
                    "sleep-interval",
                    settings.oneshot() ? "oneshot" : settings.sleepInterval());
            LabelPublisher publisher = null;
            Backoff retry = retryBackoff(settings);
            Signal signal;
            while (true) {
                publisher = labelAndPublish(settings, publisher, timestamp, retry);
                if (settings.oneshot()) {
                    return settings;
                }
                Optional<Duration> wait =
                        healthy ? settings.sleepInterval().duration() : Optional.of(retry.next());
                signal =
                        wait.isEmpty()
                                ? signals.take()
                                : signals.poll(wait.get().toNanos(), TimeUnit.NANOSECONDS);
                if (signal != null) {
                    break;
                }
            }
            if (signal == Signal.STOP) {
                return settings;
            }
            try {
                settings = settingsSource.load();
                log.info("config-reloaded");
            } catch (RuntimeException e) {
                // Keep labelling with the settings that worked; the admin sees the error and fixes
                // the file.
                log.error(
                        "config-reload-failed",
                        "error",
                        e.getMessage(),
                        "kept",
                        "previous settings");
            }
        }
    }

    /**
     * One pass. The publisher is built on the first pass of a (re)load and kept; when building it
     * fails (API server unreachable, NodeFeature API required but missing) the next pass tries
     * again.
     *
     * @return the publisher to use next time, or null when none could be built
     */
    private LabelPublisher labelAndPublish(
            Settings settings,
            LabelPublisher publisher,
            Optional<Instant> timestamp,
            Backoff retry) {
        String target = publisher == null ? "(not chosen yet)" : publisher.target();
        try {
            if (publisher == null) {
                publisher = publishers.create(settings);
                target = publisher.target();
                log.info("publisher-chosen", "target", target);
            }
            SortedMap<String, String> labels = labels(settings, timestamp);
            if (labels.size() <= 1) {
                log.warn(
                        "no-labels",
                        "detail",
                        "no labels generated from any source (no GPUs found)");
            }
            LabelPublisher.Outcome outcome = publisher.publish(labels);
            if (outcome.written()) {
                log.info(
                        "labels-published",
                        "target",
                        target,
                        "labels",
                        labels.size(),
                        "set",
                        outcome.set(),
                        "removed",
                        outcome.removed());
            }
            healthy = true;
            retry.reset();
            listener.published(settings, publisher, labels);
        } catch (RuntimeException e) {
            healthy = false;
            if (settings.oneshot()) {
                throw e;
            }
            log.error(
                    "labelling-failed",
                    "target",
                    target,
                    "error",
                    String.valueOf(e.getMessage()),
                    "retry-in",
                    Durations.format(retry.peek()));
        }
        return publisher;
    }

    /**
     * {@link #FIRST_RETRY} doubling up to the sleep interval, and never above {@link
     * #LONGEST_RETRY}.
     */
    static Backoff retryBackoff(Settings settings) {
        Duration longest =
                settings.sleepInterval()
                        .duration()
                        .filter(d -> d.compareTo(LONGEST_RETRY) < 0)
                        .orElse(LONGEST_RETRY);
        Duration first = FIRST_RETRY.compareTo(longest) < 0 ? FIRST_RETRY : longest;
        return new Backoff(first, longest);
    }

    /** Whether the last labelling pass succeeded (for {@code /readyz}). */
    public boolean healthy() {
        return healthy;
    }

    /** Reloads the config and relabels now (SIGHUP). */
    public void reload() {
        signals.add(Signal.RELOAD);
    }

    /** Ends {@link #run()} after the current pass. */
    public void stop() {
        signals.add(Signal.STOP);
    }
}
