package org.gpuoperator.controller;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** Entry point of `operator-controller`: Reconciles ClusterPolicy into ready GPU nodes. */
@Command(name = "operator-controller", mixinStandardHelpOptions = true, versionProvider = ControllerMain.Version.class,
        description = "Reconciles ClusterPolicy into ready GPU nodes.")
public final class ControllerMain implements Runnable {

    @Override
    public void run() {
        new CommandLine(this).usage(System.out);
    }

    public static void main(String[] args) {
        System.exit(new CommandLine(new ControllerMain()).execute(args));
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
