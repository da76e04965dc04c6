package org.gpuoperator.e2e.node;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class CrashLoopTest {

    static final Instant T0 = Instant.parse("2026-12-01T10:00:00Z");

    @Test
    void restartPolicies() {
        assertThat(CrashLoop.restarts("Always", false, 0)).isTrue();
        assertThat(CrashLoop.restarts(null, false, 1)).isTrue();
        assertThat(CrashLoop.restarts("Always", true, 0)).isFalse();
        assertThat(CrashLoop.restarts("Always", true, 1)).isTrue();
        assertThat(CrashLoop.restarts("OnFailure", false, 0)).isFalse();
        assertThat(CrashLoop.restarts("OnFailure", false, 2)).isTrue();
        assertThat(CrashLoop.restarts("Never", false, 2)).isFalse();
    }

    @Test
    void firstRestartIsImmediateThenTenSecondsDoublingToFiveMinutes() {
        RestartBackoff b = RestartBackoff.KUBELET;
        Instant now = T0;
        CrashLoop.Schedule s = CrashLoop.Schedule.FRESH;
        s = CrashLoop.afterExit(b, s, Duration.ofSeconds(1), now);
        assertThat(s.delay()).isZero();
        assertThat(CrashLoop.inBackOff(s, now)).isFalse();
        long[] expected = {10, 20, 40, 80, 160, 300, 300};
        for (long secs : expected) {
            s = CrashLoop.afterExit(b, s, Duration.ofSeconds(1), now);
            assertThat(s.delay()).isEqualTo(Duration.ofSeconds(secs));
            assertThat(CrashLoop.inBackOff(s, now.plusSeconds(secs).minusMillis(1))).isTrue();
            assertThat(CrashLoop.inBackOff(s, now.plusSeconds(secs))).isFalse();
            now = now.plusSeconds(secs + 1);
        }
        // a run of 10 minutes or more resets the back-off: the next restart is immediate again
        s = CrashLoop.afterExit(b, s, Duration.ofMinutes(10), now);
        assertThat(s.delay()).isZero();
        assertThat(CrashLoop.afterExit(b, s, Duration.ofSeconds(1), now).delay())
                .isEqualTo(Duration.ofSeconds(10));
    }

    @Test
    void waitingMessageAsTheKubeletWritesIt() {
        CrashLoop.Schedule s =
                new CrashLoop.Schedule(3, T0.plusSeconds(20), Duration.ofSeconds(20));
        assertThat(CrashLoop.message(s, "c", "p", "ns", "u1"))
                .isEqualTo("back-off 20s restarting failed container=c pod=p_ns(u1)");
        assertThat(CrashLoop.goDuration(Duration.ofMinutes(5))).isEqualTo("5m0s");
        assertThat(CrashLoop.goDuration(Duration.ofSeconds(160))).isEqualTo("2m40s");
        assertThat(CrashLoop.goDuration(Duration.ofMillis(500))).isEqualTo("500ms");
        assertThat(CrashLoop.goDuration(Duration.ofMillis(1500))).isEqualTo("1.5s");
    }
}
