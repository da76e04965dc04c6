package org.gpuoperator.gfd;

import io.fabric8.kubernetes.client.KubernetesClient;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import org.gpuoperator.gfd.host.HostFiles;
import org.gpuoperator.gfd.publish.FeaturesFilePublisher;
import org.gpuoperator.gfd.publish.LabelPublisher;
import org.gpuoperator.node.agent.AgentCommand;
import org.gpuoperator.node.agent.AgentOptions;
import org.gpuoperator.node.agent.EventLog;
import org.gpuoperator.node.agent.FirstRequestWarmUp;
import org.gpuoperator.node.agent.HealthServer;
import org.gpuoperator.node.agent.PredecessorWait;
import org.gpuoperator.node.agent.ReadinessFiles;
import org.gpuoperator.node.agent.ReloadSignal;
import org.gpuoperator.node.deviceconfig.ConfigFile;
import org.gpuoperator.node.deviceconfig.ConfigSelection;
import org.gpuoperator.node.deviceconfig.NodeConfigWatch;
import org.gpuoperator.node.inventory.GpuInventory;
import org.gpuoperator.node.inventory.GpuSourceOptions;
import org.gpuoperator.node.labels.AgentKubeClient;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * {@code feature-discovery}: publishes GPU facts as {@code nvidia.com/*} node labels, with upstream
 * GFD's label set and flags. Without a subcommand it runs the labelling daemon; {@code cleanup}
 * removes what it published.
 */
@Command(
        name = "feature-discovery",
        description = "Publishes GPU facts as nvidia.com/* node labels (GPU feature discovery).")
public final class FeatureDiscoveryMain implements Callable<Integer>, AgentCommand.Subcommands {

    @Override
    public List<Class<?>> subcommands() {
        return List.of(CleanupCommand.class);
    }

    static final String COMPONENT = "feature-discovery";

    /** This agent's readiness file in the validations directory. */
    public static final String READY_FILE = "gfd-ready";

    private static final Duration PREDECESSOR_POLL = Duration.ofSeconds(2);

    @Mixin GpuSourceOptions gpuSource;

    @Mixin AgentOptions agent;

    @Mixin CommonOptions common;

    @Option(
            names = "--mig-strategy",
            paramLabel = "STRATEGY",
            description =
                    "none, single or mixed (default none). Env: GFD_MIG_STRATEGY, MIG_STRATEGY.")
    String migStrategy;

    @Option(
            names = "--oneshot",
            arity = "0..1",
            fallbackValue = "true",
            paramLabel = "BOOL",
            description = "Label once and exit. Env: GFD_ONESHOT.")
    Boolean oneshot;

    @Option(
            names = "--no-timestamp",
            arity = "0..1",
            fallbackValue = "true",
            paramLabel = "BOOL",
            description = "Leave out nvidia.com/gfd.timestamp. Env: GFD_NO_TIMESTAMP.")
    Boolean noTimestamp;

    @Option(
            names = "--sleep-interval",
            paramLabel = "DURATION",
            description =
                    "Time between labelling runs, e.g. 60s (default), 5m, or 'infinite' (label once, "
                            + "keep running). Env: GFD_SLEEP_INTERVAL.")
    String sleepInterval;

    @Option(
            names = "--machine-type-file",
            paramLabel = "FILE",
            description =
                    "DMI product name file, read under --host-root (default "
                            + Settings.DEFAULT_MACHINE_TYPE_FILE
                            + "). Env: GFD_MACHINE_TYPE_FILE.")
    String machineTypeFile;

    @Option(
            names = "--wait-for",
            defaultValue = "${env:GFD_WAIT_FOR:-" + ReadinessFiles.PLUGIN + "}",
            paramLabel = "NAME",
            description =
                    "Readiness file of the predecessor to wait for in --validations-dir before labelling "
                            + "(default ${DEFAULT-VALUE}); 'none' does not wait. Env: GFD_WAIT_FOR.")
    String waitFor;

    @Option(
            names = "--config-file-srcdir",
            defaultValue = "${env:CONFIG_FILE_SRCDIR}",
            paramLabel = "DIR",
            description =
                    "Named configs (the device plugin's ConfigMap, one file per key): the node label "
                            + ConfigSelection.LABEL
                            + " picks one; a change of the label relabels without a restart. "
                            + "Env: CONFIG_FILE_SRCDIR.")
    Path configDir;

    @Option(
            names = "--default-config",
            defaultValue = "${env:DEFAULT_CONFIG}",
            paramLabel = "NAME",
            description =
                    "The named config for a node without the label (default: none). Env: DEFAULT_CONFIG.")
    String defaultConfig;

    private final Map<String, String> env;
    private final PrintStream stdout;

    public FeatureDiscoveryMain() {
        this(System.getenv(), System.out);
    }

    FeatureDiscoveryMain(Map<String, String> env, PrintStream stdout) {
        this.env = env;
        this.stdout = stdout;
    }

    Settings.Flags flags() {
        return new Settings.Flags(
                migStrategy,
                oneshot,
                noTimestamp,
                sleepInterval,
                common.outputFile,
                machineTypeFile,
                common.useNodeFeatureApi,
                common.configFile);
    }

    @Override
    public Integer call() throws Exception {
        Settings.Flags flags = flags();
        // Bad flags or config: fail before touching anything.
        Settings first = loadSettings(flags, env, new EventLog(COMPONENT, System.err));
        // When the labels themselves go to standard output, the event log moves out of their way.
        boolean preview = first.outputFile().filter(f -> f.isEmpty() || f.equals("-")).isPresent();
        EventLog log = new EventLog(COMPONENT, preview ? System.err : stdout);
        // the flags in force: a named config chosen by the node label replaces --config-file
        AtomicReference<Settings.Flags> current = new AtomicReference<>(flags);
        FeatureDiscovery.SettingsSource settings = () -> loadSettings(current.get(), env, log);
        ReadinessFiles readiness = agent.readiness();
        String nodeName = gpuSource.nodeName();
        CountDownLatch finished = new CountDownLatch(1);
        AtomicReference<FeatureDiscovery> running = new AtomicReference<>();
        // Health first (alive while waiting); a oneshot run is over before a probe could ask.
        try (ApiPublishers api = new ApiPublishers(common, env, nodeName, log);
                NodeConfigWatch watch =
                        configDir == null
                                ? null
                                : new NodeConfigWatch(
                                        api.client(),
                                        nodeName,
                                        new ConfigSelection(configDir, defaultConfig),
                                        false,
                                        log)) {
            if (watch != null) {
                // the node's label picks the config; refused at start: one line, exit 1
                ConfigSelection.Choice choice =
                        watch.initial(c -> loadSettings(withChoice(flags, c), env, log));
                current.set(withChoice(flags, choice));
                first = loadSettings(current.get(), env, log);
            }
            try (HealthServer health =
                    first.oneshot()
                            ? null
                            : HealthServer.start(
                                    agent.healthAddress(),
                                    () -> running.get() != null && running.get().healthy())) {
                // The GPU source is opened only once the predecessors (driver, plugin) are ready;
                // SIGTERM ends the wait.
                if (!waitForPredecessor(readiness, log)) {
                    return 0;
                }
                try (GpuInventory inventory = gpuSource.open()) {
                    FeatureDiscovery fd =
                            new FeatureDiscovery(
                                    inventory,
                                    new HostFiles(gpuSource.hostRoot()),
                                    settings,
                                    s -> publisherFor(s, api),
                                    log,
                                    Clock.systemUTC(),
                                    (s, p, labels) -> {
                                        if (!s.oneshot()) {
                                            readiness.markReady(
                                                    READY_FILE,
                                                    Map.of(
                                                            "labels",
                                                            Integer.toString(labels.size())));
                                        }
                                    });
                    running.set(fd);
                    installSignals(fd, finished, readiness, log);
                    if (watch != null) {
                        watch.start(
                                choice -> {
                                    Settings.Flags next = withChoice(flags, choice);
                                    loadSettings(next, env, log); // refused here: previous stays
                                    current.set(next);
                                    fd.reload();
                                });
                    }
                    log.info(
                            "started",
                            "node",
                            nodeName,
                            "gpu-source",
                            inventory.describe(),
                            "gpus",
                            inventory.gpus().size());
                    Settings last = fd.run(first);
                    cleanUp(last, readiness, log);
                    return 0;
                }
            }
        } finally {
            finished.countDown();
        }
    }

    /** The flags with the chosen config's file; none: the {@code --config-file}, if any. */
    private static Settings.Flags withChoice(Settings.Flags flags, ConfigSelection.Choice choice) {
        return choice.none() ? flags : flags.withConfigFile(choice.file());
    }

    static Settings loadSettings(Settings.Flags flags, Map<String, String> env, EventLog log) {
        ConfigFile file =
                Settings.configFile(flags, env).map(ConfigFile::read).orElse(ConfigFile.empty());
        if (!file.ignored().isEmpty()) {
            log.warn(
                    "config-warning",
                    "detail",
                    file.source()
                            + ": fields ignored (no agent here implements them): "
                            + String.join(", ", file.ignored()));
        }
        return Settings.resolve(flags, env, file);
    }

    private LabelPublisher publisherFor(Settings s, ApiPublishers api) {
        if (s.outputFile().isPresent()) {
            String out = s.outputFile().get();
            return new FeaturesFilePublisher(
                    out.isEmpty() || out.equals("-") ? null : Path.of(out), stdout);
        }
        return api.create(s.nodeFeatureApi());
    }

    /** False when SIGTERM ended the wait: nothing was opened or published, nothing to clean up. */
    private boolean waitForPredecessor(ReadinessFiles readiness, EventLog log)
            throws InterruptedException, TimeoutException {
        if (waitFor == null || waitFor.isBlank() || waitFor.equals("none")) {
            return true;
        }
        PredecessorWait wait = new PredecessorWait(readiness, PREDECESSOR_POLL, log);
        Thread hook = new Thread(wait::stop, "shutdown-wait");
        Runtime.getRuntime().addShutdownHook(hook);
        try {
            return wait.await(waitFor, Duration.ZERO).isPresent();
        } finally {
            try {
                Runtime.getRuntime().removeShutdownHook(hook);
            } catch (IllegalStateException shuttingDown) {
                // the hook is running: the JVM is on its way out
            }
        }
    }

    /**
     * On a normal end: withdraw the readiness file, and the features file as upstream does for a
     * daemon.
     */
    private void cleanUp(Settings last, ReadinessFiles readiness, EventLog log) {
        readiness.clear(READY_FILE);
        if (!last.oneshot() && !last.sleepInterval().infinite()) {
            last.outputFile()
                    .filter(f -> !f.isEmpty() && !f.equals("-"))
                    .ifPresent(
                            f -> {
                                new FeaturesFilePublisher(Path.of(f), stdout).remove();
                                log.info("output-file-removed", "file", f);
                            });
        }
        log.info("stopped");
    }

    private static void installSignals(
            FeatureDiscovery fd, CountDownLatch finished, ReadinessFiles readiness, EventLog log) {
        ReloadSignal.install(log, fd::reload);
        Runtime.getRuntime()
                .addShutdownHook(
                        new Thread(
                                () -> {
                                    fd.stop();
                                    try {
                                        // Let the loop finish its cleanup (readiness file, output
                                        // file) before the JVM exits.
                                        if (!finished.await(10, TimeUnit.SECONDS)) {
                                            readiness.clear(READY_FILE);
                                        }
                                    } catch (InterruptedException e) {
                                        Thread.currentThread().interrupt();
                                    }
                                },
                                "shutdown"));
    }

    /** Builds the API publishers; the Kubernetes client is created only when a run needs it. */
    static final class ApiPublishers implements AutoCloseable {
        private final CommonOptions common;
        private final Map<String, String> env;
        private final String nodeName;
        private final EventLog log;
        private KubernetesClient client;

        ApiPublishers(
                CommonOptions common, Map<String, String> env, String nodeName, EventLog log) {
            this.common = common;
            this.env = env;
            this.nodeName = nodeName;
            this.log = log;
        }

        synchronized KubernetesClient client() {
            if (client == null) {
                // its first request follows at once: a 404's Status, the node as a generic
                // resource (NodeLabelPatcher), and with named configs the watch's list of it
                client = AgentKubeClient.build();
                AgentKubeClient.warmUpSerialization(client, AgentKubeClient.OWN_NODE_TYPES);
            }
            return client;
        }

        LabelPublisher create(Settings.NodeFeatureApi mode) {
            return PublisherChoice.choose(
                    client(), mode, common.namespace(env), common.podName(env), nodeName, log);
        }

        @Override
        public synchronized void close() {
            if (client != null) {
                client.close();
            }
        }
    }

    public static void main(String[] args) {
        FirstRequestWarmUp.start(); // its first API request is on its start path
        HealthServer.lookUpProviderEarly(); // the class path's first scan, off the client's build
        AgentCommand.exit(new FeatureDiscoveryMain(), args);
    }
}
