package org.gpuoperator.node.agent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AgentSupportTest {

    @TempDir Path dir;

    @Test
    void eventLogWritesOneLogfmtLineAndQuotesWhereNeeded() {
        String line =
                EventLog.format(
                        Instant.parse("2026-01-01T00:00:00Z"),
                        "info",
                        "device-plugin",
                        "registered",
                        "resource",
                        "nvidia.com/gpu",
                        "message",
                        "a b=\"c\"");
        assertThat(line)
                .isEqualTo(
                        "ts=2026-01-01T00:00:00Z level=info component=device-plugin event=registered "
                                + "resource=nvidia.com/gpu message=\"a b=\\\"c\\\"\"");
        assertThatThrownBy(() -> EventLog.format(Instant.EPOCH, "info", "c", "e", "odd"))
                .hasMessageContaining("pairs");
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        new EventLog("x", new PrintStream(out, true)).warn("multi\nline");
        assertThat(out.toString().lines()).hasSize(1);
    }

    @Test
    void eventLogKeysHaveOneStyle() {
        String line =
                EventLog.format(
                        Instant.EPOCH,
                        "info",
                        "c",
                        "e",
                        "previousDefault",
                        "a",
                        "pod_resources_socket",
                        "b",
                        "health-port",
                        1,
                        "runtimesAdded",
                        2);
        assertThat(line)
                .endsWith(
                        " previous-default=a pod-resources-socket=b health-port=1 runtimes-added=2");
    }

    @Test
    void atomicWriteReplacesContentAndKeepsTheMode() throws Exception {
        Path f = dir.resolve("config.toml");
        Files.writeString(f, "old");
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rw-------"));
        AtomicFiles.writeString(f, "new");
        assertThat(Files.readString(f)).isEqualTo("new");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(f)))
                .isEqualTo("rw-------");
        try (var s = Files.list(dir)) {
            assertThat(s).containsExactly(f); // no temp file left behind
        }
        Path fresh = dir.resolve("driver-ready");
        AtomicFiles.writeString(fresh, "IS_HOST_DRIVER=true\n");
        assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(fresh)))
                .isEqualTo("rw-r--r--");
    }

    @Test
    void readinessFilesCarryFactsAndAwaitTimesOut() throws Exception {
        ReadinessFiles r = new ReadinessFiles(dir.resolve("validations"));
        EventLog log = new EventLog("t", new PrintStream(new ByteArrayOutputStream()));
        assertThat(r.read(ReadinessFiles.DRIVER)).isEmpty();
        PredecessorWait wait = new PredecessorWait(r, Duration.ofMillis(20), log);
        assertThatThrownBy(() -> wait.await(ReadinessFiles.DRIVER, Duration.ofMillis(100)))
                .isInstanceOf(TimeoutException.class)
                .hasMessageContaining("driver-ready");
        r.markReady(ReadinessFiles.DRIVER, Map.of("IS_HOST_DRIVER", "true"));
        assertThat(wait.await(ReadinessFiles.DRIVER, Duration.ofSeconds(1)).orElseThrow())
                .containsEntry("IS_HOST_DRIVER", "true");
        r.clear(ReadinessFiles.DRIVER);
        assertThat(r.read(ReadinessFiles.DRIVER)).isEmpty();
    }

    @Test
    void healthServerAnswersLivenessAndReadiness() throws Exception {
        AtomicBoolean ready = new AtomicBoolean(false);
        try (HealthServer s = HealthServer.start("127.0.0.1:0", ready::get)) {
            HttpClient c = HttpClient.newHttpClient();
            URI base = URI.create("http://127.0.0.1:" + s.port());
            assertThat(
                            c.send(
                                            HttpRequest.newBuilder(base.resolve("/healthz"))
                                                    .build(),
                                            HttpResponse.BodyHandlers.ofString())
                                    .statusCode())
                    .isEqualTo(200);
            assertThat(
                            c.send(
                                            HttpRequest.newBuilder(base.resolve("/readyz")).build(),
                                            HttpResponse.BodyHandlers.ofString())
                                    .statusCode())
                    .isEqualTo(503);
            ready.set(true);
            assertThat(
                            c.send(
                                            HttpRequest.newBuilder(base.resolve("/readyz")).build(),
                                            HttpResponse.BodyHandlers.ofString())
                                    .statusCode())
                    .isEqualTo(200);
        }
        assertThatThrownBy(() -> HealthServer.start("8080", ready::get))
                .hasMessageContaining("HOST:PORT");
    }

    @Test
    void healthHandlersGoOnAServerTheCallerOwnsAtItsPaths() throws Exception {
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 8);
        HealthServer.register(server, "/health", null, null);
        server.start();
        try {
            HttpClient c = HttpClient.newHttpClient();
            URI base = URI.create("http://127.0.0.1:" + server.getAddress().getPort());
            HttpResponse<String> r =
                    c.send(
                            HttpRequest.newBuilder(base.resolve("/health")).build(),
                            HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.body()).isEqualTo("ok\n");
            assertThat(r.headers().firstValue("X-Content-Type-Options")).hasValue("nosniff");
            assertThat(
                            c.send(
                                            HttpRequest.newBuilder(base.resolve("/readyz")).build(),
                                            HttpResponse.BodyHandlers.ofString())
                                    .statusCode())
                    .isEqualTo(404);
        } finally {
            server.stop(0);
        }
    }
}
