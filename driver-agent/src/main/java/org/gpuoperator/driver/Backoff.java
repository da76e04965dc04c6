package org.gpuoperator.driver;

import java.time.Duration;

/** Retry delays that double from {@code initial} up to {@code max}; {@link #reset} after a success. */
final class Backoff {

    private final Duration initial;
    private final Duration max;
    private Duration next;

    Backoff(Duration initial, Duration max) {
        this.initial = initial;
        this.max = max.compareTo(initial) < 0 ? initial : max;
        this.next = initial;
    }

    Duration next() {
        Duration d = next;
        Duration doubled = next.multipliedBy(2);
        next = doubled.compareTo(max) > 0 ? max : doubled;
        return d;
    }

    void reset() {
        next = initial;
    }
}
