package org.gpuoperator.controller.events;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The recorder's writes through a fake sink: creates, counted repeats, failures never thrown. */
class AsyncEventRecorderTest {

    private static final InvolvedObject NODE =
            new InvolvedObject("v1", "Node", null, "gpu-1", "uid-1");
    private static final Duration WAIT = Duration.ofSeconds(30);

    private final TestClock clock = new TestClock();
    private final FakeEventSink sink = new FakeEventSink();
    private final List<String> outcomes = Collections.synchronizedList(new ArrayList<>());
    private final AsyncEventRecorder recorder =
            new AsyncEventRecorder(
                    new EventCorrelator(EventCorrelator.Settings.CLIENT_GO, clock),
                    sink,
                    outcomes::add);

    @AfterEach
    void close() {
        recorder.close();
    }

    @Test
    void aRepeatIsWrittenAsAnUpdateOfTheSameEventWithItsCount() {
        recorder.record(NODE, EventType.NORMAL, "GatePassed", "m");
        recorder.record(NODE, EventType.NORMAL, "GatePassed", "m");
        recorder.record(NODE, EventType.WARNING, "GateFailed", "f");
        assertThat(recorder.awaitIdle(WAIT)).isTrue();

        assertThat(sink.events())
                .extracting(EventData::reason, EventData::count)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple("GatePassed", 2),
                        org.assertj.core.groups.Tuple.tuple("GateFailed", 1));
        assertThat(sink.calls).hasSize(3);
        assertThat(outcomes)
                .containsExactly(
                        AsyncEventRecorder.CREATED,
                        AsyncEventRecorder.UPDATED,
                        AsyncEventRecorder.CREATED);
    }

    @Test
    void anExpiredEventIsCreatedAgainWithItsCount() {
        recorder.record(NODE, EventType.NORMAL, "GatePassed", "m");
        assertThat(recorder.awaitIdle(WAIT)).isTrue();
        sink.expireAll();
        recorder.record(NODE, EventType.NORMAL, "GatePassed", "m");
        assertThat(recorder.awaitIdle(WAIT)).isTrue();
        assertThat(sink.events()).singleElement().extracting(EventData::count).isEqualTo(2);
    }

    @Test
    void aFailingApiServerNeverReachesTheCallerAndTheNextOccurrenceIsCreated() {
        sink.failing = true;
        recorder.record(NODE, EventType.NORMAL, "GatePassed", "m");
        assertThat(recorder.awaitIdle(WAIT)).isTrue();
        assertThat(outcomes).containsExactly(AsyncEventRecorder.FAILED);

        sink.failing = false;
        recorder.record(NODE, EventType.NORMAL, "GatePassed", "m");
        assertThat(recorder.awaitIdle(WAIT)).isTrue();
        assertThat(sink.events()).singleElement().extracting(EventData::count).isEqualTo(1);
    }

    @Test
    void aFloodOfOneObjectIsCutByItsRateLimit() {
        for (int i = 0; i < 40; i++) {
            recorder.record(NODE, EventType.NORMAL, "GatePassed", "m" + i);
        }
        assertThat(recorder.awaitIdle(WAIT)).isTrue();
        assertThat(outcomes.stream().filter(AsyncEventRecorder.RATE_LIMITED::equals).count())
                .isEqualTo(15);
        // 9 messages alone, the rest combined into one counted Event
        assertThat(sink.events()).hasSize(10);
        assertThat(sink.events().getLast().count()).isEqualTo(16);
    }

    @Test
    void aLongMessageIsCut() {
        assertThat(AsyncEventRecorder.truncate("x".repeat(2000))).hasSize(1024).endsWith("...");
        assertThat(AsyncEventRecorder.truncate(null)).isEmpty();
    }
}
