package org.gpuoperator.deviceplugin;

import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.gpuoperator.deviceplugin.allocation.Allocations;
import org.gpuoperator.deviceplugin.allocation.PreferredAllocation;
import org.gpuoperator.deviceplugin.config.Flag;
import org.gpuoperator.deviceplugin.config.PluginConfig;
import org.gpuoperator.deviceplugin.health.DeviceHealth;
import org.gpuoperator.deviceplugin.health.HealthMonitor;
import org.gpuoperator.deviceplugin.health.HealthPolicy;
import org.gpuoperator.deviceplugin.mps.MpsControl;
import org.gpuoperator.deviceplugin.mps.MpsReadiness;
import org.gpuoperator.deviceplugin.resources.DeviceNodes;
import org.gpuoperator.deviceplugin.resources.GpuTopology;
import org.gpuoperator.deviceplugin.resources.Resource;
import org.gpuoperator.deviceplugin.resources.ResourcePlanner;
import org.gpuoperator.deviceplugin.server.DevicePluginService;
import org.gpuoperator.deviceplugin.server.PluginSupervisor;
import org.gpuoperator.kubelet.UnixSockets;
import org.gpuoperator.node.agent.AgentOptions;
import org.gpuoperator.node.agent.EventLog;
import org.gpuoperator.node.agent.HealthServer;
import org.gpuoperator.node.agent.PredecessorWait;
import org.gpuoperator.node.agent.ReadinessFiles;
import org.gpuoperator.node.deviceconfig.ConfigFile;
import org.gpuoperator.node.inventory.Gpu;
import org.gpuoperator.node.inventory.GpuInventory;
import org.gpuoperator.node.inventory.GpuSourceException;
import org.gpuoperator.node.inventory.GpuSourceOptions;

/**
 * The device plugin daemon: waits for {@code toolkit-ready}, reads the GPUs, serves one socket per
 * resource, registers with the kubelet, keeps health current, writes {@code plugin-ready} while
 * registered, and cleans up on {@link #close()}. Embeddable, so tests and the simulated cluster run
 * it in-process.
 */
public final class DevicePluginAgent implements AutoCloseable {

    /**
     * What the daemon needs besides the shared options.
     *
     * @param pluginDir the kubelet's device plugin directory
     * @param configFile a v1 config file, or null
     * @param cli flags given on the command line
     * @param env the environment (read for the flags' variables)
     * @param health which XIDs count
     */
    public record Settings(
            Path pluginDir,
            Path configFile,
            Map<Flag, String> cli,
            Map<String, String> env,
            HealthPolicy health) {
        public Settings {
            cli = Map.copyOf(cli);
            env = Map.copyOf(env);
        }

        public Settings withConfigFile(Path file) {
            return new Settings(pluginDir, file, cli, env, health);
        }
    }

    private static final Duration TOOLKIT_POLL = Duration.ofMillis(200);

    /** The {@code plugin-ready} fact naming the process that wrote it. */
    static final String INSTANCE_FACT = "instance";

    /** The {@code plugin-ready} fact telling when its writer started. */
    static final String STARTED_FACT = "started";

    private volatile Settings settings;
    private final GpuSourceOptions gpuSource;
    private final AgentOptions agentOptions;
    private final ReadinessFiles readiness;
    private final PredecessorWait toolkitWait;
    private final EventLog log;
    private final CountDownLatch stopped = new CountDownLatch(1);
    private final DeviceHealth health = new DeviceHealth();

    /** Not a secret, so not UUID.randomUUID: its SecureRandom costs ~9 ms of the start. */
    private final String instance =
            new UUID(ThreadLocalRandom.current().nextLong(), ThreadLocalRandom.current().nextLong())
                    .toString();

    private final Instant started = Instant.now();
    private volatile boolean wroteReady;

    private HealthServer healthServer;
    private GpuInventory inventory;
    private HealthMonitor monitor;
    private EventLoopGroup group;
    private PluginSupervisor supervisor;
    private final MpsControl mpsControl;
    private MpsReadiness mpsReadiness;
    private volatile PluginConfig config;
    private volatile List<Resource> resources = List.of();
    private boolean closed;

    public DevicePluginAgent(
            Settings settings,
            GpuSourceOptions gpuSource,
            AgentOptions agentOptions,
            EventLog log) {
        this(settings, gpuSource, agentOptions, null, log);
    }

    /**
     * @param mpsControl how to reach MPS control daemons; null: the GPU source's own (simulated
     *     GPUs: the simulated daemon)
     */
    public DevicePluginAgent(
            Settings settings,
            GpuSourceOptions gpuSource,
            AgentOptions agentOptions,
            MpsControl mpsControl,
            EventLog log) {
        this.mpsControl = mpsControl;
        this.settings = settings;
        this.gpuSource = gpuSource;
        this.agentOptions = agentOptions;
        this.readiness = agentOptions.readiness();
        this.log = log;
        this.toolkitWait = new PredecessorWait(readiness, TOOLKIT_POLL, log);
    }

    /** Reads and validates the config: command line, then environment, then file. */
    public static PluginConfig loadConfig(Settings s) {
        ConfigFile file =
                s.configFile() == null ? ConfigFile.empty() : ConfigFile.read(s.configFile());
        return PluginConfig.resolve(s.cli(), s.env(), file);
    }

    /**
     * Validates the config, waits for the toolkit, then serves and registers. Returns once serving
     * has started; registration continues in the background.
     *
     * @throws org.gpuoperator.node.deviceconfig.ConfigException for a bad config (nothing is
     *     served)
     * @throws org.gpuoperator.deviceplugin.resources.PlanException when the GPUs do not fit the MIG
     *     strategy
     */
    public void start() throws InterruptedException, IOException {
        ConfigFile file =
                settings.configFile() == null
                        ? ConfigFile.empty()
                        : ConfigFile.read(settings.configFile());
        config = PluginConfig.resolve(settings.cli(), settings.env(), file);
        if (!file.ignored().isEmpty()) {
            log.info(
                    "config-fields-ignored",
                    "file",
                    file.source(),
                    "fields",
                    String.join(",", file.ignored()));
        }
        log.info(
                "config",
                "mig-strategy",
                config.migStrategy().value(),
                "device-list-strategy",
                String.join(
                        ",", config.deviceListStrategies().stream().map(d -> d.value()).toList()),
                "device-id-strategy",
                config.deviceIdStrategy().value(),
                "sharing",
                config.sharing().strategy().value(),
                "shared-resources",
                config.sharing().resources().size());
        healthServer = HealthServer.start(agentOptions.healthAddress(), this::ready);
        clearOlderReady();
        try {
            if (toolkitWait.await(ReadinessFiles.TOOLKIT, Duration.ZERO).isEmpty()) {
                return; // closed while waiting: nothing opened, nothing served
            }
        } catch (java.util.concurrent.TimeoutException cannotHappen) {
            throw new IllegalStateException(cannotHappen); // a zero timeout waits forever
        }
        try {
            inventory = gpuSource.open();
        } catch (GpuSourceException e) {
            if (config.failOnInitError()) {
                throw e;
            }
            log.error(
                    "gpu-source-unavailable",
                    "error",
                    e.getMessage(),
                    "action",
                    "failOnInitError=false: serving nothing, waiting indefinitely");
            return;
        }
        log.info(
                "gpu-source-opened",
                "source",
                inventory.describe(),
                "gpus",
                inventory.gpus().size());
        List<Resource> planned = plan(config);
        if (settings.health().enabled()) {
            monitor = HealthMonitor.start(inventory, health, settings.health(), log);
        } else {
            log.warn("health-checks-disabled");
        }
        group = UnixSockets.eventLoops("device-plugin", 1);
        supervisor =
                new PluginSupervisor(settings.pluginDir(), group, log, this::onRegisteredChange);
        resources = planned;
        mpsReadiness =
                new MpsReadiness(
                        mpsControl != null
                                ? mpsControl
                                : MpsControl.forSource(gpuSource.source().simulated()),
                        health,
                        log);
        mpsReadiness.watch(planned, config.mpsRoot());
        supervisor.start(services(planned, config));
    }

    private List<Resource> plan(PluginConfig c) {
        DeviceNodes nodes = new DeviceNodes(gpuSource.hostRoot(), c.devRoot());
        List<Resource> planned =
                ResourcePlanner.plan(inventory.gpus(), c, nodes::migCapabilityNodes);
        if (planned.isEmpty()) {
            log.warn("no-devices-found", "action", "waiting indefinitely");
        }
        for (Gpu g : ResourcePlanner.migGpusAdvertisedWhole(inventory.gpus(), c)) {
            log.warn(
                    "mig-gpu-advertised-whole",
                    "gpu",
                    g.index(),
                    "uuid",
                    g.uuid(),
                    "why",
                    "mig-strategy is none: a pod given it sees no MIG device, and the CDI runtime"
                            + " refuses it; use mig-strategy single or mixed");
        }
        for (Resource r : planned) {
            log.info(
                    "resource",
                    "name",
                    r.name(),
                    "devices",
                    r.devices().size(),
                    "replicas",
                    r.replicas());
        }
        return planned;
    }

    private List<DevicePluginService> services(List<Resource> planned, PluginConfig c) {
        GpuTopology topology = new GpuTopology(inventory.gpus(), inventory.links());
        List<String> control = new DeviceNodes(gpuSource.hostRoot(), c.devRoot()).controlNodes();
        List<DevicePluginService> out = new ArrayList<>();
        for (Resource r : planned) {
            out.add(
                    new DevicePluginService(
                            r,
                            health,
                            new Allocations(r, c, control),
                            new PreferredAllocation(r, topology, c.allocationPolicy()),
                            log));
        }
        return out;
    }

    /**
     * SIGHUP: reads the config again; a valid one replaces the served resources (re-serve and
     * re-register), an invalid one is logged and the running config stays.
     */
    public synchronized void reload() {
        if (supervisor == null || closed) {
            log.warn("reload-skipped", "reason", "not serving yet");
            return;
        }
        PluginConfig next;
        List<Resource> planned;
        try {
            next = loadConfig(settings);
            planned = plan(next);
        } catch (RuntimeException e) {
            log.error(
                    "reload-failed",
                    "error",
                    e.getMessage(),
                    "action",
                    "keeping the running config");
            return;
        }
        config = next;
        resources = planned;
        mpsReadiness.watch(planned, next.mpsRoot());
        supervisor.replace(services(planned, next));
        log.info("reloaded", "resources", planned.size());
    }

    /**
     * A config chosen by the node's label ({@code NodeConfigWatch}): before serving it only
     * replaces the file {@link #start()} reads; while serving it replaces the resources as {@link
     * #reload()} does. A config that does not load or does not fit the GPUs is thrown back and the
     * running one stays.
     *
     * @param file the chosen config's file, or the {@code --config} file when none is chosen (null
     *     for none)
     */
    public synchronized void useConfig(Path file) {
        Settings next = settings.withConfigFile(file);
        PluginConfig c = loadConfig(next);
        if (supervisor == null || closed) {
            settings = next;
            return;
        }
        List<Resource> planned = plan(c);
        settings = next;
        config = c;
        resources = planned;
        mpsReadiness.watch(planned, c.mpsRoot());
        supervisor.replace(services(planned, c));
        log.info(
                "reloaded", "resources", planned.size(), "file", String.valueOf(next.configFile()));
    }

    private void onRegisteredChange(boolean registered) {
        if (!registered) {
            clearOwnReady();
            return;
        }
        Map<String, String> facts = new LinkedHashMap<>();
        facts.put("resources", String.join(",", resources.stream().map(Resource::name).toList()));
        facts.put(
                "devices",
                Integer.toString(resources.stream().mapToInt(r -> r.devices().size()).sum()));
        facts.put("source", inventory.describe());
        facts.put(INSTANCE_FACT, instance);
        facts.put(STARTED_FACT, started.toString());
        Optional<Map<String, String>> present = readiness.read(ReadinessFiles.PLUGIN);
        if (present.isPresent() && present.get().equals(facts)) {
            return; // told again while nothing changed
        }
        try {
            readiness.markReady(ReadinessFiles.PLUGIN, facts);
            // written again while registered: another instance of a rollout removed it
            log.info(
                    wroteReady && present.isEmpty() ? "ready-restored" : "ready",
                    "file",
                    readiness.file(ReadinessFiles.PLUGIN));
            wroteReady = true;
        } catch (UncheckedIOException e) {
            log.error("readiness-write-failed", "error", e.getMessage());
        }
    }

    /**
     * At start, before serving: removes a {@code plugin-ready} that an instance started before this
     * one wrote (a stale file, or a predecessor's that is being replaced). One written by an
     * instance started later stays: in a rollout whose pods overlap, the old pod may get here after
     * its successor is already serving.
     */
    private void clearOlderReady() {
        Optional<Map<String, String>> facts = readiness.read(ReadinessFiles.PLUGIN);
        if (facts.isPresent() && writtenBefore(facts.get(), started)) {
            clearReadyFile();
        }
    }

    /** Removes {@code plugin-ready} only when this instance wrote it. */
    private void clearOwnReady() {
        Optional<Map<String, String>> facts = readiness.read(ReadinessFiles.PLUGIN);
        if (facts.isPresent() && instance.equals(facts.get().get(INSTANCE_FACT))) {
            clearReadyFile();
        }
    }

    /** Whether the writer of {@code facts} started before {@code start} (unknown: it did). */
    static boolean writtenBefore(Map<String, String> facts, Instant start) {
        try {
            return Instant.parse(facts.getOrDefault(STARTED_FACT, "")).isBefore(start);
        } catch (java.time.format.DateTimeParseException e) {
            return true;
        }
    }

    private void clearReadyFile() {
        try {
            readiness.clear(ReadinessFiles.PLUGIN);
            log.info("not-ready", "file", readiness.file(ReadinessFiles.PLUGIN));
        } catch (UncheckedIOException e) {
            log.error("readiness-clear-failed", "error", e.getMessage());
        }
    }

    /** Every resource is registered with the kubelet. */
    public boolean ready() {
        PluginSupervisor s = supervisor;
        return s != null && s.registered();
    }

    public PluginConfig config() {
        return config;
    }

    public List<Resource> resources() {
        return resources;
    }

    /** The port /healthz and /readyz are served on. */
    public int healthPort() {
        return healthServer.port();
    }

    /** Blocks until {@link #close()}. */
    public void awaitStop() throws InterruptedException {
        stopped.await();
    }

    /** Stops serving, removes the plugin sockets and {@code plugin-ready}. Idempotent. */
    @Override
    public synchronized void close() {
        toolkitWait
                .stop(); // a start() still waiting for toolkit-ready returns at once, having opened
        // nothing
        if (closed) {
            return;
        }
        closed = true;
        if (mpsReadiness != null) {
            mpsReadiness.close();
        }
        if (supervisor != null) {
            supervisor.close();
        }
        if (monitor != null) {
            monitor.close();
        }
        if (group != null) {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        }
        if (inventory != null) {
            inventory.close();
        }
        clearOwnReady();
        if (healthServer != null) {
            healthServer.close();
        }
        log.info("stopped");
        stopped.countDown();
    }
}
