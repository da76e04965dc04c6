package org.gpuoperator.exporter.testing;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.gpuoperator.exporter.Exporter;
import org.gpuoperator.exporter.counters.CountersFile;
import org.gpuoperator.exporter.podresources.DeviceCheckpoint;
import org.gpuoperator.node.agent.EventLog;
import org.gpuoperator.node.agent.HostPort;
import org.gpuoperator.node.deviceconfig.MigStrategy;
import org.gpuoperator.node.inventory.Gpu;
import org.gpuoperator.node.inventory.GpuInventory;
import org.gpuoperator.node.inventory.GpuLink;
import org.gpuoperator.node.inventory.GpuProcess;
import org.gpuoperator.node.inventory.GpuSample;
import org.gpuoperator.node.inventory.NodeInfo;
import org.gpuoperator.node.inventory.simulated.SimulatedGpuInventory;
import org.gpuoperator.node.inventory.simulated.SimulatedProfiles;

/**
 * An exporter on a loopback port over a simulated node whose clock stands still, so values are
 * predictable.
 */
public final class TestExporter implements AutoCloseable {

    public static final String NODE = "node-a";
    public static final Instant NOW = Instant.parse("2026-11-30T00:00:15Z");

    /** Where the kubelet's device checkpoint is, under the host root. */
    public static final String CHECKPOINT =
            "var/lib/kubelet/device-plugins/" + DeviceCheckpoint.FILE;

    public final SimulatedGpuInventory simulated;
    public final CountingInventory inventory;
    public final Exporter exporter;
    private final ByteArrayOutputStream logBytes = new ByteArrayOutputStream();
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    public TestExporter(
            String profile,
            Path hostRoot,
            Path podResourcesSocket,
            Duration podCache,
            String hostnameLabel)
            throws Exception {
        this(profile, hostRoot, podResourcesSocket, podCache, hostnameLabel, MigStrategy.NONE);
    }

    public TestExporter(
            String profile,
            Path hostRoot,
            Path podResourcesSocket,
            Duration podCache,
            String hostnameLabel,
            MigStrategy migStrategy)
            throws Exception {
        this(
                profile,
                hostRoot,
                podResourcesSocket,
                podCache,
                hostnameLabel,
                migStrategy,
                CountersFile.readDefault());
    }

    /** An exporter with this counters file and no kubelet. */
    public static TestExporter withCounters(
            String profile, Path hostRoot, CountersFile.Parsed counters) throws Exception {
        return new TestExporter(
                profile,
                hostRoot,
                hostRoot.resolve("no-kubelet/kubelet.sock"),
                Duration.ZERO,
                "Hostname",
                MigStrategy.NONE,
                counters);
    }

    private TestExporter(
            String profile,
            Path hostRoot,
            Path podResourcesSocket,
            Duration podCache,
            String hostnameLabel,
            MigStrategy migStrategy,
            CountersFile.Parsed counters)
            throws Exception {
        simulated =
                new SimulatedGpuInventory(
                        SimulatedProfiles.withUserFile(null).get(profile),
                        NODE,
                        hostRoot,
                        Clock.fixed(NOW, ZoneOffset.UTC));
        inventory = new CountingInventory(simulated);
        exporter =
                Exporter.start(
                        new Exporter.Settings(
                                HostPort.parse("127.0.0.1:0"),
                                counters,
                                Duration.ofMinutes(10),
                                podResourcesSocket,
                                podCache,
                                null,
                                hostnameLabel,
                                NODE,
                                migStrategy,
                                hostRoot.resolve("proc"),
                                hostRoot.resolve(CHECKPOINT)),
                        inventory,
                        new EventLog(
                                "dcgm-exporter",
                                new PrintStream(logBytes, true, StandardCharsets.UTF_8)));
    }

    public String scrapeText() throws Exception {
        HttpResponse<String> r =
                http.send(
                        HttpRequest.newBuilder(
                                        URI.create(
                                                "http://127.0.0.1:" + exporter.port() + "/metrics"))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new AssertionError("scrape returned " + r.statusCode());
        }
        return r.body();
    }

    public Map<String, PrometheusTextParser.Family> scrape() throws Exception {
        return PrometheusTextParser.parse(scrapeText());
    }

    public String log() {
        return logBytes.toString(StandardCharsets.UTF_8);
    }

    @Override
    public void close() {
        exporter.close();
    }

    /** Counts sample() calls, to show that scrapes never read the GPUs. */
    public static final class CountingInventory implements GpuInventory {
        private final GpuInventory delegate;
        public final AtomicInteger samples = new AtomicInteger();

        CountingInventory(GpuInventory delegate) {
            this.delegate = delegate;
        }

        @Override
        public NodeInfo node() {
            return delegate.node();
        }

        @Override
        public List<Gpu> gpus() {
            return delegate.gpus();
        }

        @Override
        public List<GpuLink> links() {
            return delegate.links();
        }

        @Override
        public HealthWatch watchHealth() {
            return delegate.watchHealth();
        }

        @Override
        public String describe() {
            return delegate.describe();
        }

        @Override
        public void close() {
            delegate.close();
        }

        @Override
        public boolean profilingSupported(int gpuIndex) {
            return delegate.profilingSupported(gpuIndex);
        }

        @Override
        public GpuSample sample(int gpuIndex) {
            samples.incrementAndGet();
            return delegate.sample(gpuIndex);
        }

        @Override
        public Optional<List<GpuProcess>> processes(int gpuIndex) {
            return delegate.processes(gpuIndex);
        }
    }
}
