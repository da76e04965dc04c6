package org.gpuoperator.validator.report;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executors;
import java.util.function.Supplier;
import org.gpuoperator.node.agent.HostPort;

/** Serves {@code /metrics} (the Prometheus text format) from the latest report. */
public final class MetricsServer implements AutoCloseable {

    private final HttpServer server;

    private MetricsServer(HttpServer server) {
        this.server = server;
    }

    public static MetricsServer start(String address, Supplier<String> metrics) throws IOException {
        HttpServer server = HttpServer.create(HostPort.parse(address).socketAddress(), 8);
        server.createContext(
                "/metrics",
                ex -> {
                    byte[] b = metrics.get().getBytes(StandardCharsets.UTF_8);
                    ex.getResponseHeaders()
                            .set("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
                    ex.sendResponseHeaders(200, b.length);
                    try (OutputStream os = ex.getResponseBody()) {
                        os.write(b);
                    }
                });
        server.setExecutor(
                Executors.newSingleThreadExecutor(
                        r -> {
                            Thread t = new Thread(r, "metrics-http");
                            t.setDaemon(true);
                            return t;
                        }));
        server.start();
        return new MetricsServer(server);
    }

    public int port() {
        return server.getAddress().getPort();
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
