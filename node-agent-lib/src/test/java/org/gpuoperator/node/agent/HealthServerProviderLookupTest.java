package org.gpuoperator.node.agent;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The early provider lookup never holds an agent's JVM open, and the health server still serves.
 */
class HealthServerProviderLookupTest {

    @Test
    void theLookupRunsOnADaemonThreadThatEndsAndTheServerStartsAfterIt() throws Exception {
        Thread lookup = HealthServer.lookUpProviderEarly();
        assertThat(lookup.isDaemon()).as("an agent that exits does not wait for it").isTrue();
        assertThat(lookup.getName()).isEqualTo("http-provider-lookup");
        assertThat(lookup.join(Duration.ofMinutes(1))).isTrue();
        try (HealthServer health = HealthServer.start("127.0.0.1:0", () -> true);
                HttpClient http = HttpClient.newHttpClient()) {
            HttpResponse<String> ready =
                    http.send(
                            HttpRequest.newBuilder(
                                            URI.create(
                                                    "http://127.0.0.1:"
                                                            + health.port()
                                                            + "/readyz"))
                                    .build(),
                            HttpResponse.BodyHandlers.ofString());
            assertThat(ready.statusCode()).isEqualTo(200);
            assertThat(ready.body()).isEqualTo("ready\n");
        }
    }
}
