package org.gpuoperator.exporter;

import org.gpuoperator.node.agent.VersionProvider;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** Entry point of `dcgm-exporter`: GPU metrics for Prometheus, attributed to pods. */
@Command(name = "dcgm-exporter", mixinStandardHelpOptions = true, versionProvider = VersionProvider.class,
        description = "GPU metrics for Prometheus, attributed to pods.")
public final class DcgmExporterMain implements Runnable {

    @Override
    public void run() {
        new CommandLine(this).usage(System.out);
    }

    public static void main(String[] args) {
        System.exit(new CommandLine(new DcgmExporterMain()).execute(args));
    }
}
