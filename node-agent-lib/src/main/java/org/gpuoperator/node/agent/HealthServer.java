package org.gpuoperator.node.agent;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.spi.HttpServerProvider;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executors;
import java.util.function.BooleanSupplier;

/**
 * {@code /healthz} (the process is alive) and {@code /readyz} (its work is verified) for kubelet
 * probes and the simulated node. Uses the JDK's built-in server: no extra threads or libraries
 * beyond one handler thread.
 */
public final class HealthServer implements AutoCloseable {

    private final HttpServer server;

    private HealthServer(HttpServer server) {
        this.server = server;
    }

    /**
     * Looks the JDK's HTTP server provider up on a daemon thread, for an agent to call first thing:
     * the lookup is a {@code ServiceLoader} scan that opens every jar on the class path (with an
     * AOT cache none is open yet at start: ~15-25 ms on the main thread by async-profiler). The JDK
     * keeps the provider it found, so {@link #start} then finds it done, or waits for the scan
     * under way; the scan is the same either way. Called where it measured faster (the agents whose
     * health server or Kubernetes client comes after other work), not in every agent: where the
     * health server starts right after the command line is parsed it gave nothing.
     *
     * @return the lookup's thread, which ends by itself
     */
    public static Thread lookUpProviderEarly() {
        return Thread.ofPlatform()
                .daemon()
                .name("http-provider-lookup")
                .start(HttpServerProvider::provider);
    }

    /**
     * Starts serving on {@code address} ({@code host:port}, {@code :port}, or port 0 for any free
     * port).
     *
     * @param ready answers {@code /readyz}
     */
    public static HealthServer start(String address, BooleanSupplier ready) throws IOException {
        HttpServer server = HttpServer.create(HostPort.parse(address).socketAddress(), 8);
        register(server, "/healthz", "/readyz", ready);
        server.setExecutor(
                Executors.newSingleThreadExecutor(
                        r -> {
                            Thread t = new Thread(r, "health-http");
                            t.setDaemon(true);
                            return t;
                        }));
        server.start();
        return new HealthServer(server);
    }

    /**
     * Adds the liveness handler (always 200 {@code ok}) at {@code healthPath} and, when {@code
     * readyPath} is not null, the readiness handler (200 {@code ready} or 503 {@code not ready}, as
     * {@code ready} answers) to a server the caller owns, e.g. an exporter's metrics server whose
     * probe path is upstream's.
     */
    public static void register(
            HttpServer server, String healthPath, String readyPath, BooleanSupplier ready) {
        register(server, healthPath, () -> true, readyPath, ready);
    }

    /**
     * As {@link #register(HttpServer, String, String, BooleanSupplier)}, with {@code healthPath}
     * answering 503 while {@code alive} is false (the kubelet's liveness probe then restarts the
     * container).
     */
    public static void register(
            HttpServer server,
            String healthPath,
            BooleanSupplier alive,
            String readyPath,
            BooleanSupplier ready) {
        server.createContext(
                healthPath,
                ex -> {
                    boolean a = alive.getAsBoolean();
                    respond(ex, a ? 200 : 503, a ? "ok\n" : "not alive\n");
                });
        if (readyPath != null) {
            server.createContext(
                    readyPath,
                    ex -> {
                        boolean r = ready.getAsBoolean();
                        respond(ex, r ? 200 : 503, r ? "ready\n" : "not ready\n");
                    });
        }
    }

    public int port() {
        return server.getAddress().getPort();
    }

    private static void respond(HttpExchange ex, int code, String body) throws IOException {
        byte[] b = body.getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
        ex.getResponseHeaders().set("X-Content-Type-Options", "nosniff");
        ex.sendResponseHeaders(code, b.length);
        try (OutputStream os = ex.getResponseBody()) {
            os.write(b);
        }
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
