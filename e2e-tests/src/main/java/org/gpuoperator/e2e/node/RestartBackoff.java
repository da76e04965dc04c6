package org.gpuoperator.e2e.node;

import java.time.Duration;

/**
 * The kubelet's crash-loop back-off: the first restart waits {@code base}, each next one twice as long, up to
 * {@code max} (the kubelet: 10 s doubling to 5 min). A container that ran for at least {@code 2 * max} before it exited
 * starts over at {@code base}. Tests use a small base.
 */
public record RestartBackoff(Duration base, Duration max) {

    public static final RestartBackoff KUBELET = new RestartBackoff(Duration.ofSeconds(10), Duration.ofMinutes(5));

    /** The wait before the restart that follows {@code step} earlier back-offs (0 for the first). */
    public Duration delay(int step) {
        Duration d = base;
        for (int i = 0; i < step && d.compareTo(max) < 0; i++) {
            d = d.multipliedBy(2);
        }
        return d.compareTo(max) > 0 ? max : d;
    }

    /** The back-off step after a container that ran for {@code ran} exited, given the step it was at. */
    public int nextStep(int step, Duration ran) {
        return ran.compareTo(max.multipliedBy(2)) >= 0 ? 0 : step + 1;
    }
}
