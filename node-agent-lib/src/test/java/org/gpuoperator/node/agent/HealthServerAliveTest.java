package org.gpuoperator.node.agent;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

class HealthServerAliveTest {

    @Test
    void healthzAnswers503WhileNotAliveAndReadyzStaysItsOwn() throws Exception {
        AtomicBoolean alive = new AtomicBoolean(true);
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        HealthServer.register(server, "/healthz", alive::get, "/readyz", () -> true);
        server.start();
        try (HttpClient http = HttpClient.newHttpClient()) {
            String base = "http://127.0.0.1:" + server.getAddress().getPort();
            assertThat(status(http, base + "/healthz")).isEqualTo(200);
            alive.set(false);
            assertThat(status(http, base + "/healthz")).isEqualTo(503);
            assertThat(status(http, base + "/readyz")).isEqualTo(200);
        } finally {
            server.stop(0);
        }
    }

    private static int status(HttpClient http, String url) throws Exception {
        return http.send(
                        HttpRequest.newBuilder(URI.create(url)).build(),
                        HttpResponse.BodyHandlers.discarding())
                .statusCode();
    }
}
