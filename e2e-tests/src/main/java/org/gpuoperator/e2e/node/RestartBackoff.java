package org.gpuoperator.e2e.node;

import java.time.Duration;

/**
 * The kubelet's crash-loop back-off: the first restart waits {@code base}, each next one twice as
 * long, up to {@code max} (the kubelet: 10 s doubling to 5 min). Tests use a small base; {@link
 * CrashLoop} applies it.
 */
public record RestartBackoff(Duration base, Duration max) {

    public static final RestartBackoff KUBELET =
            new RestartBackoff(Duration.ofSeconds(10), Duration.ofMinutes(5));

    /**
     * The wait before the restart that follows {@code step} earlier back-offs (0 for the first).
     */
    public Duration delay(int step) {
        Duration d = base;
        for (int i = 0; i < step && d.compareTo(max) < 0; i++) {
            d = d.multipliedBy(2);
        }
        return d.compareTo(max) > 0 ? max : d;
    }
}
