package org.gpuoperator.e2e.metrics;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * A real Prometheus server (Debian's package {@code prometheus}) for the simulated cluster: it
 * scrapes static targets, evaluates rule files, listens on a free local port and keeps its TSDB in
 * a directory of its own; queried over its HTTP API. {@link #close()} stops it.
 */
public final class Prometheus implements AutoCloseable {

    /** A scrape job: its {@code job} label and the {@code host:port} targets it scrapes. */
    public record ScrapeJob(String name, List<String> targets) {
        public ScrapeJob {
            targets = List.copyOf(targets);
        }
    }

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final HttpClient HTTP =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private final Process process;
    private final URI base;
    private final Path log;

    private Prometheus(Process process, URI base, Path log) {
        this.process = process;
        this.base = base;
        this.log = log;
    }

    /** The prometheus binary: {@code /usr/bin/prometheus} or one on PATH; empty when absent. */
    public static Optional<Path> binary() {
        List<String> dirs = new ArrayList<>(List.of("/usr/bin"));
        dirs.addAll(List.of(System.getenv().getOrDefault("PATH", "").split(":")));
        for (String dir : dirs) {
            Path p = Path.of(dir.isEmpty() ? "." : dir, "prometheus");
            if (!dir.isEmpty() && Files.isExecutable(p)) {
                return Optional.of(p);
            }
        }
        return Optional.empty();
    }

    /**
     * prometheus.yml: the jobs as static targets, the rule files, scrape and evaluation every
     * {@code interval} (the scrape timeout the same). Pure.
     */
    public static String config(List<ScrapeJob> jobs, List<Path> ruleFiles, Duration interval) {
        String every = interval.toMillis() + "ms";
        Map<String, Object> global = new LinkedHashMap<>();
        global.put("scrape_interval", every);
        global.put("scrape_timeout", every);
        global.put("evaluation_interval", every);
        Map<String, Object> root = new LinkedHashMap<>();
        root.put("global", global);
        root.put("rule_files", ruleFiles.stream().map(p -> p.toAbsolutePath().toString()).toList());
        List<Map<String, Object>> scrapes = new ArrayList<>();
        for (ScrapeJob j : jobs) {
            Map<String, Object> job = new LinkedHashMap<>();
            job.put("job_name", j.name());
            job.put("static_configs", List.of(Map.of("targets", j.targets())));
            scrapes.add(job);
        }
        root.put("scrape_configs", scrapes);
        try {
            return new YAMLMapper().writeValueAsString(root);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * Starts {@code binary} with {@link #config} in {@code workDir} (prometheus.yml, data/,
     * prometheus.log) on 127.0.0.1 and a free port, and waits until it is ready (30 s at most).
     *
     * @throws IOException when it does not start or get ready; the message ends with its log
     */
    public static Prometheus start(
            Path binary,
            Path workDir,
            List<ScrapeJob> jobs,
            List<Path> ruleFiles,
            Duration interval)
            throws IOException, InterruptedException {
        Files.createDirectories(workDir);
        Path configFile = workDir.resolve("prometheus.yml");
        Files.writeString(configFile, config(jobs, ruleFiles, interval));
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        Path log = workDir.resolve("prometheus.log");
        Process p =
                new ProcessBuilder(
                                binary.toString(),
                                "--config.file=" + configFile,
                                "--storage.tsdb.path=" + workDir.resolve("data"),
                                "--web.listen-address=127.0.0.1:" + port,
                                "--log.level=warn")
                        .redirectErrorStream(true)
                        .redirectOutput(log.toFile())
                        .start();
        Prometheus prometheus = new Prometheus(p, URI.create("http://127.0.0.1:" + port), log);
        Instant deadline = Instant.now().plusSeconds(30);
        while (true) {
            if (!p.isAlive()) {
                throw new IOException(
                        binary + " exited " + p.exitValue() + ": " + prometheus.logText());
            }
            try {
                if (HTTP.send(
                                        HttpRequest.newBuilder(prometheus.base.resolve("/-/ready"))
                                                .timeout(Duration.ofSeconds(2))
                                                .build(),
                                        HttpResponse.BodyHandlers.discarding())
                                .statusCode()
                        == 200) {
                    return prometheus;
                }
            } catch (IOException notYet) {
                // not listening yet
            }
            if (Instant.now().isAfter(deadline)) {
                prometheus.close();
                throw new IOException(
                        binary
                                + " not ready in 30 s at "
                                + prometheus.base
                                + ": "
                                + prometheus.logText());
            }
            Thread.sleep(200);
        }
    }

    public URI uri() {
        return base;
    }

    /**
     * An instant query's {@code data.result}: one element per series, {@code metric} and {@code
     * value}.
     */
    public JsonNode query(String promql) throws IOException, InterruptedException {
        return api("/api/v1/query?query=" + encode(promql)).path("result");
    }

    /** The alerts Prometheus's own rule evaluation holds now (pending and firing). */
    public List<JsonNode> alerts() throws IOException, InterruptedException {
        List<JsonNode> out = new ArrayList<>();
        api("/api/v1/alerts").path("alerts").forEach(out::add);
        return out;
    }

    /** The values of {@code label} on the series that {@code match} selects. */
    public List<String> labelValues(String label, String match)
            throws IOException, InterruptedException {
        List<String> out = new ArrayList<>();
        api("/api/v1/label/" + encode(label) + "/values?match[]=" + encode(match))
                .forEach(v -> out.add(v.asText()));
        return out;
    }

    /** GET of an API path; its {@code data}, or an IOException with Prometheus's error. */
    private JsonNode api(String pathAndQuery) throws IOException, InterruptedException {
        HttpResponse<String> r =
                HTTP.send(
                        HttpRequest.newBuilder(URI.create(base + pathAndQuery))
                                .timeout(Duration.ofSeconds(10))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
        JsonNode body;
        try {
            body = JSON.readTree(r.body());
        } catch (IOException e) {
            throw new IOException(pathAndQuery + ": HTTP " + r.statusCode() + ", " + r.body(), e);
        }
        if (!"success".equals(body.path("status").asText())) {
            throw new IOException(
                    pathAndQuery
                            + ": "
                            + body.path("errorType").asText()
                            + ": "
                            + body.path("error").asText());
        }
        return body.path("data");
    }

    private static String encode(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    /** Its log so far (for failure messages). */
    public String logText() {
        try {
            return Files.readString(log);
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
