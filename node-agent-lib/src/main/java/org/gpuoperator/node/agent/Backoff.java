package org.gpuoperator.node.agent;

import java.time.Duration;

/**
 * Retry delays that double from {@code initial} up to {@code max}; {@link #reset} after a success.
 * Not thread-safe.
 */
public final class Backoff {

    private final Duration initial;
    private final Duration max;
    private Duration next;

    public Backoff(Duration initial, Duration max) {
        if (initial.isNegative() || initial.isZero()) {
            throw new IllegalArgumentException("initial backoff must be positive, got " + initial);
        }
        this.initial = initial;
        this.max = max.compareTo(initial) < 0 ? initial : max;
        this.next = initial;
    }

    /** The delay before the next attempt; doubles the one after it. */
    public Duration next() {
        Duration d = next;
        Duration doubled = next.multipliedBy(2);
        next = doubled.compareTo(max) > 0 ? max : doubled;
        return d;
    }

    /** What {@link #next} would return, without advancing. */
    public Duration peek() {
        return next;
    }

    public void reset() {
        next = initial;
    }
}
