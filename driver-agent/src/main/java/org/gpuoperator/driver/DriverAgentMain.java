package org.gpuoperator.driver;

import org.gpuoperator.node.agent.VersionProvider;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** Entry point of `driver-agent`: A usable NVIDIA driver on this node, or a clear reason why not. */
@Command(name = "driver-agent", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = "A usable NVIDIA driver on this node, or a clear reason why not.")
public final class DriverAgentMain implements Runnable {

    @Override
    public void run() {
        new CommandLine(this).usage(System.out);
    }

    public static void main(String[] args) {
        System.exit(new CommandLine(new DriverAgentMain()).execute(args));
    }
}
