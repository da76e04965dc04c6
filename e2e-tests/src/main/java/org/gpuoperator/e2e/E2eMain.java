package org.gpuoperator.e2e;

import org.gpuoperator.e2e.bench.BenchCommand;
import org.gpuoperator.e2e.bench.ConfigSwitchBench;
import org.gpuoperator.e2e.bench.MigSwitchBench;
import org.gpuoperator.e2e.images.ImagesCommand;
import org.gpuoperator.e2e.simulate.ChartTemplateCommand;
import org.gpuoperator.e2e.simulate.SimulateCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** Entry point of {@code e2e-tests}: whole-system runs on a simulated cluster. */
@Command(
        name = "e2e-tests",
        mixinStandardHelpOptions = true,
        versionProvider = E2eMain.Version.class,
        description = "Whole-system runs of the GPU operator.",
        subcommands = {
            SimulateCommand.class,
            BenchCommand.class,
            ConfigSwitchBench.class,
            MigSwitchBench.class,
            ImagesCommand.class,
            ChartTemplateCommand.class
        })
public final class E2eMain implements Runnable {

    @Override
    public void run() {
        new CommandLine(this).usage(System.out);
    }

    public static void main(String[] args) {
        // The in-process controller and fabric8 log through slf4j-simple; keep the console for
        // progress lines.
        System.setProperty(
                "org.slf4j.simpleLogger.defaultLogLevel",
                System.getProperty("org.slf4j.simpleLogger.defaultLogLevel", "warn"));
        // gRPC's netty warns on every unix-socket connection that SO_KEEPALIVE does not apply; it
        // is harmless.
        System.setProperty(
                "org.slf4j.simpleLogger.log.io.grpc.netty.shaded.io.netty.bootstrap", "error");
        System.exit(new CommandLine(new E2eMain()).execute(args));
    }

    /** The version from the jar manifest. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String v = Version.class.getPackage().getImplementationVersion();
            return new String[] {v == null ? "dev" : v};
        }
    }
}
