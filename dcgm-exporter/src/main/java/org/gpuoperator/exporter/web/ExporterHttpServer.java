package org.gpuoperator.exporter.web;

import com.sun.net.httpserver.HttpContext;
import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsParameters;
import com.sun.net.httpserver.HttpsServer;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;

/**
 * {@code /metrics} (Prometheus text format 0.0.4, written by the Prometheus Java client) and {@code /health} (always 200,
 * as upstream, and without authentication so kubelet probes work), over HTTP or, with a web config that has
 * {@code tls_server_config}, HTTPS.
 */
public final class ExporterHttpServer implements AutoCloseable {

    private final HttpServer server;
    private final ExecutorService executor;
    private final CachedTextHandler metricsHandler;

    private ExporterHttpServer(HttpServer server, ExecutorService executor, CachedTextHandler metricsHandler) {
        this.server = server;
        this.executor = executor;
        this.metricsHandler = metricsHandler;
    }

    /**
     * @param address   {@code HOST:PORT} or {@code :PORT}; port 0 picks a free one
     * @param webConfig the watched web config, or null for plain HTTP without authentication
     */
    public static ExporterHttpServer start(String address, Supplier<MetricSnapshots> metrics,
            WebConfigWatcher webConfig)
            throws IOException {
        InetSocketAddress bind = parseAddress(address);
        HttpServer server;
        if (webConfig != null && webConfig.current().config().tls() != null) {
            HttpsServer https = HttpsServer.create(bind, 16);
            https.setHttpsConfigurator(tlsConfigurator(webConfig));
            server = https;
        } else {
            server = HttpServer.create(bind, 16);
        }
        CachedTextHandler metricsHandler = new CachedTextHandler(metrics);
        HttpContext metricsContext = server.createContext("/metrics", metricsHandler);
        if (webConfig != null) {
            metricsContext.getFilters().add(new BasicAuthFilter(webConfig));
        }
        server.createContext("/health", ex -> {
            byte[] ok = "OK".getBytes(StandardCharsets.UTF_8);
            ex.getResponseHeaders().set("Content-Type", "text/plain; charset=utf-8");
            ex.getResponseHeaders().set("X-Content-Type-Options", "nosniff");
            ex.sendResponseHeaders(200, ok.length);
            try (OutputStream os = ex.getResponseBody()) {
                os.write(ok);
            }
        });
        AtomicInteger n = new AtomicInteger();
        // Two threads: scrapes are cheap (prebuilt families), and Prometheus rarely scrapes one target in parallel.
        ExecutorService executor = Executors.newFixedThreadPool(2, r -> {
            Thread t = new Thread(r, "metrics-http-" + n.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
        server.setExecutor(executor);
        server.start();
        return new ExporterHttpServer(server, executor, metricsHandler);
    }

    private static HttpsConfigurator tlsConfigurator(WebConfigWatcher webConfig) {
        SSLContext ctx;
        try {
            ctx = SSLContext.getInstance("TLS");
            ctx.init(new KeyManager[] {new ReloadingKeyManager(webConfig)}, null, null);
        } catch (GeneralSecurityException e) {
            throw new WebConfigException("cannot set up TLS: " + e.getMessage());
        }
        return new HttpsConfigurator(ctx) {
            @Override
            public void configure(HttpsParameters params) {
                SSLParameters p = getSSLContext().getDefaultSSLParameters();
                String min = webConfig.current().config().tls() == null ? "TLSv1.2"
                        : webConfig.current().config().tls().minVersion();
                p.setProtocols(min.equals("TLSv1.3") ? new String[] {"TLSv1.3"}
                        : new String[] {"TLSv1.3", "TLSv1.2"});
                params.setSSLParameters(p);
            }
        };
    }

    /** {@code HOST:PORT}, {@code :PORT} or {@code [::]:PORT}. */
    public static InetSocketAddress parseAddress(String address) {
        int colon = address.lastIndexOf(':');
        if (colon < 0) {
            throw new IllegalArgumentException("--address: expected HOST:PORT or :PORT, got '" + address + "'");
        }
        String host = address.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        int port;
        try {
            port = Integer.parseInt(address.substring(colon + 1));
        } catch (NumberFormatException e) {
            port = -1;
        }
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("--address: invalid port in '" + address + "'");
        }
        return host.isEmpty() ? new InetSocketAddress(port) : new InetSocketAddress(host, port);
    }

    /**
     * Builds and renders the {@code /metrics} answer (plain and gzip) for the current samples and pods now, on the
     * caller's thread, so that the next scrape finds it ready.
     */
    public void prepare() {
        metricsHandler.prepare();
    }

    /**
     * {@code task} runs once, on the scrape thread, right after the first {@code /metrics} answer has been sent: work
     * that only pays off while someone scrapes starts there, so an exporter nobody scrapes stays at its idle size.
     */
    public void onFirstScrape(Runnable task) {
        metricsHandler.onFirstScrape(task);
    }

    public int port() {
        return server.getAddress().getPort();
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}
