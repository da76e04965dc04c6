package org.gpuoperator.controller.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.gpuoperator.api.v1.PolicyWarning;
import org.junit.jupiter.api.Test;

class NvidiaDriversTest {

    private Instant now = Instant.parse("2026-12-01T12:00:00Z");
    private final Clock clock =
            new Clock() {
                @Override
                public ZoneOffset getZone() {
                    return ZoneOffset.UTC;
                }

                @Override
                public Clock withZone(java.time.ZoneId zone) {
                    return this;
                }

                @Override
                public Instant instant() {
                    return now;
                }
            };

    @Test
    void eachNvidiaDriverIsOneWarningAndTheListIsReadAtMostOnceAMinute() {
        List<String> inCluster = new ArrayList<>(List.of("default-driver"));
        AtomicInteger lists = new AtomicInteger();
        NvidiaDrivers drivers =
                new NvidiaDrivers(
                        () -> {
                            lists.incrementAndGet();
                            return List.copyOf(inCluster);
                        },
                        clock);

        assertThat(drivers.warnings())
                .extracting(PolicyWarning::getPath, PolicyWarning::getMessage)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple(
                                "nvidiadrivers/default-driver",
                                "NVIDIADriver is not acted on: the ClusterPolicy's"
                                        + " spec.driver.useNvidiaDriverCRD is not true (or its"
                                        + " driver is disabled)"));
        inCluster.add("a100-driver");
        now = now.plus(Duration.ofSeconds(59));
        assertThat(drivers.warnings()).hasSize(1);
        assertThat(lists).hasValue(1);

        now = now.plus(Duration.ofSeconds(1));
        assertThat(drivers.warnings())
                .extracting(PolicyWarning::getPath)
                .containsExactly("nvidiadrivers/default-driver", "nvidiadrivers/a100-driver");
        assertThat(lists).hasValue(2);
    }

    @Test
    void noNvidiaDriverNoWarning() {
        assertThat(new NvidiaDrivers(List::of, clock).warnings()).isEmpty();
    }
}
