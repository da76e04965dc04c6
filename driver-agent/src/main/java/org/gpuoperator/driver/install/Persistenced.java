package org.gpuoperator.driver.install;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.OptionalLong;
import org.gpuoperator.driver.host.HostCommands;
import org.gpuoperator.driver.host.HostRoot;

/**
 * nvidia-persistenced keeps the GPUs initialised between clients (no multi-second start per CUDA
 * context). It daemonizes and writes its pid file; "running" means that pid is alive in the host's
 * /proc (the pod runs with hostPID, so the numbers agree).
 */
public final class Persistenced {

    static final Duration START_TIMEOUT = Duration.ofMinutes(1);
    static final Duration PID_FILE_WAIT = Duration.ofSeconds(5);

    private final HostCommands commands;
    private final HostRoot host;
    private final Path pidFile;

    public Persistenced(HostCommands commands, HostRoot host, Path pidFile) {
        this.commands = commands;
        this.host = host;
        this.pidFile = pidFile;
    }

    public OptionalLong runningPid() {
        try {
            long pid = Long.parseLong(Files.readString(pidFile).trim());
            return Files.isDirectory(host.path("/proc/" + pid))
                    ? OptionalLong.of(pid)
                    : OptionalLong.empty();
        } catch (IOException | NumberFormatException e) {
            return OptionalLong.empty();
        }
    }

    /** Starts it unless it runs; returns its pid. */
    public long ensureRunning() throws InterruptedException {
        OptionalLong running = runningPid();
        if (running.isPresent()) {
            return running.getAsLong();
        }
        try {
            commands.runChecked(
                    List.of("nvidia-persistenced", "--persistence-mode"), START_TIMEOUT);
        } catch (RuntimeException e) {
            throw new DriverStepException(
                    DriverStepException.Step.PERSISTENCED,
                    "cannot start nvidia-persistenced: " + e.getMessage(),
                    e);
        }
        // The daemon writes its pid file after the parent returns.
        long deadline = System.nanoTime() + PID_FILE_WAIT.toNanos();
        while (System.nanoTime() < deadline) {
            running = runningPid();
            if (running.isPresent()) {
                return running.getAsLong();
            }
            Thread.sleep(50);
        }
        throw new DriverStepException(
                DriverStepException.Step.PERSISTENCED,
                "nvidia-persistenced started but no live pid in "
                        + pidFile
                        + " after "
                        + PID_FILE_WAIT.toSeconds()
                        + " s; see its messages in the node's syslog");
    }

    /** Stops it when it runs (it holds the GPUs open, so it goes before an unload). */
    public void stop() {
        OptionalLong pid = runningPid();
        if (pid.isPresent()) {
            commands.run(
                    List.of("kill", "-TERM", Long.toString(pid.getAsLong())),
                    Duration.ofSeconds(10));
        }
    }
}
