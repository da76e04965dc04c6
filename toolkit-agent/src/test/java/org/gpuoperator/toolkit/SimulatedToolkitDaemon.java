package org.gpuoperator.toolkit;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.gpuoperator.node.agent.EventLog;
import org.gpuoperator.toolkit.reload.Reloader;
import picocli.CommandLine;

/**
 * A toolkit daemon as its command line builds it, on a simulated {@code l4-x2} node under a
 * temporary host root, with CDI on, containerd without a restart (a reloader that counts) and its
 * log kept in memory; no shutdown hook (the test stops it).
 */
final class SimulatedToolkitDaemon {

    final AtomicInteger reloads = new AtomicInteger();
    final ByteArrayOutputStream logs = new ByteArrayOutputStream();
    final ToolkitDaemon daemon;

    /**
     * @param more further command-line arguments
     */
    SimulatedToolkitDaemon(Path host, Path validations, String resyncInterval, String... more) {
        ToolkitAgentMain main = new ToolkitAgentMain();
        java.util.List<String> args =
                new java.util.ArrayList<>(
                        java.util.List.of(
                                "--host-root",
                                host.toString(),
                                "--gpu-source",
                                "simulated:l4-x2",
                                "--node-name",
                                "n1",
                                "--validations-dir",
                                validations.toString(),
                                "--health-address",
                                "127.0.0.1:0",
                                "--cdi-enabled",
                                // CDI on as the operator sets it
                                "--cdi-default-kind",
                                "management.nvidia.com/gpu",
                                "--containerd-executable",
                                "/no/such/containerd",
                                "--skip-containerd-validation",
                                "--resync-interval",
                                resyncInterval,
                                "--restart-mode",
                                "none"));
        args.addAll(java.util.List.of(more));
        new CommandLine(main).parseArgs(args.toArray(String[]::new));
        Reloader counting =
                new Reloader() {
                    @Override
                    public void reload() {
                        reloads.incrementAndGet();
                    }

                    @Override
                    public String describe() {
                        return "counting";
                    }
                };
        daemon =
                new ToolkitDaemon(
                        main.gpu,
                        main.agent,
                        main.runtime,
                        main.daemon,
                        new EventLog("toolkit-agent", new PrintStream(logs, true)),
                        Optional.of(counting),
                        false);
    }
}
