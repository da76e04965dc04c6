package org.gpuoperator.deviceplugin.mps;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CountDownLatch;
import java.util.stream.Stream;
import org.gpuoperator.deviceplugin.config.PluginConfig;
import org.gpuoperator.deviceplugin.resources.Resource;
import org.gpuoperator.deviceplugin.resources.ResourcePlanner;
import org.gpuoperator.node.agent.AgentOptions;
import org.gpuoperator.node.agent.EventLog;
import org.gpuoperator.node.agent.HealthServer;
import org.gpuoperator.node.agent.PredecessorWait;
import org.gpuoperator.node.agent.ReadinessFiles;
import org.gpuoperator.node.deviceconfig.ConfigFile;
import org.gpuoperator.node.inventory.Gpu;
import org.gpuoperator.node.inventory.GpuInventory;
import org.gpuoperator.node.inventory.GpuSourceOptions;

/**
 * The MPS control daemon agent ({@code device-plugin mps-control-daemon}, DaemonSet {@code
 * nvidia-device-plugin-mps-control-daemon}): for each resource the device-plugin config shares
 * through MPS, it puts the GPUs in EXCLUSIVE_PROCESS mode, starts a control daemon under the MPS
 * root, sets upstream's per-client limits and writes {@code .started}, which the device plugin
 * waits for before it offers the replicas. A new config restarts the daemons whose limits changed;
 * SIGTERM stops them and removes {@code .started}.
 */
public final class MpsDaemonAgent implements AutoCloseable {

    private static final Duration TOOLKIT_POLL = Duration.ofMillis(200);

    private final Path root;
    private final Map<String, String> env;
    private final GpuSourceOptions gpuSource;
    private final AgentOptions agentOptions;
    private final MpsControl control;
    private final EventLog log;
    private final PredecessorWait toolkitWait;
    private final CountDownLatch stopped = new CountDownLatch(1);
    private final Map<String, Running> running = new LinkedHashMap<>();

    private HealthServer healthServer;
    private List<Gpu> gpus;
    private Path configFile;
    private volatile boolean ready;
    private boolean closed;

    private record Running(MpsShare share, MpsControl.Daemon daemon) {}

    /**
     * @param root the MPS root (the same path in the container as on the host)
     * @param env the environment, read as the device plugin reads it (MIG_STRATEGY, ...)
     * @param configFile the device-plugin config in force at start, or null for none
     */
    public MpsDaemonAgent(
            Path root,
            Map<String, String> env,
            Path configFile,
            GpuSourceOptions gpuSource,
            AgentOptions agentOptions,
            MpsControl control,
            EventLog log) {
        this.root = root;
        this.env = Map.copyOf(env);
        this.configFile = configFile;
        this.gpuSource = gpuSource;
        this.agentOptions = agentOptions;
        this.control = control;
        this.log = log;
        this.toolkitWait = new PredecessorWait(agentOptions.readiness(), TOOLKIT_POLL, log);
    }

    /**
     * The MPS shares a config asks for, planned as the device plugin plans them (so both refuse the
     * same configs). Pure apart from reading the config file.
     */
    public static List<MpsShare> wanted(Path configFile, Map<String, String> env, List<Gpu> gpus) {
        ConfigFile file = configFile == null ? ConfigFile.empty() : ConfigFile.read(configFile);
        PluginConfig c = PluginConfig.resolve(Map.of(), env, file);
        if (!c.sharing().mps()) {
            return List.of();
        }
        return ResourcePlanner.plan(gpus, c, (g, m) -> List.of()).stream()
                .map(Resource::mps)
                .filter(Objects::nonNull)
                .toList();
    }

    /** Waits for the toolkit, reads the GPUs and starts the daemons of the config in force. */
    public void start() throws InterruptedException, IOException {
        healthServer = HealthServer.start(agentOptions.healthAddress(), () -> ready);
        removeStaleMarkers();
        try {
            if (toolkitWait.await(ReadinessFiles.TOOLKIT, Duration.ZERO).isEmpty()) {
                return;
            }
        } catch (java.util.concurrent.TimeoutException cannotHappen) {
            throw new IllegalStateException(cannotHappen);
        }
        try (GpuInventory inventory = gpuSource.open()) {
            gpus = List.copyOf(inventory.gpus());
        }
        log.info("gpu-source-opened", "gpus", gpus.size(), "mps-root", root);
        synchronized (this) {
            apply(wanted(configFile, env, gpus));
        }
    }

    /**
     * A config chosen by the node's label: applied when it plans, thrown back (the running daemons
     * stay) when it does not.
     */
    public synchronized void useConfig(Path file) {
        if (gpus == null || closed) {
            wanted(file, env, List.of()); // still refuse what does not parse
            configFile = file;
            return;
        }
        List<MpsShare> next = wanted(file, env, gpus);
        configFile = file;
        apply(next);
    }

    private void apply(List<MpsShare> wanted) {
        Map<String, MpsShare> byResource = new LinkedHashMap<>();
        wanted.forEach(s -> byResource.put(s.resource(), s));
        for (var it = running.entrySet().iterator(); it.hasNext(); ) {
            var e = it.next();
            if (!e.getValue().share().equals(byResource.get(e.getKey()))) {
                stop(e.getValue());
                it.remove();
            }
        }
        boolean ok = true;
        for (MpsShare share : byResource.values()) {
            if (running.containsKey(share.resource())) {
                continue;
            }
            try {
                running.put(share.resource(), new Running(share, startDaemon(share)));
            } catch (IOException | RuntimeException e) {
                ok = false;
                log.error(
                        "mps-daemon-start-failed",
                        "resource",
                        share.resource(),
                        "error",
                        e.getMessage(),
                        "action",
                        "the device plugin keeps its replicas unhealthy; retried at the next config"
                                + " change or pod restart");
            }
        }
        ready = ok;
        if (byResource.isEmpty()) {
            log.info("no-mps-sharing", "action", "no control daemon runs");
        }
    }

    private MpsControl.Daemon startDaemon(MpsShare share) throws IOException {
        MpsPaths paths = new MpsPaths(root, share.resource());
        for (Gpu g : gpus) {
            control.computeMode(g, true);
        }
        MpsControl.Daemon daemon = control.start(paths, gpus);
        try {
            expect(paths, "set_default_active_thread_percentage " + share.activeThreadPercentage());
            for (var e : share.pinnedMemoryMiB().entrySet()) {
                expect(
                        paths,
                        "set_default_device_pinned_mem_limit "
                                + e.getKey()
                                + " "
                                + e.getValue()
                                + "M");
            }
            Files.writeString(
                    paths.started(),
                    "replicas="
                            + share.replicas()
                            + "\nactive-thread-percentage="
                            + share.activeThreadPercentage()
                            + "\n");
        } catch (IOException | RuntimeException e) {
            daemon.close();
            throw e;
        }
        log.info(
                "mps-daemon-started",
                "resource",
                share.resource(),
                "pipe",
                paths.pipe(),
                "replicas",
                share.replicas(),
                "active-thread-percentage",
                share.activeThreadPercentage(),
                "pinned-mem-limit-mib",
                share.pinnedMemoryMiB().values().stream().findFirst().orElse(0L));
        return daemon;
    }

    /** Sends a setting; a reply that says it was refused is an error. */
    private void expect(MpsPaths paths, String command) throws IOException {
        String reply = control.send(paths, command);
        if (reply.startsWith("Invalid") || reply.startsWith("Unrecognized")) {
            throw new IOException(paths.pipe() + ": '" + command + "' refused: " + reply);
        }
    }

    private void stop(Running r) {
        MpsPaths paths = new MpsPaths(root, r.share().resource());
        try {
            Files.deleteIfExists(paths.started());
        } catch (IOException e) {
            log.error("mps-marker-remove-failed", "file", paths.started(), "error", e.getMessage());
        }
        r.daemon().close();
        // back to DEFAULT: an EXCLUSIVE_PROCESS GPU refuses a second process without MPS
        for (Gpu g : gpus) {
            try {
                control.computeMode(g, false);
            } catch (IOException e) {
                log.error("compute-mode-reset-failed", "gpu", g.index(), "error", e.getMessage());
            }
        }
        log.info("mps-daemon-stopped", "resource", r.share().resource());
    }

    /** A {@code .started} left by a daemon that died with its pod says nothing now. */
    private void removeStaleMarkers() {
        if (!Files.isDirectory(root)) {
            return;
        }
        try (Stream<Path> files = Files.walk(root, 4)) {
            for (Path p : files.filter(f -> f.endsWith(MpsPaths.STARTED)).toList()) {
                Files.deleteIfExists(p);
                log.info("stale-mps-marker-removed", "file", p);
            }
        } catch (IOException | UncheckedIOException e) {
            log.warn("stale-mps-markers-unreadable", "root", root, "error", e.getMessage());
        }
    }

    /** Every wanted daemon runs with its limits set. */
    public boolean ready() {
        return ready;
    }

    /** The resources whose daemon runs now. */
    public synchronized List<String> runningResources() {
        return List.copyOf(running.keySet());
    }

    public int healthPort() {
        return healthServer.port();
    }

    public void awaitStop() throws InterruptedException {
        stopped.await();
    }

    /** Stops every daemon and removes their {@code .started}. Idempotent. */
    @Override
    public synchronized void close() {
        toolkitWait.stop();
        if (closed) {
            return;
        }
        closed = true;
        ready = false;
        running.values().forEach(this::stop);
        running.clear();
        if (healthServer != null) {
            healthServer.close();
        }
        log.info("stopped");
        stopped.countDown();
    }
}
