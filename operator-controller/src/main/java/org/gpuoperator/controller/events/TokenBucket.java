package org.gpuoperator.controller.events;

import java.time.Duration;
import java.time.Instant;

/**
 * A token bucket on a given time line (pure): {@code burst} tokens at first, one more every {@code
 * refillEvery}, never more than {@code burst}.
 */
final class TokenBucket {

    private final int burst;
    private final long refillNanos;
    private double tokens;
    private Instant last;

    TokenBucket(int burst, Duration refillEvery, Instant now) {
        this.burst = burst;
        this.refillNanos = refillEvery.toNanos();
        this.tokens = burst;
        this.last = now;
    }

    /** Takes a token if there is one at {@code now}. */
    boolean tryTake(Instant now) {
        if (now.isAfter(last)) {
            long elapsed = Duration.between(last, now).toNanos();
            tokens = Math.min(burst, tokens + (double) elapsed / refillNanos);
            last = now;
        }
        if (tokens >= 1) {
            tokens -= 1;
            return true;
        }
        return false;
    }
}
