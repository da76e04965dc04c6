package org.gpuoperator.toolkit;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.gpuoperator.node.agent.AgentCommand;
import org.gpuoperator.node.agent.AgentOptions;
import org.gpuoperator.node.agent.Durations;
import org.gpuoperator.node.agent.EventLog;
import org.gpuoperator.node.inventory.GpuSourceOptions;
import org.gpuoperator.toolkit.apply.ConfigApplier;
import org.gpuoperator.toolkit.apply.RuntimeConfigurer;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * Entry point of {@code toolkit-agent}. Without a subcommand it runs the daemon: wait for {@code
 * driver-ready}, install the runtime binaries, register the {@code nvidia} runtime with the
 * container runtime, verify, write {@code toolkit-ready}, keep it so, and revert everything on
 * SIGTERM.
 */
@Command(
        name = "toolkit-agent",
        description = "Makes the container runtime know the nvidia runtime, and reverts cleanly.")
public final class ToolkitAgentMain implements Callable<Integer>, AgentCommand.Subcommands {

    @Override
    public List<Class<?>> subcommands() {
        return List.of(
                Configure.class, Cleanup.class, org.gpuoperator.toolkit.cdi.CdiCommand.class);
    }

    @Mixin GpuSourceOptions gpu;

    @Mixin AgentOptions agent;

    @Mixin RuntimeOptions runtime;

    @Mixin DaemonOptions daemon;

    @Spec CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        return new ToolkitDaemon(gpu, agent, runtime, daemon, new EventLog("toolkit-agent")).run();
    }

    /** Daemon-only settings. */
    public static class DaemonOptions {
        @Option(
                names = "--toolkit-source-dir",
                defaultValue =
                        "${env:TOOLKIT_SOURCE_DIR:-"
                                + org.gpuoperator.toolkit.install.NvidiaToolkitFiles.SOURCE_DIR
                                + "}",
                paramLabel = "DIR",
                description =
                        "Where the image keeps the NVIDIA container runtime to install (real GPUs; default ${DEFAULT-VALUE}).")
        java.nio.file.Path toolkitSourceDir;

        @Option(
                names = "--shim-log",
                defaultValue = "${env:SHIM_LOG:-/var/log/nvidia-container-runtime-shim.log}",
                paramLabel = "FILE",
                description = "Simulated GPUs: host file the pass-through shim logs its calls to.")
        String shimLog;

        @Option(
                names = "--cdi-spec",
                defaultValue = "${env:CDI_SPEC:-/var/run/cdi/nvidia.yaml}",
                paramLabel = "FILE",
                description =
                        "Host path of the CDI spec (kind nvidia.com/gpu) written when --cdi-enabled; "
                                + "management.nvidia.com-gpu.yaml goes beside it (default ${DEFAULT-VALUE}). "
                                + "Env: CDI_SPEC.")
        String cdiSpec;

        @Option(
                names = "--cdi-disable-hooks",
                defaultValue = "${env:CDI_DISABLE_HOOKS:-}",
                split = ",",
                paramLabel = "HOOK",
                description =
                        "Hooks to leave out of the CDI specs, as nvidia-ctk cdi generate --disable-hooks:"
                                + " create-symlinks, enable-cuda-compat, update-ldcache,"
                                + " disable-device-node-modification, or all (default none). Env:"
                                + " CDI_DISABLE_HOOKS.")
        List<String> cdiDisableHooks;

        @Option(
                names = "--driver-ready-timeout",
                defaultValue = "${env:DRIVER_READY_TIMEOUT:-0s}",
                paramLabel = "DURATION",
                converter = Durations.Converter.class,
                description =
                        "How long to wait for driver-ready (e.g. 30s, 5m; 0 = forever, the default). "
                                + "Env: DRIVER_READY_TIMEOUT.")
        Duration driverReadyTimeout;

        @Option(
                names = "--resync-interval",
                defaultValue = "${env:RESYNC_INTERVAL:-60s}",
                paramLabel = "DURATION",
                converter = Durations.Converter.class,
                description =
                        "How often to check the config is still right (another tool may rewrite it) (e.g. 30s, "
                                + "5m; 0 = never; default ${DEFAULT-VALUE}). Env: RESYNC_INTERVAL.")
        Duration resyncInterval;

        @Option(
                names = "--verify-timeout",
                defaultValue = "${env:VERIFY_TIMEOUT:-60s}",
                paramLabel = "DURATION",
                converter = Durations.Converter.class,
                description =
                        "How long to wait for the runtime to show the nvidia handler over CRI after a restart "
                                + "(e.g. 30s, 5m; default ${DEFAULT-VALUE}). Env: VERIFY_TIMEOUT.")
        Duration verifyTimeout;
    }

    /**
     * {@code toolkit-agent configure}: add the nvidia runtime once, or preview the result with
     * --dry-run.
     */
    @Command(
            name = "configure",
            description =
                    "Adds the nvidia runtime to the runtime's config (backup, validation, atomic write), or with "
                            + "--dry-run prints the file that would be written and writes nothing.")
    static final class Configure implements Callable<Integer> {
        @Mixin GpuSourceOptions gpu;

        @Mixin RuntimeOptions runtime;

        @Option(
                names = "--dry-run",
                description =
                        "Print the would-be file(s) to stdout; write nothing, restart nothing.")
        boolean dryRun;

        @Spec CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() throws Exception {
            EventLog log = new EventLog("toolkit-agent", dryRun ? System.err : System.out);
            ConfigApplier applier = runtime.applier(gpu.hostRoot(), log);
            RuntimeConfigurer c = runtime.configurer(gpu.hostRoot(), applier);
            if (dryRun) {
                Map<String, Optional<String>> files =
                        applier.preview(c, runtime.externalValidator(gpu.hostRoot(), log));
                PrintWriter out = spec.commandLine().getOut();
                boolean many = files.values().stream().filter(Optional::isPresent).count() > 1;
                for (Map.Entry<String, Optional<String>> f : files.entrySet()) {
                    if (f.getValue().isEmpty()) {
                        continue;
                    }
                    if (many) {
                        out.println("# ==> " + f.getKey() + " <==");
                    }
                    out.print(f.getValue().get());
                }
                out.flush();
                return 0;
            }
            var reloader = runtime.reloader(gpu.hostRoot());
            try {
                reloader.preflight(); // before writing: the runtime must be reloadable
            } catch (java.io.IOException e) {
                throw new org.gpuoperator.toolkit.ConfigException(e.getMessage(), e);
            }
            ConfigApplier.Outcome o =
                    applier.configure(c, runtime.externalValidator(gpu.hostRoot(), log));
            if (o.changed()) {
                reloader.reload();
                log.info("runtime-reloaded", "mode", reloader.describe());
            } else {
                log.info("config-unchanged", "runtime", c.name());
            }
            return 0;
        }
    }

    /** {@code toolkit-agent cleanup}: what the daemon does on SIGTERM. */
    @Command(
            name = "cleanup",
            description =
                    "Removes the nvidia runtime: restores the original bytes when nobody changed the file since we wrote "
                            + "it, otherwise removes only our entries and restores the previous default; then reloads once.")
    static final class Cleanup implements Callable<Integer> {
        @Mixin GpuSourceOptions gpu;

        @Mixin AgentOptions agent;

        @Mixin RuntimeOptions runtime;

        @Override
        public Integer call() throws Exception {
            EventLog log = new EventLog("toolkit-agent");
            agent.readiness().clear(org.gpuoperator.node.agent.ReadinessFiles.TOOLKIT);
            ConfigApplier applier = runtime.applier(gpu.hostRoot(), log);
            RuntimeConfigurer c = runtime.configurer(gpu.hostRoot(), applier);
            ConfigApplier.Outcome o =
                    applier.cleanup(c, runtime.externalValidator(gpu.hostRoot(), log));
            if (o.changed()) {
                var reloader = runtime.reloader(gpu.hostRoot());
                reloader.reload();
                log.info("runtime-reloaded", "mode", reloader.describe());
            }
            return 0;
        }
    }

    /** The command line as main runs it (tests set out/err on it). */
    public static CommandLine commandLine() {
        return AgentCommand.commandLine(new ToolkitAgentMain());
    }

    public static void main(String[] args) {
        AgentCommand.exit(new ToolkitAgentMain(), args);
    }
}
