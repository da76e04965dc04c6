package org.gpuoperator.e2e.apiserver;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.function.Function;
import java.util.stream.Stream;

/**
 * Reads logs where a kubelet writes them: {@code <node
 * root>/var/log/pods/<ns>_<pod>_<uid>/<container>/<restart>.log} in CRI format. The current run is
 * the highest restart number, the previous run the one before.
 */
public final class FilePodLogSource implements PodLogSource {

    private final Function<String, Optional<Path>> nodeRoot;

    /**
     * @param nodeRoot node name to its host root; empty for a node this source does not know
     */
    public FilePodLogSource(Function<String, Optional<Path>> nodeRoot) {
        this.nodeRoot = nodeRoot;
    }

    /** The directory of one container's log files. */
    public static Path containerDir(Path nodeRoot, PodRef pod, String container) {
        return nodeRoot.resolve("var/log/pods")
                .resolve(pod.namespace() + "_" + pod.name() + "_" + pod.uid())
                .resolve(container);
    }

    @Override
    public List<String> lines(PodRef pod, String container, boolean previous) throws IOException {
        if (pod.nodeName() == null) {
            throw new NoSuchElementException(
                    "pod " + pod.namespace() + "/" + pod.name() + " is not scheduled to a node");
        }
        Path root =
                nodeRoot.apply(pod.nodeName())
                        .orElseThrow(
                                () ->
                                        new NoSuchElementException(
                                                "node "
                                                        + pod.nodeName()
                                                        + " of pod "
                                                        + pod.name()
                                                        + " has no logs here"));
        Path dir = containerDir(root, pod, container);
        if (!Files.isDirectory(dir)) {
            throw new NoSuchElementException(
                    "no log of container "
                            + container
                            + " in pod "
                            + pod.name()
                            + " ("
                            + dir
                            + ")");
        }
        List<Path> runs;
        try (Stream<Path> files = Files.list(dir)) {
            runs =
                    files.filter(f -> f.getFileName().toString().matches("\\d+\\.log"))
                            .sorted(Comparator.comparingLong(FilePodLogSource::restart))
                            .toList();
        }
        int index = runs.size() - (previous ? 2 : 1);
        if (index < 0) {
            throw new NoSuchElementException(
                    (previous ? "no previous log" : "no log")
                            + " of container "
                            + container
                            + " in pod "
                            + pod.name());
        }
        Path file = runs.get(index);
        try {
            return CriLog.messages(Files.readAllLines(file));
        } catch (IllegalArgumentException e) {
            throw new IOException(file + ": " + e.getMessage(), e);
        }
    }

    private static long restart(Path f) {
        String n = f.getFileName().toString();
        return Long.parseLong(n.substring(0, n.length() - ".log".length()));
    }
}
