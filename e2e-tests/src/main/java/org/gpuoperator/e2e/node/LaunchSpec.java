package org.gpuoperator.e2e.node;

import java.util.List;
import java.util.Map;

/**
 * How the simulated kubelet starts one operand container as a local process.
 *
 * @param module the agent module, from the pod's {@code app.kubernetes.io/name} label
 * @param command the full command line ({@code java @flags -jar <module>.jar args...})
 * @param env the process environment (only these variables, plus the few the JVM needs)
 * @param ports container port to local port: what the container runtime's port mapping would do
 * @param readinessUrl the readiness probe as a local URL, or null when the container has none
 */
public record LaunchSpec(
        String module,
        List<String> command,
        Map<String, String> env,
        Map<Integer, Integer> ports,
        String readinessUrl) {

    public LaunchSpec {
        command = List.copyOf(command);
        env = Map.copyOf(env);
        ports = Map.copyOf(ports);
    }
}
