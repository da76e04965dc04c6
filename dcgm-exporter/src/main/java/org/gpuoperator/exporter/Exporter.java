package org.gpuoperator.exporter;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.gpuoperator.exporter.counters.CountersFile;
import org.gpuoperator.exporter.entity.GpuEntity;
import org.gpuoperator.exporter.metrics.DcgmCollector;
import org.gpuoperator.exporter.metrics.GpuMetricFamilies;
import org.gpuoperator.exporter.podresources.CachedPodAttribution;
import org.gpuoperator.exporter.podresources.DeviceCheckpoint;
import org.gpuoperator.exporter.podresources.KubeletPodResourcesClient;
import org.gpuoperator.exporter.sampling.GpuSampler;
import org.gpuoperator.exporter.web.ExporterHttpServer;
import org.gpuoperator.exporter.web.WebConfigWatcher;
import org.gpuoperator.node.agent.EventLog;
import org.gpuoperator.node.agent.HostPort;
import org.gpuoperator.node.deviceconfig.MigStrategy;
import org.gpuoperator.node.inventory.GpuInventory;

/**
 * A running exporter: sampler, pod attribution and HTTP server over one GPU inventory. Closing
 * stops them all.
 */
public final class Exporter implements AutoCloseable {

    /**
     * What the command line decides.
     *
     * @param address where {@code /metrics} and {@code /health} listen
     * @param counters the parsed counters file
     * @param collectInterval sampling period
     * @param podResourcesSocket kubelet pod-resources socket
     * @param podResourcesCache how long a List answer is reused
     * @param webConfigFile exporter-toolkit web config, or null
     * @param hostnameLabel {@code Hostname}/{@code hostname}, or null for none
     * @param hostname the node name
     * @param migStrategy how the device plugin advertises MIG devices, which decides the resources
     *     that attribute GPUs to pods
     * @param hostProc the node's /proc, where a GPU process's cgroup names its pod
     * @param deviceCheckpoint the kubelet's device checkpoint, which names each holder's pod UID
     */
    public record Settings(
            HostPort address,
            CountersFile.Parsed counters,
            Duration collectInterval,
            Path podResourcesSocket,
            Duration podResourcesCache,
            Path webConfigFile,
            String hostnameLabel,
            String hostname,
            MigStrategy migStrategy,
            Path hostProc,
            Path deviceCheckpoint) {}

    /** Upstream allows 10 s; a healthy kubelet answers in well under a millisecond. */
    static final Duration POD_RESOURCES_DEADLINE = Duration.ofSeconds(5);

    private final GpuInventory inventory;
    private final GpuSampler sampler;
    private final KubeletPodResourcesClient podResources;
    private final CachedPodAttribution attribution;
    private final ExporterHttpServer server;

    private Exporter(
            GpuInventory inventory,
            GpuSampler sampler,
            KubeletPodResourcesClient podResources,
            CachedPodAttribution attribution,
            ExporterHttpServer server) {
        this.inventory = inventory;
        this.sampler = sampler;
        this.podResources = podResources;
        this.attribution = attribution;
        this.server = server;
    }

    /** The profiling fields the counters file asks for, in file order. */
    static List<String> profilingFields(CountersFile.Parsed counters) {
        return counters.counters().stream()
                .filter(c -> c.field().metric().map(m -> m.isProfiling()).orElse(false))
                .map(c -> c.name())
                .toList();
    }

    /** The indexes of the GPUs whose profiling metrics the inventory cannot read. */
    static List<Integer> gpusWithoutProfiling(GpuInventory inventory) {
        return inventory.gpus().stream()
                .map(g -> g.index())
                .filter(i -> !inventory.profilingSupported(i))
                .toList();
    }

    private static String joined(List<Integer> xs) {
        return String.join(",", xs.stream().map(String::valueOf).toList());
    }

    /** Starts serving; takes ownership of {@code inventory} (closed with the exporter). */
    public static Exporter start(Settings s, GpuInventory inventory, EventLog log)
            throws IOException {
        for (CountersFile.Skipped skipped : s.counters().skipped()) {
            log.warn(
                    "counter-skipped",
                    "field",
                    skipped.field(),
                    "file",
                    s.counters().source(),
                    "line",
                    skipped.line(),
                    "reason",
                    "this exporter cannot read this DCGM field");
        }
        List<String> profiling = profilingFields(s.counters());
        List<Integer> withoutGpm = gpusWithoutProfiling(inventory);
        if (!profiling.isEmpty() && !withoutGpm.isEmpty()) {
            log.warn(
                    "profiling-unavailable",
                    "gpus",
                    joined(withoutGpm),
                    "fields",
                    String.join(",", profiling),
                    "reason",
                    "these GPUs have no NVML GPM (Hopper or later): their DCGM_FI_PROF_* series are"
                            + " absent");
        }
        WebConfigWatcher web =
                s.webConfigFile() == null
                        ? null
                        : WebConfigWatcher.load(
                                s.webConfigFile(), Duration.ofSeconds(1).toNanos(), log);
        List<GpuEntity> entities = GpuEntity.of(inventory.gpus());
        GpuSampler sampler =
                new GpuSampler(inventory, log, s.hostProc()).start(s.collectInterval());
        KubeletPodResourcesClient podResources =
                new KubeletPodResourcesClient(s.podResourcesSocket(), POD_RESOURCES_DEADLINE);
        CachedPodAttribution attribution =
                new CachedPodAttribution(
                        podResources,
                        () -> DeviceCheckpoint.read(s.deviceCheckpoint()),
                        entities,
                        s.migStrategy(),
                        s.podResourcesCache(),
                        log);
        ExporterHttpServer server = null;
        try {
            // A missing socket is logged now; the first scrape connects (an unscraped exporter
            // loads no gRPC client).
            attribution.checkReachable();
            GpuMetricFamilies families =
                    new GpuMetricFamilies(
                            s.counters().counters(),
                            inventory.node(),
                            entities,
                            s.hostnameLabel(),
                            s.hostname());
            DcgmCollector collector =
                    new DcgmCollector(families, sampler::latest, attribution::current);
            server = ExporterHttpServer.start(s.address(), collector::collect, web);
            if (s.podResourcesCache().isPositive()) {
                // From the first scrape on, scrapes only send bytes prepared here: the kubelet is
                // asked every
                // --pod-resources-cache on a background thread, and after each sampling round and
                // each pod change the
                // families are rebuilt and rendered off the request path. Not before: an exporter
                // nobody scrapes
                // keeps its idle footprint (no kubelet calls, nothing rendered). With a zero cache
                // every scrape asks
                // the kubelet, as documented.
                ExporterHttpServer ready = server;
                server.onFirstScrape(
                        () -> {
                            sampler.afterEachRound(ready::prepare);
                            attribution.refreshInBackground(ready::prepare);
                        });
            }
        } catch (IOException | RuntimeException e) {
            if (server != null) {
                server.close();
            }
            attribution.close();
            podResources.close();
            sampler.close();
            throw e;
        }
        log.info(
                "started",
                "address",
                s.address(),
                "port",
                server.port(),
                "source",
                inventory.describe(),
                "gpus",
                inventory.gpus().size(),
                "entities",
                entities.size(),
                "counters",
                s.counters().counters().size(),
                "collect-interval-ms",
                s.collectInterval().toMillis(),
                "pod-resources-socket",
                s.podResourcesSocket(),
                "pod-resources-cache-ms",
                s.podResourcesCache().toMillis(),
                "mig-strategy",
                s.migStrategy().value(),
                "host-proc",
                s.hostProc(),
                "device-checkpoint",
                s.deviceCheckpoint(),
                "tls",
                web != null && web.current().config().tls() != null,
                "basic-auth",
                web != null && web.current().config().authRequired());
        return new Exporter(inventory, sampler, podResources, attribution, server);
    }

    public int port() {
        return server.port();
    }

    public GpuSampler sampler() {
        return sampler;
    }

    @Override
    public void close() {
        server.close();
        attribution.close();
        podResources.close();
        sampler.close();
        inventory.close();
    }
}
