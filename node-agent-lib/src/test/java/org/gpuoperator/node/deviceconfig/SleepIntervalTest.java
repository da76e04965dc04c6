package org.gpuoperator.node.deviceconfig;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class SleepIntervalTest {

    @ParameterizedTest(name = "{0} = {1} ms")
    @CsvSource({
        "60s, 60000",
        "1m, 60000",
        "1m30s, 90000",
        "500ms, 500",
        "1h, 3600000",
        "1.5s, 1500",
        "2h45m, 9900000",
        "60, 60000",
        "300, 300000",
        "PT5M, 300000"
    })
    void goDurations(String text, long millis) {
        assertThat(SleepInterval.parse(text, "--sleep-interval").duration())
                .contains(Duration.ofMillis(millis));
    }

    @ParameterizedTest
    @ValueSource(strings = {"infinite", " infinite "})
    void infinite(String text) {
        assertThat(SleepInterval.parse(text, "x").infinite()).isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "s", "1x", "1m foo", "-1s", "0s", "0", "PT0S", "-PT1M", "forever"})
    void invalid(String text) {
        assertThatThrownBy(() -> SleepInterval.parse(text, "--sleep-interval"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("--sleep-interval: ");
    }

    @org.junit.jupiter.api.Test
    void writtenGoStyle() {
        assertThat(SleepInterval.parse("90", "x")).hasToString("1m30s");
        assertThat(SleepInterval.DEFAULT).hasToString("1m");
        assertThat(SleepInterval.INFINITE).hasToString("infinite");
    }
}
