package org.gpuoperator.e2e.apiserver;

import java.io.IOException;
import java.util.List;

/**
 * Where {@code GET /api/v1/namespaces/<ns>/pods/<name>/log} gets a container's output: the
 * simulated nodes plug theirs in (see {@code ApiServer.Options}). Returns message text only, oldest
 * first.
 */
@FunctionalInterface
public interface PodLogSource {

    /** The pod as stored (its node, uid, containers). */
    record PodRef(String namespace, String name, String uid, String nodeName) {}

    /**
     * @param previous the log of the container's previous run (kubectl logs -p)
     * @throws java.util.NoSuchElementException when there is no such log (answered 404)
     */
    List<String> lines(PodRef pod, String container, boolean previous) throws IOException;

    /** The source of a server without nodes: every log is missing. */
    PodLogSource NONE =
            (pod, container, previous) -> {
                throw new java.util.NoSuchElementException(
                        "no log source for pod " + pod.namespace() + "/" + pod.name());
            };
}
