package org.gpuoperator.controller.events;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** Deduplication, aggregation and rate limiting, as client-go's correlator, on a test clock. */
class EventCorrelatorTest {

    private static final InvolvedObject NODE =
            new InvolvedObject("v1", "Node", null, "gpu-1", "uid-1");
    private static final InvolvedObject POLICY =
            new InvolvedObject("nvidia.com/v1", "ClusterPolicy", null, "cluster-policy", "uid-p");

    private final TestClock clock = new TestClock();
    private final EventCorrelator correlator =
            new EventCorrelator(EventCorrelator.Settings.CLIENT_GO, clock);

    private EventCorrelator.Decision record(InvolvedObject o, String reason, String message) {
        return correlator.correlate(o, EventType.NORMAL, reason, message);
    }

    @Test
    void aRepeatWithinTheWindowUpdatesTheEventCountInsteadOfCreatingAnother() {
        var first = (EventCorrelator.Create) record(NODE, "GatePassed", "m");
        assertThat(first.event().count()).isEqualTo(1);
        assertThat(first.event().namespace())
                .as("cluster-scoped: namespace default")
                .isEqualTo("default");
        assertThat(first.event().name()).startsWith("gpu-1.");

        clock.advance(Duration.ofSeconds(30));
        var again = (EventCorrelator.Update) record(NODE, "GatePassed", "m");
        assertThat(again.event().name()).isEqualTo(first.event().name());
        assertThat(again.event().count()).isEqualTo(2);
        assertThat(again.event().firstTimestamp()).isEqualTo(first.event().firstTimestamp());
        assertThat(again.event().lastTimestamp()).isEqualTo(clock.instant());

        // another message, reason or object is another Event
        assertThat(record(NODE, "GatePassed", "other")).isInstanceOf(EventCorrelator.Create.class);
        assertThat(record(NODE, "GateFailed", "m")).isInstanceOf(EventCorrelator.Create.class);
        assertThat(record(POLICY, "GatePassed", "m")).isInstanceOf(EventCorrelator.Create.class);
    }

    @Test
    void aRepeatAfterTheDedupWindowIsANewEvent() {
        var first = (EventCorrelator.Create) record(NODE, "GatePassed", "m");
        clock.advance(Duration.ofHours(1).plusSeconds(1));
        var later = (EventCorrelator.Create) record(NODE, "GatePassed", "m");
        assertThat(later.event().name()).isNotEqualTo(first.event().name());
        assertThat(later.event().count()).isEqualTo(1);
    }

    @Test
    void theTenthDifferentMessageOfOneReasonOnOneObjectIsCombinedIntoOneCountedEvent() {
        for (int i = 1; i <= 9; i++) {
            var d = (EventCorrelator.Create) record(POLICY, "GateFailed", "node gpu-" + i);
            assertThat(d.event().message()).isEqualTo("node gpu-" + i);
        }
        var combined = (EventCorrelator.Create) record(POLICY, "GateFailed", "node gpu-10");
        assertThat(combined.event().message())
                .isEqualTo("(combined from similar events): node gpu-10");
        var next = (EventCorrelator.Update) record(POLICY, "GateFailed", "node gpu-11");
        assertThat(next.event().name()).isEqualTo(combined.event().name());
        assertThat(next.event().count()).isEqualTo(2);
        assertThat(next.event().message()).isEqualTo("(combined from similar events): node gpu-11");

        // other reasons on the same object are not combined
        var other = (EventCorrelator.Create) record(POLICY, "DaemonSetCreated", "x");
        assertThat(other.event().message()).isEqualTo("x");

        // after the aggregation window, messages stand alone again
        clock.advance(Duration.ofMinutes(11));
        var alone = (EventCorrelator.Create) record(POLICY, "GateFailed", "node gpu-12");
        assertThat(alone.event().message()).isEqualTo("node gpu-12");
    }

    @Test
    void eachObjectAndTypeHasATokenBucketOf25EventsRefilledOneEveryFiveMinutes() {
        for (int i = 0; i < 25; i++) {
            assertThat(record(NODE, "GatePassed", "m" + (i % 3)))
                    .isNotInstanceOf(EventCorrelator.Drop.class);
        }
        assertThat(record(NODE, "GatePassed", "m0")).isInstanceOf(EventCorrelator.Drop.class);
        assertThat(record(NODE, "GateFailed", "new")).isInstanceOf(EventCorrelator.Drop.class);
        // Warnings have their own bucket: Normal chatter does not silence them
        assertThat(correlator.correlate(NODE, EventType.WARNING, "GateFailed", "new"))
                .isInstanceOf(EventCorrelator.Create.class);
        // another object has its own bucket
        assertThat(record(POLICY, "GatePassed", "m0")).isInstanceOf(EventCorrelator.Create.class);

        clock.advance(Duration.ofMinutes(4));
        assertThat(record(NODE, "GatePassed", "m0")).isInstanceOf(EventCorrelator.Drop.class);
        clock.advance(Duration.ofMinutes(1));
        assertThat(record(NODE, "GatePassed", "m0")).isNotInstanceOf(EventCorrelator.Drop.class);
        assertThat(record(NODE, "GatePassed", "m0")).isInstanceOf(EventCorrelator.Drop.class);

        // a long quiet refills the bucket to its burst, never beyond
        clock.advance(Duration.ofDays(1));
        for (int i = 0; i < 25; i++) {
            assertThat(record(NODE, "GatePassed", "m0"))
                    .isNotInstanceOf(EventCorrelator.Drop.class);
        }
        assertThat(record(NODE, "GatePassed", "m0")).isInstanceOf(EventCorrelator.Drop.class);
    }

    @Test
    void fiveThousandNodesKeepTheCachesBounded() {
        EventCorrelator small =
                new EventCorrelator(
                        new EventCorrelator.Settings(
                                100,
                                25,
                                Duration.ofMinutes(5),
                                10,
                                Duration.ofMinutes(10),
                                Duration.ofHours(1)),
                        clock);
        for (int i = 0; i < 5000; i++) {
            small.correlate(
                    new InvolvedObject("v1", "Node", null, "gpu-" + i, "u" + i),
                    EventType.NORMAL,
                    "GatePassed",
                    "passed");
        }
        assertThat(small.cached()).isLessThanOrEqualTo(300);
    }

    @Test
    void aFailedWriteIsForgottenSoTheNextOccurrenceCreatesTheEventAgain() {
        var first = (EventCorrelator.Create) record(NODE, "GatePassed", "m");
        correlator.failed(first.event());
        assertThat(record(NODE, "GatePassed", "m")).isInstanceOf(EventCorrelator.Create.class);
    }

    @Test
    void eventsOfOneObjectAtTheSameInstantGetDistinctNames() {
        var a = (EventCorrelator.Create) record(NODE, "GatePassed", "a");
        var b = (EventCorrelator.Create) record(NODE, "GatePassed", "b");
        assertThat(a.event().name()).isNotEqualTo(b.event().name());
    }

    @Test
    void aNamespacedObjectsEventLivesInItsNamespace() {
        var ds =
                new InvolvedObject(
                        "apps/v1", "DaemonSet", "gpu-operator", "nvidia-driver-daemonset", "u");
        var d = (EventCorrelator.Create) record(ds, "X", "m");
        assertThat(d.event().namespace()).isEqualTo("gpu-operator");
    }
}
