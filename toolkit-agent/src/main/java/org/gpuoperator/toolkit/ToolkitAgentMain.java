package org.gpuoperator.toolkit;

import org.gpuoperator.node.agent.VersionProvider;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** Entry point of `toolkit-agent`: Makes the container runtime know the nvidia runtime, and reverts cleanly. */
@Command(name = "toolkit-agent", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = "Makes the container runtime know the nvidia runtime, and reverts cleanly.")
public final class ToolkitAgentMain implements Runnable {

    @Override
    public void run() {
        new CommandLine(this).usage(System.out);
    }

    public static void main(String[] args) {
        System.exit(new CommandLine(new ToolkitAgentMain()).execute(args));
    }
}
