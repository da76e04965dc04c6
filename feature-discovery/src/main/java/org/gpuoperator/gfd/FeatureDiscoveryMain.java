package org.gpuoperator.gfd;

import org.gpuoperator.node.agent.VersionProvider;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** Entry point of `feature-discovery`: Publishes GPU facts as nvidia.com/* node labels. */
@Command(name = "feature-discovery", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = "Publishes GPU facts as nvidia.com/* node labels.")
public final class FeatureDiscoveryMain implements Runnable {

    @Override
    public void run() {
        new CommandLine(this).usage(System.out);
    }

    public static void main(String[] args) {
        System.exit(new CommandLine(new FeatureDiscoveryMain()).execute(args));
    }
}
