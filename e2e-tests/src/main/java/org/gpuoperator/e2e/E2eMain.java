package org.gpuoperator.e2e;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/** Entry point of `e2e-tests`: Whole-system scenarios on a simulated cluster or kind. */
@Command(name = "e2e-tests", mixinStandardHelpOptions = true, versionProvider = E2eMain.Version.class,
        description = "Whole-system scenarios on a simulated cluster or kind.")
public final class E2eMain implements Runnable {

    @Override
    public void run() {
        new CommandLine(this).usage(System.out);
    }

    public static void main(String[] args) {
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
