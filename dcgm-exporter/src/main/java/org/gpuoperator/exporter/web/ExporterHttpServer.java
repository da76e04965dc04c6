package org.gpuoperator.exporter.web;

import com.sun.net.httpserver.HttpContext;
import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsParameters;
import com.sun.net.httpserver.HttpsServer;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.security.GeneralSecurityException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import org.gpuoperator.node.agent.HealthServer;
import org.gpuoperator.node.agent.HostPort;

/**
 * {@code /metrics} (Prometheus text format 0.0.4, written by the Prometheus Java client) and {@code
 * /health} (upstream's path, always 200, and without authentication so kubelet probes work; the
 * agent kit's liveness handler), over HTTP or, with a web config that has {@code
 * tls_server_config}, HTTPS.
 */
public final class ExporterHttpServer implements AutoCloseable {

    private final HttpServer server;
    private final ExecutorService executor;
    private final CachedTextHandler metricsHandler;

    private ExporterHttpServer(
            HttpServer server, ExecutorService executor, CachedTextHandler metricsHandler) {
        this.server = server;
        this.executor = executor;
        this.metricsHandler = metricsHandler;
    }

    /**
     * @param address where to listen; port 0 picks a free one
     * @param webConfig the watched web config, or null for plain HTTP without authentication
     */
    public static ExporterHttpServer start(
            HostPort address, Supplier<MetricSnapshots> metrics, WebConfigWatcher webConfig)
            throws IOException {
        InetSocketAddress bind = address.socketAddress();
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
        HealthServer.register(
                server, "/health", null, null); // upstream's probe path, no authentication
        AtomicInteger n = new AtomicInteger();
        // Two threads: scrapes are cheap (prebuilt families), and Prometheus rarely scrapes one
        // target in parallel.
        ExecutorService executor =
                Executors.newFixedThreadPool(
                        2,
                        r -> {
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
                String min =
                        webConfig.current().config().tls() == null
                                ? "TLSv1.2"
                                : webConfig.current().config().tls().minVersion();
                p.setProtocols(
                        min.equals("TLSv1.3")
                                ? new String[] {"TLSv1.3"}
                                : new String[] {"TLSv1.3", "TLSv1.2"});
                params.setSSLParameters(p);
            }
        };
    }

    /**
     * Builds and renders the {@code /metrics} answer (plain and gzip) for the current samples and
     * pods now, on the caller's thread, so that the next scrape finds it ready.
     */
    public void prepare() {
        metricsHandler.prepare();
    }

    /**
     * {@code task} runs once, on the scrape thread, right after the first {@code /metrics} answer
     * has been sent: work that only pays off while someone scrapes starts there, so an exporter
     * nobody scrapes stays at its idle size.
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
