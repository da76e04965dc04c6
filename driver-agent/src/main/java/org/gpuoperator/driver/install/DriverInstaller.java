package org.gpuoperator.driver.install;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.gpuoperator.driver.host.CommandFailedException;
import org.gpuoperator.driver.host.CommandResult;
import org.gpuoperator.driver.host.HostCommands;
import org.gpuoperator.driver.host.LoadedModules;
import org.gpuoperator.driver.host.NvidiaProcFs;
import org.gpuoperator.driver.install.DriverStepException.Step;
import org.gpuoperator.node.agent.EventLog;

/**
 * The container driver, step by step: resolve the running kernel, choose or build its modules,
 * unload an old driver when nothing uses it, load the modules in order, create the device nodes,
 * start the persistence daemon and expose the driver root. Idempotent: a second run on a ready node
 * only looks.
 */
public final class DriverInstaller {

    static final Duration QUICK = Duration.ofSeconds(30);
    static final Duration BUILD = Duration.ofMinutes(30);
    static final Duration INSMOD = Duration.ofMinutes(2);

    /** What was installed. */
    public record InstalledDriver(
            String kernel, String driverVersion, String moduleSource, int kernelGpus) {}

    private final DriverConfig config;
    private final HostCommands commands;
    private final NvidiaProcFs proc;
    private final Persistenced persistenced;
    private final DriverUnloader unloader;
    private final EventLog log;

    public DriverInstaller(
            DriverConfig config,
            HostCommands commands,
            NvidiaProcFs proc,
            Persistenced persistenced,
            DriverUnloader unloader,
            EventLog log) {
        this.config = config;
        this.commands = commands;
        this.proc = proc;
        this.persistenced = persistenced;
        this.unloader = unloader;
        this.log = log;
    }

    public InstalledDriver install() throws InterruptedException {
        String kernel = kernel();
        LoadedModules loaded = proc.loadedModules();
        Optional<String> loadedVersion =
                loaded.isLoaded(KernelModules.NVIDIA)
                        ? proc.loadedDriverVersion()
                        : Optional.empty();
        boolean otherVersion =
                loadedVersion.filter(v -> !v.equals(config.driverVersion())).isPresent();
        List<String> wanted = KernelModules.loadOrder(config.peermem());
        boolean allLoaded = wanted.stream().allMatch(loaded::isLoaded);

        boolean keep = !otherVersion && allLoaded;
        if (!keep) {
            DriverPackages.problem(config)
                    .ifPresent(
                            why -> {
                                throw new DriverStepException(Step.SELECT, why);
                            });
        }
        ModulePlan plan = keep ? new ModulePlan.AlreadyLoaded() : choosePlan(kernel);
        Path moduleDir = realize(plan, kernel, "running-kernel");
        if (otherVersion) {
            log.info(
                    "driver-upgrade",
                    "loaded",
                    loadedVersion.get(),
                    "wanted",
                    config.driverVersion());
            unloader.unload(
                    "replace driver " + loadedVersion.get() + " with " + config.driverVersion());
            loaded = proc.loadedModules();
        }
        if (moduleDir != null) {
            load(moduleDir, wanted, loaded, kernel);
        }
        createDeviceNodes();
        persistenced.ensureRunning();
        exposeDriverRoot();
        return new InstalledDriver(
                kernel, config.driverVersion(), plan.source(), proc.kernelGpus().size());
    }

    String kernel() {
        CommandResult r = step(Step.KERNEL, List.of("uname", "-r"), QUICK);
        String kernel = r.stdout().trim();
        if (kernel.isEmpty() || kernel.contains(" ") || kernel.contains("/")) {
            throw new DriverStepException(
                    Step.KERNEL, "uname -r gave no usable kernel release: '" + kernel + "'");
        }
        return kernel;
    }

    ModulePlan choosePlan(String kernel) {
        List<ModulePlan.Candidate> precompiled = new ArrayList<>();
        for (Path dir : config.precompiledDirs(kernel)) {
            precompiled.add(candidate(dir));
        }
        ModulePlan plan =
                ModulePlan.choose(
                        kernel,
                        precompiled,
                        candidate(config.moduleSources()),
                        findHeaders(kernel),
                        KernelHeaders.outputPaths(kernel));
        log.info("modules-selected", "kernel", kernel, "source", plan.source(), "from", from(plan));
        return plan;
    }

    /**
     * {@code driver-agent build-modules}: builds the modules for {@code kernel}, which need not be
     * the running one (a newer kernel installed before the reboot), with the same build step and
     * vermagic check as a pass. Modules already built there for that kernel are kept.
     *
     * @param sources the module sources (default: the package's, by the kernel module type)
     * @param headers one directory with the kernel's headers (default: found on the host)
     * @return the plan that was carried out: {@link ModulePlan.Build} or {@link
     *     ModulePlan.ReuseBuilt}
     */
    public ModulePlan buildModules(String kernel, Optional<Path> sources, Optional<Path> headers) {
        Path src = sources.orElseGet(config::moduleSources);
        Optional<KernelHeaders> found =
                headers.isPresent()
                        ? headers.filter(Files::isDirectory).map(KernelHeaders::of)
                        : findHeaders(kernel);
        List<String> looked =
                headers.map(h -> List.of(h.toString()))
                        .orElseGet(() -> KernelHeaders.outputPaths(kernel));
        ModulePlan plan = ModulePlan.choose(kernel, List.of(), candidate(src), found, looked);
        log.info("modules-selected", "kernel", kernel, "source", plan.source(), "from", from(plan));
        realize(plan, kernel, "target-kernel");
        return plan;
    }

    private Optional<KernelHeaders> findHeaders(String kernel) {
        return KernelHeaders.find(
                kernel,
                hostPath ->
                        Optional.of(config.host().resolve(hostPath)).filter(Files::isDirectory));
    }

    private static String from(ModulePlan plan) {
        return switch (plan) {
            case ModulePlan.Precompiled p -> p.dir().toString();
            case ModulePlan.ReuseBuilt r -> r.dir().toString();
            case ModulePlan.Build b ->
                    "build in "
                            + b.sourceDir()
                            + " with headers "
                            + b.headers().output()
                            + (b.headers().sources().equals(b.headers().output())
                                    ? ""
                                    : " and sources " + b.headers().sources());
            case ModulePlan.AlreadyLoaded a -> "loaded";
        };
    }

    /**
     * The kernel {@code dir/nvidia.ko} was built for, from its vermagic ("6.8.0-45-generic SMP
     * preempt ...").
     */
    ModulePlan.Candidate candidate(Path dir) {
        Path ko = dir.resolve(KernelModules.fileName(KernelModules.NVIDIA));
        if (!Files.isRegularFile(ko)) {
            return new ModulePlan.Candidate(dir, Optional.empty());
        }
        CommandResult r =
                step(Step.SELECT, List.of("modinfo", "-F", "vermagic", ko.toString()), QUICK);
        String vermagic = r.stdout().trim();
        String builtFor = vermagic.isEmpty() ? "" : vermagic.split("\\s+")[0];
        return new ModulePlan.Candidate(
                dir, builtFor.isEmpty() ? Optional.empty() : Optional.of(builtFor));
    }

    /**
     * The directory to load modules from, building them first when the plan says so; null when
     * loaded.
     */
    private Path realize(ModulePlan plan, String kernel, String kernelKey) {
        return switch (plan) {
            case ModulePlan.AlreadyLoaded a -> null;
            case ModulePlan.Precompiled p -> p.dir();
            case ModulePlan.ReuseBuilt r -> r.dir();
            case ModulePlan.Build b -> build(b, kernel, kernelKey);
        };
    }

    /**
     * @param kernelKey what the log calls {@code kernel}: {@code running-kernel} in a pass, {@code
     *     target-kernel} for {@code build-modules}
     */
    private Path build(ModulePlan.Build b, String kernel, String kernelKey) {
        Path src = b.sourceDir();
        if (!Files.isRegularFile(src.resolve("Makefile"))) {
            throw new DriverStepException(
                    Step.BUILD,
                    "driver package has no module sources: "
                            + src.resolve("Makefile")
                            + " is missing (check --driver-package, or build-modules --sources)");
        }
        b.staleKernel()
                .ifPresent(
                        stale -> {
                            log.warn(
                                    "kernel-mismatch",
                                    "modules-built-for",
                                    stale,
                                    kernelKey,
                                    kernel,
                                    "action",
                                    "rebuild");
                            step(Step.BUILD, ModuleBuild.cleanCommand(src, b.headers()), QUICK);
                        });
        log.info("modules-build-started", "kernel", kernel, "headers", b.headers().output());
        step(Step.BUILD, ModuleBuild.makeCommand(src, config.buildJobs(), b.headers()), BUILD);
        Path ko = src.resolve(KernelModules.fileName(KernelModules.NVIDIA));
        ModuleBuild.resultProblem(ko, candidate(src).builtFor(), kernel, b.headers())
                .ifPresent(
                        why -> {
                            throw new DriverStepException(Step.BUILD, why);
                        });
        log.info("modules-built", "kernel", kernel, "dir", src);
        return src;
    }

    private void load(Path dir, List<String> wanted, LoadedModules loaded, String kernel) {
        for (String module : wanted) {
            if (loaded.isLoaded(module)) {
                continue;
            }
            Path ko = dir.resolve(KernelModules.fileName(module));
            if (!Files.isRegularFile(ko)) {
                throw new DriverStepException(
                        Step.LOAD, "module file " + ko + " is missing for kernel " + kernel);
            }
            if (module.equals(KernelModules.PEERMEM)) {
                // nvidia-peermem needs the host's InfiniBand core (inbox or MOFED).
                step(
                        Step.LOAD,
                        List.of("modprobe", "-d", config.host().root().toString(), "ib_core"),
                        INSMOD);
            }
            step(Step.LOAD, List.of("insmod", ko.toString()), INSMOD);
            log.info("module-loaded", "module", module, "file", ko);
        }
    }

    private void createDeviceNodes() {
        List<DeviceNodes.DeviceNode> nodes =
                DeviceNodes.desired(
                        proc.kernelGpus(), proc.characterMajors(), proc.loadedModules());
        for (DeviceNodes.DeviceNode n : nodes) {
            Path path = config.host().path(n.hostPath());
            if (Files.exists(path, LinkOption.NOFOLLOW_LINKS)) {
                continue;
            }
            step(
                    Step.DEVICES,
                    List.of(
                            "mknod",
                            "-m",
                            "666",
                            path.toString(),
                            "c",
                            Integer.toString(n.major()),
                            Integer.toString(n.minor())),
                    QUICK);
        }
    }

    private void exposeDriverRoot() {
        Path target = config.driverRootDir();
        if (target.toAbsolutePath()
                .normalize()
                .equals(config.installRoot().toAbsolutePath().normalize())) {
            return;
        }
        if (commands.run(List.of("mountpoint", "-q", target.toString()), QUICK).succeeded()) {
            return;
        }
        try {
            Files.createDirectories(target);
        } catch (IOException e) {
            throw new DriverStepException(
                    Step.EXPOSE, "cannot create the driver root " + target + ": " + e, e);
        }
        step(
                Step.EXPOSE,
                List.of("mount", "--rbind", config.installRoot().toString(), target.toString()),
                QUICK);
        log.info("driver-root-exposed", "source", config.installRoot(), "target", target);
    }

    private CommandResult step(Step step, List<String> argv, Duration timeout) {
        try {
            return commands.runChecked(argv, timeout);
        } catch (CommandFailedException e) {
            throw new DriverStepException(step, e.getMessage(), e);
        }
    }
}
