package org.gpuoperator.node.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The warm-up never holds an agent's JVM open, ends by itself, and each of its steps does its work.
 */
class FirstRequestWarmUpTest {

    @Test
    void itRunsOnADaemonThreadThatEnds() throws InterruptedException {
        Thread warmUp = FirstRequestWarmUp.start();
        assertThat(warmUp.isDaemon()).as("an agent that exits does not wait for it").isTrue();
        assertThat(warmUp.getName()).isEqualTo("first-request-warm-up");
        assertThat(warmUp.join(Duration.ofMinutes(1))).isTrue();
    }

    @Test
    void everyStepRunsOnThisRuntimeAndClassPath() {
        // the warm-up swallows a failure (a class renamed in a new Jackson, a store moved), which
        // would silently put that work back on the request's path: here each step must succeed
        assertThat(FirstRequestWarmUp.steps())
                .extracting(FirstRequestWarmUp.Step::name)
                .containsExactly(
                        "object-mapper",
                        "default-trust-store",
                        "tls-context",
                        "key-shares",
                        "json-parser");
        for (FirstRequestWarmUp.Step step : FirstRequestWarmUp.steps()) {
            assertThatCode(() -> step.work().run()).as(step.name()).doesNotThrowAnyException();
        }
    }
}
