package org.gpuoperator.toolkit;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.gpuoperator.kubelet.cri.CriClient;
import org.gpuoperator.node.agent.AgentOptions;
import org.gpuoperator.node.agent.Durations;
import org.gpuoperator.node.agent.EventLog;
import org.gpuoperator.node.agent.HealthServer;
import org.gpuoperator.node.agent.PredecessorWait;
import org.gpuoperator.node.agent.ReadinessFiles;
import org.gpuoperator.node.cdi.CdiException;
import org.gpuoperator.node.cdi.CdiSpecGenerator;
import org.gpuoperator.node.cdi.DriverFiles;
import org.gpuoperator.node.inventory.GpuInventory;
import org.gpuoperator.node.inventory.GpuSourceOptions;
import org.gpuoperator.toolkit.DriverFollow.DriverFacts;
import org.gpuoperator.toolkit.apply.ConfigApplier;
import org.gpuoperator.toolkit.apply.ExternalValidator;
import org.gpuoperator.toolkit.apply.RuntimeConfigurer;
import org.gpuoperator.toolkit.cdi.CdiSpecFiles;
import org.gpuoperator.toolkit.cri.CriRuntimeConfig;
import org.gpuoperator.toolkit.devnodes.ControlNodeSetup;
import org.gpuoperator.toolkit.devnodes.DeviceNodeMaker;
import org.gpuoperator.toolkit.install.RuntimePayload;
import org.gpuoperator.toolkit.install.ToolkitInstaller;
import org.gpuoperator.toolkit.reload.Reloader;
import org.gpuoperator.toolkit.simulated.RuntimeConfig;

/**
 * The daemon: wait for {@code driver-ready}; install the runtime binaries; register the runtime;
 * reload only if a file changed; verify; write {@code toolkit-ready}; follow {@code driver-ready}
 * (gone: remove {@code toolkit-ready}; back or changed, or {@code toolkit-ready} removed behind its
 * back: rewrite the CDI specs for it, apply the config again, write {@code toolkit-ready} again);
 * re-check every resync interval; on stop, remove {@code toolkit-ready}, revert the config and
 * reload once.
 */
final class ToolkitDaemon {

    private static final Duration DRIVER_POLL = Duration.ofMillis(500);

    /**
     * Between CRI checks after a reload: containerd exits on the signal restart mode's SIGHUP and
     * is back when its supervisor has started it again (the simulated node's after 0.5 s), so the
     * first check usually finds no socket or a refused connection.
     */
    private static final Duration VERIFY_POLL = Duration.ofMillis(250);

    private final GpuSourceOptions gpu;
    private final AgentOptions agent;
    private final RuntimeOptions runtime;
    private final ToolkitAgentMain.DaemonOptions daemon;
    private final EventLog log;
    private final Optional<Reloader> reloaderOverride;
    private final boolean shutdownHook;

    private final PredecessorWait driverWait;
    private final CountDownLatch stop = new CountDownLatch(1);
    private final CountDownLatch finished = new CountDownLatch(1);
    private final Object lock = new Object();
    private volatile boolean ready;
    private boolean touched;
    private boolean wroteCdiSpec;
    private int reloads;
    private String lastReload = "none";
    // the driver-ready facts the toolkit's files were last made for, and what toolkit-ready says
    private DriverFacts applied;
    private Map<String, String> toolkitFacts;
    private String lastFollowError;

    /** The MIG layout the CDI spec was last rewritten for (null: none yet). */
    private Map<String, String> lastMigLayout;

    private volatile int driverPolls;

    ToolkitDaemon(
            GpuSourceOptions gpu,
            AgentOptions agent,
            RuntimeOptions runtime,
            ToolkitAgentMain.DaemonOptions daemon,
            EventLog log) {
        this(gpu, agent, runtime, daemon, log, Optional.empty(), true);
    }

    /** For tests: a fake reloader, and no JVM shutdown hook (the test calls {@link #stop()}). */
    ToolkitDaemon(
            GpuSourceOptions gpu,
            AgentOptions agent,
            RuntimeOptions runtime,
            ToolkitAgentMain.DaemonOptions daemon,
            EventLog log,
            Optional<Reloader> reloaderOverride,
            boolean shutdownHook) {
        this.gpu = gpu;
        this.agent = agent;
        this.runtime = runtime;
        this.daemon = daemon;
        this.log = log;
        this.reloaderOverride = reloaderOverride;
        this.shutdownHook = shutdownHook;
        this.driverWait = new PredecessorWait(agent.readiness(), DRIVER_POLL, log);
    }

    boolean ready() {
        return ready;
    }

    int reloads() {
        return reloads;
    }

    /** How often driver-ready was looked at after set-up (tests wait on it). */
    int driverPolls() {
        return driverPolls;
    }

    /** Stops the daemon and waits until it has reverted the node. */
    void stop() {
        driverWait.stop();
        stop.countDown();
        try {
            finished.await(2, TimeUnit.MINUTES);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** {@code --cdi-disable-hooks}, checked; a bad name is a config error naming the option. */
    private Set<String> disabledHooks() throws ConfigException {
        try {
            return CdiSpecFiles.disabledHooks(
                    "--cdi-disable-hooks (env CDI_DISABLE_HOOKS)", daemon.cdiDisableHooks);
        } catch (IllegalArgumentException e) {
            throw new ConfigException(e.getMessage());
        }
    }

    int run() throws Exception {
        Path hostRoot = gpu.hostRoot();
        disabledHooks(); // before anything is waited for or written
        ReadinessFiles readiness = agent.readiness();
        // on the other core while the driver is awaited and the files are written
        StartWarmUp.start(
                new StartWarmUp.Needs(
                        reloaderOverride.isEmpty()
                                && runtime.restartMode() == RuntimeOptions.RestartMode.signal,
                        gpu.source().simulated(),
                        runtime.runtime != RuntimeOptions.Runtime.docker,
                        criChecked() ? criSocket(hostRoot) : null));
        try (HealthServer health = HealthServer.start(agent.healthAddress(), this::ready)) {
            if (shutdownHook) {
                Runtime.getRuntime()
                        .addShutdownHook(new Thread(this::stop, "toolkit-agent-shutdown"));
            }
            log.info(
                    "started",
                    "runtime",
                    runtime.runtime,
                    "config",
                    runtime.configPath(),
                    "gpu-source",
                    gpu.source(),
                    "restart-mode",
                    runtime.restartMode(),
                    "health-port",
                    health.port());
            try {
                if (driverWait.await(ReadinessFiles.DRIVER, daemon.driverReadyTimeout).isEmpty()) {
                    return 0; // stopped while waiting: nothing touched, nothing to revert
                }
                synchronized (lock) {
                    setUp(hostRoot, readiness);
                }
                long resync = daemon.resyncInterval.toNanos();
                long lastResync = System.nanoTime();
                // driver-ready at DRIVER_POLL; the full resync at its own interval
                while (!stop.await(DRIVER_POLL.toMillis(), TimeUnit.MILLISECONDS)) {
                    synchronized (lock) {
                        followDriver(hostRoot, readiness);
                        followMigLayout(hostRoot, readiness);
                        driverPolls++;
                        if (resync > 0 && System.nanoTime() - lastResync >= resync) {
                            lastResync = System.nanoTime();
                            try {
                                resync(hostRoot, readiness);
                            } catch (ConfigException | IOException e) {
                                log.error("resync-failed", "error", e.getMessage());
                            }
                        }
                    }
                }
                return 0;
            } finally {
                synchronized (lock) {
                    tearDown(hostRoot, readiness);
                }
                finished.countDown();
            }
        }
    }

    /**
     * The facts of driver-ready now: the driver root it names (the host's / for a host driver),
     * else upstream's {@code /run/nvidia/driver}; its driver version, else none (the inventory's).
     */
    private static DriverFacts driverFacts(ReadinessFiles readiness) {
        return DriverFacts.of(readiness.read(ReadinessFiles.DRIVER).orElse(Map.of()));
    }

    /**
     * The simulated runtime's config: what this agent knows and the runtime cannot find out on the
     * node. The host root is {@code /}, not this agent's: the runtime runs where containerd runs,
     * in the node's own mount namespace, where the kernel's {@code /proc/driver/nvidia} is the
     * node's.
     */
    private ToolkitInstaller.SimulatedRuntime simulatedRuntime(String driverRoot)
            throws ConfigException {
        Path profiles = gpu.simulatedProfiles();
        RuntimeConfig config =
                new RuntimeConfig(
                        driverRoot,
                        gpu.nodeName(),
                        gpu.source().toString(),
                        "/",
                        profiles == null ? null : profiles.toAbsolutePath().normalize().toString(),
                        // the simulated runtime reads one prefix: the first of the real runtime's
                        runtime.modes().annotationPrefixes().get(0),
                        runtime.modes().defaultKind());
        return new ToolkitInstaller.SimulatedRuntime(config, RuntimePayload.ofThisProcess());
    }

    private void setUp(Path hostRoot, ReadinessFiles readiness)
            throws ConfigException, IOException {
        // before anything is written: a config we could not make the runtime load is no use
        Reloader reloader =
                reloaderOverride.isPresent() ? reloaderOverride.get() : runtime.reloader(hostRoot);
        try {
            reloader.preflight();
        } catch (IOException e) {
            throw new ConfigException(e.getMessage(), e);
        }
        DriverFacts driver = driverFacts(readiness);
        install(hostRoot, driver.root());
        if (!gpu.source().simulated()) {
            controlNodes(hostRoot);
        }
        if (runtime.cdi) {
            writeCdiSpecs(hostRoot, driver);
        } else {
            // CDI turned off: specs an earlier run with CDI on left behind go too
            List<String> removed = new CdiSpecFiles(hostRoot, daemon.cdiSpec).remove();
            if (!removed.isEmpty()) {
                log.info("cdi-spec-removed", "files", String.join(",", removed));
            }
        }
        touched = true;
        int reloadsBefore = reloads;
        boolean configured = configure(hostRoot);
        boolean criVerified = verify(hostRoot, configured);
        Map<String, String> facts = new LinkedHashMap<>();
        facts.put("runtime", runtime.runtime.name());
        facts.put("config", runtime.configPath());
        facts.put("binary", runtime.runtimes().binary());
        facts.put("cri-verified", String.valueOf(criVerified));
        readiness.markReady(ReadinessFiles.TOOLKIT, facts);
        toolkitFacts = facts;
        applied = driver;
        ready = true;
        log.info(
                "ready",
                "file",
                readiness.file(ReadinessFiles.TOOLKIT),
                "cri-verified",
                criVerified,
                // repeated here: containerd writes the pod's log, and a line written while it
                // restarts (event=runtime-reloaded) can be lost from kubectl logs
                "runtime-reloaded",
                reloads > reloadsBefore ? lastReload : "none");
    }

    /**
     * The control device nodes the loaded driver calls for and the host lacks (a host driver loaded
     * without {@code nvidia-modprobe}): without {@code /dev/nvidia-uvm} CUDA fails. A node that
     * cannot be made is logged; the runtime is still usable for GPUs whose nodes exist.
     */
    private void controlNodes(Path hostRoot) {
        try {
            List<String> created = new ControlNodeSetup(hostRoot, DeviceNodeMaker.MKNOD).ensure();
            if (!created.isEmpty()) {
                log.info("control-device-nodes-created", "nodes", String.join(",", created));
            }
        } catch (IOException | RuntimeException e) {
            log.warn("control-device-nodes-failed", "error", e.getMessage());
        }
    }

    /**
     * Installs the runtime for the driver at {@code driverRoot} (only files whose bytes differ are
     * written) and verifies the install.
     */
    private void install(Path hostRoot, String driverRoot) throws ConfigException, IOException {
        ToolkitInstaller installer =
                gpu.source().simulated()
                        ? new ToolkitInstaller(
                                hostRoot,
                                runtime.runtimes(),
                                true,
                                daemon.toolkitSourceDir,
                                daemon.shimLog,
                                simulatedRuntime(driverRoot),
                                log)
                        : new ToolkitInstaller(
                                hostRoot,
                                runtime.runtimes(),
                                daemon.toolkitSourceDir,
                                driverRoot,
                                runtime.modes());
        long started = System.nanoTime();
        List<String> installed = installer.install();
        log.info(
                "toolkit-installed",
                "dir",
                runtime.installDir,
                "written",
                installed.size(),
                "mode",
                gpu.source().simulated() ? "simulated-runtime" : "nvidia-container-runtime",
                "driver-root",
                driverRoot,
                "ms",
                (System.nanoTime() - started) / 1_000_000);
        installer.verify();
    }

    /**
     * One look at driver-ready after set-up. Gone: remove toolkit-ready and nothing else (the
     * runtime config stays, containerd is not reloaded: the driver is being replaced). Back or
     * other facts, or toolkit-ready removed while ready (the clean-up of a toolkit pod this one
     * replaced): CDI specs for the driver now, the runtime reinstalled when the driver root moved,
     * the config applied again (reloaded only if that changed a file), toolkit-ready again. A
     * failure is logged once and retried at the next look.
     */
    private void followDriver(Path hostRoot, ReadinessFiles readiness) {
        Optional<DriverFacts> now = readiness.read(ReadinessFiles.DRIVER).map(DriverFacts::of);
        try {
            boolean toolkitReadyThere = readiness.read(ReadinessFiles.TOOLKIT).isPresent();
            switch (DriverFollow.next(applied, ready, toolkitReadyThere, now)) {
                case NOTHING -> {}
                case DRIVER_GONE -> {
                    readiness.clear(ReadinessFiles.TOOLKIT);
                    ready = false;
                    lastFollowError = null;
                    log.info(
                            "driver-gone",
                            "file",
                            readiness.file(ReadinessFiles.DRIVER),
                            "removed",
                            readiness.file(ReadinessFiles.TOOLKIT));
                }
                case APPLY -> {
                    DriverFacts driver = now.get();
                    boolean rootMoved = !driver.root().equals(applied.root());
                    if (runtime.cdi) {
                        writeCdiSpecs(hostRoot, driver);
                    }
                    if (rootMoved) {
                        install(hostRoot, driver.root());
                    }
                    configure(hostRoot);
                    readiness.markReady(ReadinessFiles.TOOLKIT, toolkitFacts);
                    log.info(
                            driver.equals(applied) && ready
                                    ? "toolkit-ready-restored"
                                    : "driver-changed",
                            "old-version",
                            Objects.toString(applied.version(), "unset"),
                            "new-version",
                            Objects.toString(driver.version(), "unset"),
                            "old-root",
                            applied.root(),
                            "new-root",
                            driver.root(),
                            "file",
                            readiness.file(ReadinessFiles.TOOLKIT));
                    applied = driver;
                    ready = true;
                    lastFollowError = null;
                }
            }
        } catch (ConfigException | IOException | RuntimeException e) {
            if (ready) {
                // toolkit-ready must not stand for files made for another driver
                try {
                    readiness.clear(ReadinessFiles.TOOLKIT);
                    ready = false;
                } catch (RuntimeException clear) {
                    log.warn("readiness-clear-failed", "error", clear.getMessage());
                }
            }
            if (!Objects.equals(e.getMessage(), lastFollowError)) {
                lastFollowError = e.getMessage();
                log.error("driver-follow-failed", "error", e.getMessage());
            }
        }
    }

    /**
     * A new MIG layout published by the MIG manager: the CDI spec names MIG devices, so it is
     * rewritten for the new ones, then the layout is acknowledged ({@link
     * ReadinessFiles#MIG_LAYOUT_CDI}), which lets the MIG manager bring the GPU clients back.
     */
    private void followMigLayout(Path hostRoot, ReadinessFiles readiness) {
        Optional<Map<String, String>> layout = readiness.read(ReadinessFiles.MIG_LAYOUT);
        if (layout.isEmpty() || layout.get().equals(lastMigLayout) || !ready) {
            return;
        }
        try {
            if (runtime.cdi) {
                writeCdiSpecs(hostRoot, driverFacts(readiness));
            }
            readiness.markReady(ReadinessFiles.MIG_LAYOUT_CDI, layout.get());
            lastMigLayout = layout.get();
            log.info(
                    "mig-layout-followed",
                    "cdi",
                    runtime.cdi ? "rewritten" : "off",
                    "file",
                    readiness.file(ReadinessFiles.MIG_LAYOUT_CDI));
        } catch (ConfigException | RuntimeException e) {
            if (!Objects.equals(e.getMessage(), lastFollowError)) {
                lastFollowError = e.getMessage();
                log.error("mig-layout-follow-failed", "error", e.getMessage());
            }
        }
    }

    /**
     * Applies the config; reloads only when a file changed. Returns whether our runtime is
     * configured.
     */
    private boolean configure(Path hostRoot) throws ConfigException, IOException {
        ConfigApplier applier = runtime.applier(hostRoot, log);
        RuntimeConfigurer c = runtime.configurer(hostRoot, applier);
        ExternalValidator validator = runtime.externalValidator(hostRoot, log);
        ConfigApplier.Outcome o = applier.configure(c, validator);
        if (o.changed()) {
            reload(hostRoot);
        } else {
            log.info("config-unchanged", "runtime", c.name(), "files", String.join(",", c.files()));
        }
        if (!c.configured(applier.read(c))) {
            throw new ConfigException(
                    runtime.configPath() + ": the nvidia runtime is not there after writing");
        }
        return true;
    }

    private void resync(Path hostRoot, ReadinessFiles readiness)
            throws ConfigException, IOException {
        // the driver or the GPUs may have changed; while the driver is being replaced
        // (driver-ready gone) its files are not there to describe: the follow writes them after
        if (runtime.cdi && readiness.read(ReadinessFiles.DRIVER).isPresent()) {
            writeCdiSpecs(hostRoot, driverFacts(readiness));
        }
        configure(hostRoot);
    }

    private void reload(Path hostRoot) throws ConfigException, IOException {
        Reloader r =
                reloaderOverride.isPresent() ? reloaderOverride.get() : runtime.reloader(hostRoot);
        r.reload();
        reloads++;
        lastReload = r.describe();
        log.info("runtime-reloaded", "mode", lastReload);
    }

    /** Whether {@link #verify} asks the CRI plugin: containerd, restarted, not a template. */
    private boolean criChecked() {
        return runtime.runtime == RuntimeOptions.Runtime.containerd
                && runtime.restartMode() != RuntimeOptions.RestartMode.none
                && !runtime.configPath().endsWith(".tmpl");
    }

    private Path criSocket(Path hostRoot) {
        return hostRoot.resolve(runtime.socketPath().substring(1));
    }

    /**
     * containerd only: after a restart, the CRI plugin must list our handler with our BinaryName.
     */
    private boolean verify(Path hostRoot, boolean configured) throws ConfigException {
        Path socket = criSocket(hostRoot);
        if (!criChecked()) {
            log.info(
                    "cri-verify-skipped",
                    "reason",
                    "not containerd, restart mode none, or a k3s/RKE2 template");
            return false;
        }
        Instant deadline = Instant.now().plus(daemon.verifyTimeout);
        String last = "socket " + socket + " not there";
        while (Instant.now().isBefore(deadline)) {
            if (Files.exists(socket)) {
                try (CriClient cri = new CriClient(socket)) {
                    Optional<CriRuntimeConfig.Handler> h =
                            CriRuntimeConfig.handler(cri.status(), runtime.runtimes().name());
                    if (h.isPresent()
                            && h.get()
                                    .binaryName()
                                    .equals(Optional.of(runtime.runtimes().binary()))) {
                        log.info(
                                "cri-verified",
                                "handler",
                                runtime.runtimes().name(),
                                "binary",
                                h.get().binaryName().get());
                        return true;
                    }
                    last = "CRI handler " + runtime.runtimes().name() + " is " + h;
                } catch (IOException | RuntimeException e) {
                    last = e.getMessage();
                }
            }
            try {
                if (stop.await(VERIFY_POLL.toMillis(), TimeUnit.MILLISECONDS)) {
                    return false;
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        }
        throw new ConfigException(
                "containerd did not load the nvidia runtime within "
                        + Durations.format(daemon.verifyTimeout)
                        + ": "
                        + last);
    }

    /**
     * Writes the CDI specs for the GPUs and the driver files under the driver root (the driver
     * version driver-ready names, else the inventory's); a file is rewritten only when its text
     * changes.
     */
    private void writeCdiSpecs(Path hostRoot, DriverFacts facts) throws ConfigException {
        CdiSpecFiles files = new CdiSpecFiles(hostRoot, daemon.cdiSpec);
        String driverRoot = facts.root();
        try (GpuInventory inv = gpu.open()) {
            String version = facts.version() != null ? facts.version() : inv.node().driverVersion();
            DriverFiles driver = files.discover(driverRoot, version);
            String hook = runtime.installDir + "/" + CdiSpecGenerator.HOOK_BINARY;
            List<String> written =
                    files.write(files.render(inv.gpus(), driver, hook, disabledHooks()));
            wroteCdiSpec = true;
            if (!written.isEmpty()) {
                log.info(
                        "cdi-spec-written",
                        "files",
                        String.join(",", written),
                        "gpus",
                        inv.gpus().size(),
                        "driver-root",
                        driverRoot,
                        "driver-version",
                        version,
                        "libraries",
                        driver.libraries().size());
            }
        } catch (IOException | CdiException e) {
            throw new ConfigException(
                    daemon.cdiSpec + ": cannot write CDI spec: " + e.getMessage(), e);
        }
    }

    private void tearDown(Path hostRoot, ReadinessFiles readiness) {
        ready = false;
        try {
            readiness.clear(ReadinessFiles.TOOLKIT);
        } catch (RuntimeException e) {
            log.warn("readiness-clear-failed", "error", e.getMessage());
        }
        if (!touched) {
            log.info("stopped", "cleanup", "nothing to revert");
            return;
        }
        try {
            ConfigApplier applier = runtime.applier(hostRoot, log);
            RuntimeConfigurer c = runtime.configurer(hostRoot, applier);
            ConfigApplier.Outcome o = applier.cleanup(c, runtime.externalValidator(hostRoot, log));
            if (o.changed()) {
                reload(hostRoot);
            }
            if (wroteCdiSpec) {
                List<String> removed = new CdiSpecFiles(hostRoot, daemon.cdiSpec).remove();
                log.info("cdi-spec-removed", "files", String.join(",", removed));
            }
            log.info("stopped", "cleanup", o.changed() ? "reverted" : "nothing changed");
        } catch (ConfigException | IOException | RuntimeException e) {
            log.error("cleanup-failed", "error", e.getMessage());
        }
    }
}
