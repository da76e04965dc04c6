package org.gpuoperator.driver.install;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.gpuoperator.driver.host.CommandFailedException;
import org.gpuoperator.driver.host.CommandResult;
import org.gpuoperator.driver.host.GpuHolders;
import org.gpuoperator.driver.host.HostCommands;
import org.gpuoperator.driver.host.LoadedModules;
import org.gpuoperator.driver.host.NvidiaProcFs;

/**
 * Unloads the nvidia modules, but only when no process uses the GPUs: otherwise it reports who
 * holds them and leaves everything loaded (the caller retries later, it never crash-loops).
 */
public final class DriverUnloader {

    static final Duration RMMOD_TIMEOUT = Duration.ofMinutes(1);

    private final HostCommands commands;
    private final NvidiaProcFs proc;
    private final GpuHolders holders;
    private final Persistenced persistenced;

    public DriverUnloader(
            HostCommands commands,
            NvidiaProcFs proc,
            GpuHolders holders,
            Persistenced persistenced) {
        this.commands = commands;
        this.proc = proc;
        this.holders = holders;
        this.persistenced = persistenced;
    }

    /** The processes that hold the GPUs, leaving out our own persistence daemon. */
    public List<GpuHolders.Holder> holders() {
        Set<Long> ours = new HashSet<>();
        persistenced.runningPid().ifPresent(ours::add);
        return holders.scan(ours);
    }

    /**
     * Unloads every loaded nvidia module, dependents first.
     *
     * @return the modules unloaded, in order
     * @throws DriverInUseException when processes hold the GPUs, or the kernel refuses because a
     *     module is in use
     */
    public List<String> unload(String why) {
        List<GpuHolders.Holder> users = holders();
        if (!users.isEmpty()) {
            throw new DriverInUseException(why, users, "");
        }
        persistenced.stop();
        LoadedModules loaded = proc.loadedModules();
        List<String> unloaded = new ArrayList<>();
        for (String module : KernelModules.unloadOrder()) {
            if (!loaded.isLoaded(module)) {
                continue;
            }
            CommandResult r =
                    commands.run(List.of("rmmod", LoadedModules.kernelName(module)), RMMOD_TIMEOUT);
            if (!r.succeeded()) {
                String err = String.join(" | ", r.lastErrorLines(3));
                if (err.contains("in use") || err.contains("Resource temporarily unavailable")) {
                    throw new DriverInUseException(why, holders(), r.commandLine() + ": " + err);
                }
                throw new DriverStepException(
                        DriverStepException.Step.UNLOAD,
                        "cannot " + why + ": " + new CommandFailedException(r).getMessage());
            }
            unloaded.add(module);
        }
        return unloaded;
    }
}
