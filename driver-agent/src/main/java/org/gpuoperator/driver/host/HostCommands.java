package org.gpuoperator.driver.host;

import java.time.Duration;
import java.util.List;

/**
 * Every command the agent runs on the node goes through here: {@code uname}, {@code modinfo},
 * {@code make}, {@code insmod}, {@code rmmod}, {@code mknod}, {@code mount}, {@code
 * nvidia-persistenced}, {@code nvidia-smi}. One real implementation ({@link ProcessHostCommands}),
 * one that emulates a node for simulated GPUs, and a recording fake in the tests: the driver logic
 * never knows which one it talks to.
 */
public interface HostCommands {

    /**
     * Runs {@code argv} (no shell) and waits at most {@code timeout}; a command still running then
     * is killed. Never throws for a failing command: the result says what happened.
     */
    CommandResult run(List<String> argv, Duration timeout);

    /**
     * Like {@link #run}, but a non-zero exit or a timeout becomes a {@link CommandFailedException}.
     */
    default CommandResult runChecked(List<String> argv, Duration timeout) {
        CommandResult result = run(argv, timeout);
        if (!result.succeeded()) {
            throw new CommandFailedException(result);
        }
        return result;
    }
}
