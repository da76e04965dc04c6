package org.gpuoperator.node.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The warm-up never holds an agent's JVM open and ends by itself. */
class TlsWarmUpTest {

    @Test
    void itRunsOnADaemonThreadThatEnds() throws InterruptedException {
        Thread warmUp = TlsWarmUp.start();
        assertThat(warmUp.isDaemon()).as("an agent that exits does not wait for it").isTrue();
        assertThat(warmUp.getName()).isEqualTo("tls-warm-up");
        assertThat(warmUp.join(Duration.ofMinutes(1))).isTrue();
    }
}
