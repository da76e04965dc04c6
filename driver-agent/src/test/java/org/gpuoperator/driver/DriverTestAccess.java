package org.gpuoperator.driver;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.gpuoperator.node.agent.EventLog;
import picocli.CommandLine;

/** Wires the agent exactly as the command line does, with its log captured. */
public final class DriverTestAccess {

    /** The wiring plus a handle on the log. */
    public record Wired(DriverAgentMain.Wiring wiring, ByteArrayOutputStream logBytes) {
        public DriverStatus reconcile() throws InterruptedException {
            return wiring.agent().reconcile();
        }

        public String log() {
            return logBytes.toString();
        }
    }

    private DriverTestAccess() {}

    public static List<String> args(Path tmp, String node, String source, String... extra) {
        List<String> args =
                new ArrayList<>(
                        List.of(
                                "--gpu-source",
                                source,
                                "--host-root",
                                tmp.resolve("host").toString(),
                                "--node-name",
                                node,
                                "--validations-dir",
                                tmp.resolve("host/run/nvidia/validations").toString(),
                                "--health-address",
                                "127.0.0.1:0"));
        args.addAll(List.of(extra));
        return args;
    }

    public static Wired wire(Path tmp, String node, String source, String... extra) {
        DriverAgentMain main = new DriverAgentMain();
        new CommandLine(main).parseArgs(args(tmp, node, source, extra).toArray(String[]::new));
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        DriverAgentMain.Wiring w =
                main.wire(new EventLog("driver-agent", new PrintStream(bytes, true)), true);
        return new Wired(w, bytes);
    }
}
