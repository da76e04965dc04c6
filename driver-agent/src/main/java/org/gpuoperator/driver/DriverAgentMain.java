package org.gpuoperator.driver;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.gpuoperator.driver.detect.HostDriverDetector;
import org.gpuoperator.driver.host.GpuHolders;
import org.gpuoperator.driver.host.HostCommands;
import org.gpuoperator.driver.host.HostRoot;
import org.gpuoperator.driver.host.NvidiaProcFs;
import org.gpuoperator.driver.host.ProcessHostCommands;
import org.gpuoperator.driver.install.DriverConfig;
import org.gpuoperator.driver.install.DriverInUseException;
import org.gpuoperator.driver.install.DriverInstaller;
import org.gpuoperator.driver.install.DriverPackages;
import org.gpuoperator.driver.install.DriverUnloader;
import org.gpuoperator.driver.install.DriverVerifier;
import org.gpuoperator.driver.install.KernelModuleType;
import org.gpuoperator.driver.install.ModulePlan;
import org.gpuoperator.driver.install.Persistenced;
import org.gpuoperator.driver.simulated.SimulatedHost;
import org.gpuoperator.node.agent.AgentCommand;
import org.gpuoperator.node.agent.AgentOptions;
import org.gpuoperator.node.agent.Durations;
import org.gpuoperator.node.agent.EventLog;
import org.gpuoperator.node.agent.HealthServer;
import org.gpuoperator.node.agent.ReadinessFiles;
import org.gpuoperator.node.inventory.GpuSourceOptions;
import org.gpuoperator.node.inventory.simulated.SimulatedProfile;
import org.gpuoperator.node.inventory.simulated.SimulatedProfiles;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/**
 * {@code driver-agent}: with no subcommand, the daemon that keeps a usable NVIDIA driver on this
 * node (or reports a pre-installed one); subcommands are one-shot admin actions.
 */
@Command(
        name = "driver-agent",
        description = "A usable NVIDIA driver on this node, or a clear reason why not.")
public final class DriverAgentMain implements Callable<Integer>, AgentCommand.Subcommands {

    @Override
    public List<Class<?>> subcommands() {
        return List.of(Detect.class, Status.class, Unload.class, BuildModules.class);
    }

    static final String COMPONENT = "driver-agent";
    static final String PERSISTENCED_PID_FILE =
            "/var/run/nvidia-persistenced/nvidia-persistenced.pid";
    static final String STATUS_FILE_NAME = ".driver-agent-status";

    @Mixin GpuSourceOptions gpu;
    @Mixin AgentOptions agent;

    @Option(
            names = "--driver-version",
            defaultValue = "${env:DRIVER_VERSION}",
            paramLabel = "VERSION",
            description =
                    "Driver version the package holds, e.g. 550.54.15 (simulated: the profile's). Env: DRIVER_VERSION.")
    String driverVersion;

    @Option(
            names = "--kernel-module-type",
            defaultValue = "${env:KERNEL_MODULE_TYPE:-auto}",
            paramLabel = "TYPE",
            description =
                    "auto, open or proprietary: build/load the modules from the package's kernel-open/"
                            + " or kernel/ sources (auto: kernel-open/ when present and the branch is"
                            + " 560 or later). Env: KERNEL_MODULE_TYPE.")
    String kernelModuleType;

    @Option(
            names = "--driver-install-root",
            defaultValue = "${env:DRIVER_INSTALL_ROOT}",
            paramLabel = "DIR",
            description =
                    "The driver's own root, exposed as the driver root (default /, the driver image; simulated: "
                            + "<host-root>"
                            + SimulatedHost.IMAGE_DIR
                            + "). Env: DRIVER_INSTALL_ROOT.")
    Path installRoot;

    @Option(
            names = "--driver-package",
            defaultValue = "${env:DRIVER_PACKAGE_DIR}",
            paramLabel = "DIR",
            description =
                    "Driver package with kernel/ sources and optional precompiled/<kernel>/ modules "
                            + "(default <install-root>/usr/src/nvidia-<version>). Env: DRIVER_PACKAGE_DIR.")
    Path packageDir;

    @Option(
            names = "--driver-root-dir",
            defaultValue = "${env:DRIVER_ROOT_DIR}",
            paramLabel = "DIR",
            description =
                    "Where to expose the driver root (default "
                            + DriverConfig.DRIVER_ROOT
                            + "; simulated: "
                            + "<host-root>"
                            + DriverConfig.DRIVER_ROOT
                            + "). Env: DRIVER_ROOT_DIR.")
    Path driverRootDir;

    @Option(
            names = "--persistenced-pid-file",
            defaultValue = "${env:PERSISTENCED_PID_FILE}",
            paramLabel = "FILE",
            description =
                    "nvidia-persistenced's pid file (default "
                            + PERSISTENCED_PID_FILE
                            + "; simulated: under "
                            + "the host root). Env: PERSISTENCED_PID_FILE.")
    Path persistencedPidFile;

    @Option(
            names = "--peermem",
            defaultValue = "${env:LOAD_PEERMEM:-false}",
            paramLabel = "BOOL",
            arity = "0..1",
            description = "Also load nvidia-peermem (GPUDirect RDMA). Env: LOAD_PEERMEM.")
    boolean peermem;

    @Option(
            names = "--expected-gpus",
            defaultValue = "${env:EXPECTED_GPUS:-0}",
            paramLabel = "N",
            description =
                    "GPUs that must show up in NVML; 0 (default) = as many as the kernel module bound. Env: EXPECTED_GPUS.")
    int expectedGpus;

    @Option(
            names = "--build-jobs",
            defaultValue = "0",
            paramLabel = "N",
            description = "Parallel jobs for a module build (default: the CPU count).")
    int buildJobs;

    @Option(
            names = "--check-interval",
            defaultValue = "${env:CHECK_INTERVAL:-30s}",
            paramLabel = "DURATION",
            converter = Durations.Converter.class,
            description =
                    "How often a ready driver is checked again (e.g. 30s, 5m; default ${DEFAULT-VALUE}). "
                            + "Env: CHECK_INTERVAL.")
    Duration checkInterval;

    @Option(
            names = "--max-retry-delay",
            defaultValue = "${env:MAX_RETRY_DELAY:-5m}",
            paramLabel = "DURATION",
            converter = Durations.Converter.class,
            description =
                    "Longest wait between retries while not ready; delays double from 2s (e.g. 30s, 5m; default "
                            + "${DEFAULT-VALUE}). Env: MAX_RETRY_DELAY.")
    Duration maxRetryDelay;

    @Option(
            names = "--unload-on-stop",
            defaultValue = "${env:UNLOAD_ON_STOP:-false}",
            paramLabel = "BOOL",
            arity = "0..1",
            description =
                    "Unload the modules when the agent stops, if no process uses the GPUs (default false: a "
                            + "restart of the agent leaves a working driver alone). Env: UNLOAD_ON_STOP.")
    boolean unloadOnStop;

    @Option(
            names = "--status-file",
            defaultValue = "${env:DRIVER_STATUS_FILE}",
            paramLabel = "FILE",
            description =
                    "Where the current status is written (default <validations-dir>/"
                            + STATUS_FILE_NAME
                            + "). Env: DRIVER_STATUS_FILE.")
    Path statusFile;

    /** Everything the daemon and the subcommands use, wired once from the options. */
    public record Wiring(
            DriverConfig config,
            HostCommands commands,
            DriverAgent agent,
            DriverUnloader unloader,
            DriverInstaller installer,
            HostDriverDetector detector,
            ReadinessFiles readiness,
            Path statusFile,
            EventLog log) {}

    /** The daemon's wiring: it needs the driver version. */
    Wiring wire() {
        return wire(new EventLog(COMPONENT), true);
    }

    /**
     * @param needVersion false for subcommands that install nothing (detect, unload)
     */
    Wiring wire(EventLog log, boolean needVersion) {
        HostRoot host = new HostRoot(gpu.hostRoot());
        boolean simulated = gpu.source().simulated();
        SimulatedProfile profile =
                simulated
                        ? SimulatedProfiles.withUserFile(gpu.simulatedProfiles())
                                .get(gpu.source().profile())
                        : null;
        String version = driverVersion;
        if ((version == null || version.isBlank()) && simulated) {
            version = profile.driverVersion();
        }
        Path install =
                installRoot != null
                        ? installRoot
                        : simulated ? host.path(SimulatedHost.IMAGE_DIR) : Path.of("/");
        if (version == null || version.isBlank()) {
            // none set: the package's name or the image's only package; else the daemon reports
            // "no driver version" as its status and retries (no crash loop), after a host driver
            // had its chance
            version =
                    versionFromPackage(packageDir)
                            .or(() -> DriverPackages.onlyVersion(install))
                            .orElse(needVersion ? "" : "unknown");
        }
        Path pkg = packageDir != null ? packageDir : install.resolve("usr/src/nvidia-" + version);
        Path rootDir =
                driverRootDir != null
                        ? driverRootDir
                        : simulated
                                ? host.path(DriverConfig.DRIVER_ROOT)
                                : Path.of(DriverConfig.DRIVER_ROOT);
        Path pidFile =
                persistencedPidFile != null
                        ? persistencedPidFile
                        : simulated
                                ? host.path(PERSISTENCED_PID_FILE)
                                : Path.of(PERSISTENCED_PID_FILE);
        int jobs = buildJobs > 0 ? buildJobs : Runtime.getRuntime().availableProcessors();
        DriverConfig config =
                new DriverConfig(
                        host,
                        install,
                        pkg,
                        version,
                        rootDir,
                        pidFile,
                        peermem,
                        expectedGpus,
                        jobs,
                        KernelModuleType.parse(kernelModuleType));

        HostCommands commands;
        if (simulated) {
            SimulatedHost sim = new SimulatedHost(config, profile.count());
            sim.prepare();
            commands = sim;
        } else {
            commands = new ProcessHostCommands();
        }
        NvidiaProcFs proc = new NvidiaProcFs(host);
        Persistenced persistenced = new Persistenced(commands, host, pidFile);
        DriverUnloader unloader =
                new DriverUnloader(commands, proc, new GpuHolders(host), persistenced);
        HostDriverDetector detector = new HostDriverDetector(host, commands, rootDir);
        DriverInstaller installer =
                new DriverInstaller(config, commands, proc, persistenced, unloader, log);
        DriverVerifier verifier = new DriverVerifier(gpu::open);
        ReadinessFiles readiness = agent.readiness();
        DriverAgent driverAgent =
                new DriverAgent(config, detector, installer, verifier, readiness, log);
        Path status =
                statusFile != null ? statusFile : readiness.directory().resolve(STATUS_FILE_NAME);
        return new Wiring(
                config,
                commands,
                driverAgent,
                unloader,
                installer,
                detector,
                readiness,
                status,
                log);
    }

    /**
     * {@code nvidia-550.54.15} as the package directory's name gives the version when none is set.
     */
    static Optional<String> versionFromPackage(Path packageDir) {
        String name = packageDir == null ? "" : String.valueOf(packageDir.getFileName());
        return name.matches("nvidia-\\d+(\\.\\d+)+")
                ? Optional.of(name.substring("nvidia-".length()))
                : Optional.empty();
    }

    /** The daemon. */
    @Override
    public Integer call() throws Exception {
        Wiring w = wire();
        DriverDaemon daemon =
                new DriverDaemon(
                        w.agent(),
                        w.readiness(),
                        w.statusFile(),
                        checkInterval,
                        Duration.ofSeconds(2),
                        maxRetryDelay,
                        w.log(),
                        Clock.systemUTC());
        HealthServer health = HealthServer.start(agent.healthAddress(), daemon::ready);
        w.log()
                .info(
                        "started",
                        "source",
                        gpu.source(),
                        "host-root",
                        w.config().host(),
                        "driver-version",
                        w.config().driverVersion(),
                        "health-port",
                        health.port());
        Thread hook =
                new Thread(
                        () -> {
                            try {
                                daemon.stop(Duration.ofSeconds(20));
                                daemon.markStopped();
                                if (unloadOnStop) {
                                    unloadOnce(w, "unload the driver on stop");
                                }
                                health.close();
                                w.log().info("stopped");
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                            }
                        },
                        "driver-agent-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
        daemon.run(); // returns once the shutdown hook stops it; the hook finishes the cleanup
        return 0;
    }

    static boolean unloadOnce(Wiring w, String why) {
        try {
            List<String> unloaded = w.unloader().unload(why);
            w.log().info("driver-unloaded", "modules", String.join(",", unloaded));
            return true;
        } catch (DriverInUseException e) {
            w.log()
                    .warn(
                            "driver-in-use",
                            "holders",
                            GpuHolders.describe(e.holders()),
                            "detail",
                            e.getMessage());
            return false;
        } catch (RuntimeException e) {
            w.log().error("unload-failed", "detail", e.getMessage());
            return false;
        }
    }

    @Command(
            name = "detect",
            description =
                    "Report whether a pre-installed host driver is present and working. Exit 0 if it is, 1 if not.")
    static final class Detect implements Callable<Integer> {
        @ParentCommand DriverAgentMain parent;
        @Spec CommandSpec spec;

        @Override
        public Integer call() {
            Wiring w = parent.wire(new EventLog(COMPONENT), false);
            HostDriverDetector.HostDriver d = w.detector().detect();
            java.io.PrintWriter out = spec.commandLine().getOut();
            if (d.present()) {
                out.println(
                        "pre-installed host driver "
                                + d.version()
                                + " ("
                                + d.nvidiaSmi()
                                + "), "
                                + d.kernelGpus()
                                + " GPU(s)");
                return 0;
            }
            out.println("no usable host driver: " + d.reason());
            return 1;
        }
    }

    @Command(
            name = "status",
            description =
                    "Print the running agent's status file. Exit 0 when the driver is ready, 1 otherwise; "
                            + "usable as an exec probe, whose output then shows in the pod's events.")
    static final class Status implements Callable<Integer> {
        @ParentCommand DriverAgentMain parent;
        @Spec CommandSpec spec;

        @Override
        public Integer call() throws IOException {
            Path file =
                    parent.statusFile != null
                            ? parent.statusFile
                            : parent.agent.readiness().directory().resolve(STATUS_FILE_NAME);
            java.io.PrintWriter out = spec.commandLine().getOut();
            if (!Files.isRegularFile(file)) {
                out.println(
                        "STATE=unknown\nMESSAGE=no status file "
                                + file
                                + ": is driver-agent running?");
                return 1;
            }
            String text = Files.readString(file);
            out.print(text);
            out.flush();
            return text.startsWith("STATE=ready") ? 0 : 1;
        }
    }

    @Command(
            name = "unload",
            description =
                    "Remove driver-ready and unload the nvidia modules if no process uses the GPUs; otherwise "
                            + "list the processes that hold them. Exit 0 when unloaded, 1 when in use or failed.")
    static final class Unload implements Callable<Integer> {
        @ParentCommand DriverAgentMain parent;

        @Override
        public Integer call() {
            Wiring w = parent.wire(new EventLog(COMPONENT), false);
            w.readiness().clear(ReadinessFiles.DRIVER);
            return unloadOnce(w, "unload the driver") ? 0 : 1;
        }
    }

    @Command(
            name = "build-modules",
            description =
                    "Build the kernel modules for an installed kernel that need not be the running one "
                            + "(a newer kernel before the reboot), with its headers, and check that nvidia.ko's "
                            + "vermagic names it. Loads nothing. Exit 0 when built (or already built), 1 if not.")
    static final class BuildModules implements Callable<Integer> {
        @ParentCommand DriverAgentMain parent;
        @Spec CommandSpec spec;

        @Option(
                names = "--kernel",
                required = true,
                paramLabel = "RELEASE",
                description =
                        "The kernel release to build for, as its uname -r will say (e.g. 6.1.0-57-amd64).")
        String kernel;

        @Option(
                names = "--sources",
                paramLabel = "DIR",
                description =
                        "Module sources with their Makefile (default: the driver package's kernel/ or "
                                + "kernel-open/, by --kernel-module-type).")
        Path sources;

        @Option(
                names = "--headers",
                paramLabel = "DIR",
                description =
                        "The kernel's headers, one tree (default: <host-root>/usr/src/linux-headers-<kernel> or "
                                + "/lib/modules/<kernel>/build, with /lib/modules/<kernel>/source when the "
                                + "distribution splits them).")
        Path headers;

        @Override
        public Integer call() throws InterruptedException {
            if (kernel.isBlank() || kernel.contains("/") || kernel.contains(" ")) {
                throw new CommandLine.ParameterException(
                        spec.commandLine(), "--kernel: not a kernel release: '" + kernel + "'");
            }
            Wiring w = parent.wire(new EventLog(COMPONENT), false);
            ModulePlan plan =
                    w.installer()
                            .buildModules(
                                    kernel,
                                    Optional.ofNullable(sources),
                                    Optional.ofNullable(headers));
            Path dir =
                    switch (plan) {
                        case ModulePlan.Build b -> b.sourceDir();
                        case ModulePlan.ReuseBuilt r -> r.dir();
                        default -> throw new IllegalStateException("unexpected plan " + plan);
                    };
            spec.commandLine()
                    .getOut()
                    .println(
                            (plan instanceof ModulePlan.Build ? "built" : "already built")
                                    + " for kernel "
                                    + kernel
                                    + " in "
                                    + dir);
            return 0;
        }
    }

    /** The command line as main runs it (tests set out/err on it). */
    static CommandLine commandLine() {
        return AgentCommand.commandLine(new DriverAgentMain());
    }

    public static void main(String[] args) {
        AgentCommand.exit(new DriverAgentMain(), args);
    }
}
