package org.gpuoperator.exporter.web;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.util.function.Supplier;
import java.util.zip.GZIPOutputStream;

/**
 * {@code /metrics} in the Prometheus text format 0.0.4 (what upstream serves), written by the
 * Prometheus Java client's {@link PrometheusTextFormatWriter}. The collector hands out the same
 * {@link MetricSnapshots} instance until samples or pods change, so the written bytes (and their
 * gzip form) are kept and re-sent: a scrape between two sampling rounds costs a copy, not a
 * serialisation. {@link #prepare()} renders them ahead of the scrape (called on the sampling and
 * pod-resources threads after each change), so that a scrape only sends bytes already there.
 */
final class CachedTextHandler implements HttpHandler {

    private static final PrometheusTextFormatWriter WRITER = PrometheusTextFormatWriter.create();

    private final Supplier<MetricSnapshots> snapshots;
    private volatile Rendered last;

    private record Rendered(MetricSnapshots source, byte[] plain, byte[][] gzip) {}

    CachedTextHandler(Supplier<MetricSnapshots> snapshots) {
        this.snapshots = snapshots;
    }

    @Override
    public void handle(HttpExchange ex) throws IOException {
        try (ex) {
            if (!ex.getRequestMethod().equals("GET") && !ex.getRequestMethod().equals("HEAD")) {
                ex.getResponseHeaders().set("Allow", "GET, HEAD");
                ex.sendResponseHeaders(405, -1);
                return;
            }
            Rendered r = render();
            String acceptEncoding = ex.getRequestHeaders().getFirst("Accept-Encoding");
            boolean gzip = acceptEncoding != null && acceptEncoding.contains("gzip");
            byte[] body = gzip ? gzipOf(r) : r.plain();
            ex.getResponseHeaders().set("Content-Type", PrometheusTextFormatWriter.CONTENT_TYPE);
            ex.getResponseHeaders().set("X-Content-Type-Options", "nosniff");
            if (gzip) {
                ex.getResponseHeaders().set("Content-Encoding", "gzip");
            }
            if (ex.getRequestMethod().equals("HEAD")) {
                ex.sendResponseHeaders(200, -1);
                return;
            }
            ex.sendResponseHeaders(200, body.length);
            try (OutputStream os = ex.getResponseBody()) {
                os.write(body);
            }
        }
        Runnable first = onFirstScrape.getAndSet(null);
        if (first != null) {
            first.run(); // after the answer went out: the first scrape does not wait for it
        }
    }

    /**
     * {@code task} runs once, on the scrape thread, after the first {@code /metrics} answer has
     * been sent.
     */
    void onFirstScrape(Runnable task) {
        onFirstScrape.set(task);
    }

    private final java.util.concurrent.atomic.AtomicReference<Runnable> onFirstScrape =
            new java.util.concurrent.atomic.AtomicReference<>();

    /** Renders the current families and their gzip form now, if not done yet. */
    void prepare() {
        try {
            gzipOf(render());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Lock-free when the families have not changed since the last render. */
    private Rendered render() throws IOException {
        MetricSnapshots s = snapshots.get();
        Rendered r = last;
        return r != null && r.source() == s ? r : render(s);
    }

    private synchronized Rendered render(MetricSnapshots s) throws IOException {
        if (last == null || last.source() != s) {
            ByteArrayOutputStream out =
                    new ByteArrayOutputStream(
                            last == null ? 64 * 1024 : last.plain().length + 1024);
            WRITER.write(out, s);
            last = new Rendered(s, out.toByteArray(), new byte[1][]);
        }
        return last;
    }

    private static byte[] gzipOf(Rendered r) {
        synchronized (r.gzip()) {
            if (r.gzip()[0] == null) {
                ByteArrayOutputStream out = new ByteArrayOutputStream(r.plain().length / 4);
                try (GZIPOutputStream gz = new GZIPOutputStream(out)) {
                    gz.write(r.plain());
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
                r.gzip()[0] = out.toByteArray();
            }
            return r.gzip()[0];
        }
    }
}
