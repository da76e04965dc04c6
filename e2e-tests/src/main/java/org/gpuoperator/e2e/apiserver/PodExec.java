package org.gpuoperator.e2e.apiserver;

import java.io.IOException;
import java.util.List;

/**
 * Where {@code kubectl exec} runs a command: the simulated nodes plug theirs in (see {@code
 * ApiServer.podExec}), as they do {@link PodLogSource}. The command runs to its end (no stdin, no
 * TTY), as the CRI's {@code ExecSync} does.
 */
@FunctionalInterface
public interface PodExec {

    /** What the command left: its whole output and its exit code. */
    record Result(byte[] stdout, byte[] stderr, int exitCode) {}

    /** A running container a command can be run in. */
    @FunctionalInterface
    interface Target {
        Result run(List<String> command) throws IOException;
    }

    /**
     * Finds the running container, before the connection is upgraded (so that a refusal is an HTTP
     * answer, as kube-apiserver's).
     *
     * @throws java.util.NoSuchElementException when the container does not run (the kubelet's
     *     {@code container not found ("c")})
     * @throws UnsupportedOperationException when the node cannot run commands in its pods
     */
    Target target(PodLogSource.PodRef pod, String container);

    /** The exec of a server without nodes: no pod runs anywhere. */
    PodExec NONE =
            (pod, container) -> {
                throw new UnsupportedOperationException(
                        "no node runs pod " + pod.namespace() + "/" + pod.name());
            };
}
