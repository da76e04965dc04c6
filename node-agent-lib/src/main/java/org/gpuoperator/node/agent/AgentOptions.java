package org.gpuoperator.node.agent;

import java.nio.file.Path;
import picocli.CommandLine.Option;

/** Options every node agent shares: where the readiness files live and where health is served. */
public class AgentOptions {

    @Option(
            names = "--validations-dir",
            defaultValue = "${env:VALIDATIONS_DIR:-" + ReadinessFiles.DEFAULT_DIR + "}",
            paramLabel = "DIR",
            description =
                    "Readiness files directory (default ${DEFAULT-VALUE}). Env: VALIDATIONS_DIR.")
    Path validationsDir;

    @Option(
            names = "--health-address",
            defaultValue = "${env:HEALTH_ADDRESS:-:8081}",
            paramLabel = "HOST:PORT",
            description =
                    "Serve /healthz and /readyz here; port 0 picks a free one (default ${DEFAULT-VALUE}). "
                            + "Env: HEALTH_ADDRESS.")
    String healthAddress;

    public ReadinessFiles readiness() {
        return new ReadinessFiles(validationsDir);
    }

    public String healthAddress() {
        return healthAddress;
    }

    /** For tests and embedding. */
    public static AgentOptions of(Path validationsDir, String healthAddress) {
        AgentOptions o = new AgentOptions();
        o.validationsDir = validationsDir;
        o.healthAddress = healthAddress;
        return o;
    }
}
