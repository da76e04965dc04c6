package org.gpuoperator.controller.events;

import java.time.Duration;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The recorder the controller uses: {@link #record} only puts the Event on a bounded queue ({@value
 * #QUEUE} Events, client-go's broadcaster's; when full the Event is dropped); one thread correlates
 * ({@link EventCorrelator}) and writes them ({@link EventSink}). A write that fails is logged and
 * forgotten.
 */
public final class AsyncEventRecorder implements EventRecorder, AutoCloseable {

    static final int QUEUE = 1000;

    /** Outcomes counted in {@code gpu_operator_events_total{result}}. */
    public static final String CREATED = "created";

    public static final String UPDATED = "updated";
    public static final String RATE_LIMITED = "rate_limited";
    public static final String QUEUE_FULL = "queue_full";
    public static final String FAILED = "failed";

    private static final Logger LOG = LoggerFactory.getLogger(AsyncEventRecorder.class);

    private record Recorded(InvolvedObject object, EventType type, String reason, String message) {}

    private final EventCorrelator correlator;
    private final EventSink sink;
    private final Consumer<String> outcomes;
    private final BlockingQueue<Recorded> queue = new LinkedBlockingQueue<>(QUEUE);
    private final AtomicInteger pending = new AtomicInteger();
    private final Thread worker;
    private volatile boolean running = true;

    /**
     * @param outcomes told each Event's outcome ({@link #CREATED}, ...), for the metrics
     */
    public AsyncEventRecorder(
            EventCorrelator correlator, EventSink sink, Consumer<String> outcomes) {
        this.correlator = correlator;
        this.sink = sink;
        this.outcomes = outcomes;
        this.worker = Thread.ofPlatform().daemon().name("event-recorder").unstarted(this::run);
        worker.start();
    }

    @Override
    public void record(InvolvedObject object, EventType type, String reason, String message) {
        if (object == null || object.name() == null) {
            return;
        }
        pending.incrementAndGet();
        if (!queue.offer(new Recorded(object, type, reason, truncate(message)))) {
            pending.decrementAndGet();
            count(QUEUE_FULL);
        }
    }

    /**
     * Waits until every Event recorded so far is written or dropped (tests, and a clean shutdown).
     *
     * @return false when {@code timeout} passed first
     */
    public boolean awaitIdle(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (pending.get() > 0) {
            if (System.nanoTime() > deadline) {
                return false;
            }
            try {
                Thread.sleep(5);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        return true;
    }

    private void run() {
        while (running) {
            Recorded r;
            try {
                r = queue.poll(200, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                return;
            }
            if (r == null) {
                continue;
            }
            try {
                write(r);
            } finally {
                pending.decrementAndGet();
            }
        }
    }

    private void write(Recorded r) {
        EventCorrelator.Decision d;
        try {
            d = correlator.correlate(r.object(), r.type(), r.reason(), r.message());
        } catch (RuntimeException e) {
            LOG.warn("cannot correlate an Event: {}", e.toString());
            count(FAILED);
            return;
        }
        EventData event = null;
        try {
            switch (d) {
                case EventCorrelator.Drop drop -> count(RATE_LIMITED);
                case EventCorrelator.Create c -> {
                    event = c.event();
                    sink.create(event);
                    count(CREATED);
                }
                case EventCorrelator.Update u -> {
                    event = u.event();
                    if (sink.update(event)) {
                        count(UPDATED);
                    } else {
                        // expired on the server: written again, with its count
                        sink.create(event);
                        count(CREATED);
                    }
                }
            }
        } catch (RuntimeException e) {
            LOG.warn(
                    "cannot write Event {} about {} {}: {}",
                    r.reason(),
                    r.object().kind(),
                    r.object().name(),
                    e.toString());
            count(FAILED);
            if (event != null) {
                correlator.failed(event);
            }
        }
    }

    private void count(String outcome) {
        try {
            outcomes.accept(outcome);
        } catch (RuntimeException e) {
            // metrics never stop the Events
        }
    }

    /** kube-apiserver refuses longer messages from the events API; kubectl shows one line. */
    static String truncate(String message) {
        if (message == null) {
            return "";
        }
        return message.length() <= 1024 ? message : message.substring(0, 1021) + "...";
    }

    @Override
    public void close() {
        running = false;
        worker.interrupt();
    }
}
