package org.gpuoperator.exporter.bench;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.gpuoperator.exporter.counters.DcgmField;
import org.gpuoperator.exporter.testing.PrometheusTextParser;
import org.gpuoperator.kubelet.emulator.PodResourcesEmulator;
import org.gpuoperator.node.inventory.simulated.SimulatedGpuInventory;

/**
 * Bench command (not a test; never run by {@code verify}): starts the real exporter jar as its own
 * process with the image's JVM flags ({@code images/dcgm-exporter/jvm.flags}) over 8 simulated
 * H100s (which have GPM, so the profiling fields are served), the default 30-field counters file
 * ({@code -Dbench.allFields=true}: every numeric field this exporter reads, all 12 profiling fields
 * among them), and a pod-resources emulator holding 16 pods (two time-sliced pods per GPU). Prints
 * idle RSS, scrape latency percentiles over N sequential scrapes, the exporter's CPU time per
 * scrape (from /proc), and RSS after the load.
 *
 * <p>Usage: {@code ScrapeBench <module-dir> [scrapes]}. {@code -Dbench.interval=MS} spaces the
 * scrapes (warm-up included, 5 warm-up scrapes unless {@code -Dbench.warmup} says otherwise) as
 * Prometheus does instead of scraping back to back; {@code -Dbench.idle=S} (default 20) is the
 * window over which the idle exporter's CPU is measured; {@code -Dbench.jar=FILE} runs another
 * exporter jar.
 */
public final class ScrapeBench {

    public static void main(String[] args) throws Exception {
        Path module = Path.of(args.length > 0 ? args[0] : "dcgm-exporter").toAbsolutePath();
        int scrapes = args.length > 1 ? Integer.parseInt(args[1]) : 5000;
        Path work = Files.createTempDirectory("dcgm-bench");
        Path socket = work.resolve("pod-resources/kubelet.sock");
        String node = "bench-node";
        try (PodResourcesEmulator kubelet = PodResourcesEmulator.start(socket)) {
            List<PodResourcesEmulator.Pod> pods = new ArrayList<>();
            for (int i = 0; i < 16; i++) {
                pods.add(
                        PodResourcesEmulator.pod(
                                "team-" + (i % 4),
                                "worker-" + i,
                                "main",
                                "nvidia.com/gpu",
                                SimulatedGpuInventory.gpuUuid(node, i / 2) + "::" + (i % 2)));
            }
            kubelet.setPods(pods);

            List<String> cmd = new ArrayList<>();
            cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
            // -Dbench.flags=FILE tries other flags without editing jvm.flags
            Path flags =
                    Path.of(
                            System.getProperty(
                                    "bench.flags",
                                    module.resolve("../images/dcgm-exporter/jvm.flags")
                                            .normalize()
                                            .toString()));
            for (String line : Files.readAllLines(flags)) {
                if (!line.isBlank() && !line.startsWith("#")) {
                    cmd.addAll(Arrays.asList(line.trim().split("\\s+")));
                }
            }
            int port = 19400 + (int) (ProcessHandle.current().pid() % 500);
            // -Dbench.jar=FILE measures another build (e.g. the one before a change) with the same
            // client
            cmd.addAll(
                    List.of(
                            "-jar",
                            System.getProperty(
                                    "bench.jar",
                                    module.resolve("target/dcgm-exporter.jar").toString()),
                            "--gpu-source",
                            "simulated:h100-80gb-x8",
                            "--node-name",
                            node,
                            "--host-root",
                            work.toString(),
                            "--address",
                            "127.0.0.1:" + port,
                            "--pod-resources-socket",
                            socket.toString()));
            if (Boolean.getBoolean("bench.allFields")) {
                Path all = work.resolve("all-fields.csv");
                Files.writeString(all, allFields());
                cmd.addAll(List.of("--collectors", all.toString()));
            }
            // -Dbench.args="..." adds exporter options, e.g. another --pod-resources-cache
            String extra = System.getProperty("bench.args", "").trim();
            if (!extra.isEmpty()) {
                cmd.addAll(Arrays.asList(extra.split("\\s+")));
            }
            Process exporter =
                    new ProcessBuilder(cmd)
                            .redirectErrorStream(true)
                            .redirectOutput(work.resolve("exporter.log").toFile())
                            .start();
            try {
                run(exporter, port, scrapes);
            } finally {
                exporter.destroy();
                exporter.waitFor();
            }
        }
    }

    private static void run(Process exporter, int port, int scrapes) throws Exception {
        HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        HttpRequest metrics =
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics")).build();
        HttpRequest health =
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/health")).build();
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (true) {
            try {
                if (http.send(health, HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
                    break;
                }
            } catch (IOException notYet) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("exporter did not start");
                }
                Thread.sleep(100);
            }
        }
        Thread.sleep(10_000);
        long pid = exporter.pid();
        System.out.printf("idle RSS after start (10 s, one health check): %.1f MiB%n", rssMiB(pid));
        int idleSeconds = Integer.getInteger("bench.idle", 20);
        if (idleSeconds > 0) {
            long idleTicks = cpuTicks(pid);
            Thread.sleep(idleSeconds * 1000L);
            idleTicks = cpuTicks(pid) - idleTicks;
            System.out.printf(
                    "idle CPU (no scrapes, %d s): %.2f ms per second (%.2f %% of a core); RSS then %.1f MiB%n",
                    idleSeconds,
                    idleTicks * 10.0 / idleSeconds,
                    idleTicks * 10.0 / idleSeconds / 10,
                    rssMiB(pid));
        }

        if (scrapes == 0) {
            return;
        }
        String body = http.send(metrics, HttpResponse.BodyHandlers.ofString()).body();
        var families = PrometheusTextParser.parse(body);
        int series = families.values().stream().mapToInt(f -> f.samples().size()).sum();
        int profiling =
                families.entrySet().stream()
                        .filter(e -> e.getKey().startsWith("DCGM_FI_PROF_"))
                        .mapToInt(e -> e.getValue().samples().size())
                        .sum();
        System.out.printf(
                "one scrape: %d families, %d series (%d of them DCGM_FI_PROF_*), %d bytes%n",
                families.size(), series, profiling, body.length());

        // The timed client: by default a minimal keep-alive HTTP/1.1 client on one socket with
        // reused buffers, so
        // that the figure is the exporter's latency, not the JDK HttpClient's threads and
        // allocation (-Dbench.client=jdk
        // measures with the JDK HttpClient instead).
        boolean jdkClient = System.getProperty("bench.client", "raw").equals("jdk");
        // -Dbench.gzip=true asks for gzip as Prometheus does by default (raw client only)
        boolean gzip = !jdkClient && Boolean.getBoolean("bench.gzip");
        RawHttpClient raw = jdkClient ? null : new RawHttpClient(port, "/metrics", gzip);
        int expectedLength = body.length();
        if (raw != null) {
            int n = raw.get();
            byte[] read = java.util.Arrays.copyOf(raw.body(), n);
            if (gzip) {
                try (var unzip =
                        new java.util.zip.GZIPInputStream(new java.io.ByteArrayInputStream(read))) {
                    read = unzip.readAllBytes();
                }
                expectedLength = n;
            }
            if (!new String(read, java.nio.charset.StandardCharsets.UTF_8).equals(body)) {
                throw new IllegalStateException(
                        "raw client read a different body than the JDK client");
            }
        }
        System.out.println(
                "client: "
                        + (jdkClient ? "JDK HttpClient" : "raw keep-alive HTTP/1.1 socket")
                        + (gzip
                                ? ", Accept-Encoding: gzip ("
                                        + expectedLength
                                        + " bytes on the wire)"
                                : ""));
        long intervalNanos = Duration.ofMillis(Long.getLong("bench.interval", 0)).toNanos();
        int warmup = Integer.getInteger("bench.warmup", intervalNanos > 0 ? 5 : 2000);
        for (int i = 0; i < warmup; i++) { // warm-up: JIT and caches
            pace(intervalNanos);
            if (raw != null) {
                raw.get();
            } else {
                http.send(metrics, HttpResponse.BodyHandlers.ofByteArray());
            }
        }
        // The client's own garbage (the JDK client above, the kubelet emulator) is collected now,
        // not in the timed loop.
        System.gc();
        long clientGcsBefore = clientGcs();
        long cpuBefore = cpuTicks(pid);
        long[] nanos = new long[scrapes];
        long[] starts = new long[scrapes];
        long start = System.nanoTime();
        for (int i = 0; i < scrapes; i++) {
            pace(intervalNanos);
            long t0 = System.nanoTime();
            starts[i] = t0;
            int length =
                    raw != null
                            ? raw.get()
                            : http.send(metrics, HttpResponse.BodyHandlers.ofByteArray())
                                    .body()
                                    .length;
            nanos[i] = System.nanoTime() - t0;
            // Values change with each sampling round (every 30 s), the series do not: the size
            // stays within 1 %
            // (10 % compressed).
            if (Math.abs(length - expectedLength) > expectedLength / (gzip ? 10 : 100)) {
                throw new IllegalStateException("scrape " + i + " returned " + length + " bytes");
            }
        }
        if (raw != null) {
            raw.close();
        }
        long wall = System.nanoTime() - start;
        long cpuTicks = cpuTicks(pid) - cpuBefore;
        long clientGcs = clientGcs() - clientGcsBefore;
        String trace = System.getProperty("bench.trace");
        if (trace != null) { // one line per timed scrape: start (System.nanoTime, same clock as
            // -Xlog's "tn"), duration
            StringBuilder sb = new StringBuilder();
            for (int i = 0; i < scrapes; i++) {
                sb.append(starts[i]).append(' ').append(nanos[i]).append('\n');
            }
            Files.writeString(Path.of(trace), sb);
        }
        Arrays.sort(nanos);
        System.out.printf(
                "%d sequential scrapes"
                        + (intervalNanos > 0 ? " " + intervalNanos / 1_000_000 + " ms apart" : "")
                        + " in %.1f s: p50 %.3f ms, p90 %.3f ms, p99 %.3f ms, max %.3f ms%n",
                scrapes,
                wall / 1e9,
                pct(nanos, 50),
                pct(nanos, 90),
                pct(nanos, 99),
                nanos[scrapes - 1] / 1e6);
        System.out.printf("client JVM GCs during the timed scrapes: %d%n", clientGcs);
        double ticksPerSecond = 100.0; // USER_HZ on Linux
        System.out.printf(
                "exporter CPU per scrape: %.3f ms (user+sys over the measured scrapes)%n",
                cpuTicks / ticksPerSecond * 1000 / scrapes);
        System.out.printf("RSS after the scrapes: %.1f MiB%n", rssMiB(pid));
        Thread.sleep(10_000);
        System.out.printf("RSS 10 s later: %.1f MiB%n", rssMiB(pid));
    }

    /** A counters file with every numeric field this exporter reads, and the driver version. */
    static String allFields() {
        StringBuilder sb = new StringBuilder("# every numeric field of DcgmField (ScrapeBench)\n");
        for (DcgmField f : DcgmField.values()) {
            if (!f.isString()) {
                sb.append(f.name()).append(", gauge, ").append(f.name()).append('\n');
            }
        }
        return sb.append("DCGM_FI_DRIVER_VERSION, label, Driver Version\n").toString();
    }

    /** Scrapes {@code intervalNanos} apart (start to start); back to back when 0. */
    private static long nextScrape;

    private static void pace(long intervalNanos) throws InterruptedException {
        if (intervalNanos <= 0) {
            return;
        }
        long now = System.nanoTime();
        if (nextScrape == 0) {
            nextScrape = now;
        }
        long wait = nextScrape - now;
        if (wait > 0) {
            Thread.sleep(wait / 1_000_000, (int) (wait % 1_000_000));
        }
        nextScrape = Math.max(nextScrape, now) + intervalNanos;
    }

    /**
     * GET over one kept-alive TCP connection, the whole response read into buffers allocated once:
     * what a Prometheus scraper does, without a client library's threads and garbage in the timed
     * loop.
     */
    private static final class RawHttpClient implements AutoCloseable {
        private final java.net.Socket socket;
        private final java.io.InputStream in;
        private final java.io.OutputStream out;
        private final byte[] request;
        private byte[] buf = new byte[256 * 1024];

        RawHttpClient(int port, String path, boolean gzip) throws IOException {
            socket = new java.net.Socket("127.0.0.1", port);
            socket.setTcpNoDelay(true);
            socket.setSoTimeout(10_000);
            in = socket.getInputStream();
            out = socket.getOutputStream();
            request =
                    ("GET "
                                    + path
                                    + " HTTP/1.1\r\nHost: 127.0.0.1:"
                                    + port
                                    + "\r\nUser-Agent: scrape-bench\r\n"
                                    + "Accept: text/plain;version=0.0.4\r\n"
                                    + (gzip ? "Accept-Encoding: gzip\r\n" : "")
                                    + "\r\n")
                            .getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        }

        byte[] body() {
            return buf;
        }

        /** One GET; returns the body length, the body left in {@link #body()} from offset 0. */
        int get() throws IOException {
            out.write(request);
            out.flush();
            int filled = 0;
            int headerEnd;
            while ((headerEnd = headerEnd(filled)) < 0) {
                filled = read(filled);
            }
            String head = new String(buf, 0, headerEnd, java.nio.charset.StandardCharsets.US_ASCII);
            if (!head.startsWith("HTTP/1.1 200")) {
                throw new IllegalStateException("unexpected response: " + head);
            }
            int length = contentLength(head);
            int bodyStart = headerEnd + 4;
            while (filled < bodyStart + length) {
                if (buf.length < bodyStart + length) {
                    buf = Arrays.copyOf(buf, bodyStart + length);
                }
                filled = read(filled);
            }
            if (filled != bodyStart + length) {
                throw new IllegalStateException(
                        "bytes after the body: " + (filled - bodyStart - length));
            }
            System.arraycopy(buf, bodyStart, buf, 0, length);
            return length;
        }

        private int read(int filled) throws IOException {
            int n = in.read(buf, filled, buf.length - filled);
            if (n < 0) {
                throw new IOException("connection closed by the exporter");
            }
            return filled + n;
        }

        private int headerEnd(int filled) {
            for (int i = 0; i + 3 < filled; i++) {
                if (buf[i] == '\r'
                        && buf[i + 1] == '\n'
                        && buf[i + 2] == '\r'
                        && buf[i + 3] == '\n') {
                    return i;
                }
            }
            return -1;
        }

        private static int contentLength(String head) {
            for (String line : head.split("\r\n")) {
                int colon = line.indexOf(':');
                if (colon > 0
                        && line.substring(0, colon).trim().equalsIgnoreCase("Content-Length")) {
                    return Integer.parseInt(line.substring(colon + 1).trim());
                }
            }
            throw new IllegalStateException(
                    "no Content-Length (chunked responses are not expected): " + head);
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }

    private static long clientGcs() {
        long n = 0;
        for (var gc : java.lang.management.ManagementFactory.getGarbageCollectorMXBeans()) {
            n += Math.max(0, gc.getCollectionCount());
        }
        return n;
    }

    private static double pct(long[] sorted, int p) {
        return sorted[Math.min(sorted.length - 1, (int) Math.ceil(sorted.length * p / 100.0) - 1)]
                / 1e6;
    }

    private static double rssMiB(long pid) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.replaceAll("\\D", "")) / 1024.0;
            }
        }
        throw new IllegalStateException("no VmRSS for " + pid);
    }

    private static long cpuTicks(long pid) throws IOException {
        String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
        String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
        return Long.parseLong(f[11]) + Long.parseLong(f[12]); // utime, stime (fields 14 and 15)
    }
}
