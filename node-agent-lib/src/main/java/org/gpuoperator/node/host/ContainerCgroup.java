package org.gpuoperator.node.host;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The Kubernetes container a process runs in, as its {@code /proc/<pid>/cgroup} names it: the pod
 * UID and the runtime's container ID. Parsing is pure; {@link #ofProcess} is the one read.
 *
 * <p>The kubelet puts every container in a cgroup under its pod's, with either cgroup driver:
 *
 * <ul>
 *   <li>cgroupfs: {@code /kubepods/burstable/pod<uid>/<container id>};
 *   <li>systemd: {@code /kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod<uid with
 *       _>.slice/cri-containerd-<container id>.scope} ({@code crio-}, {@code docker-} for the other
 *       runtimes).
 * </ul>
 *
 * Under cgroup v2 the file has the one line {@code 0::<path>}; under v1 one line per hierarchy
 * ({@code 4:memory:<path>}), all naming the same container, so the first line that names a pod is
 * taken. The path may have a prefix (a node that is itself a container, a nested cgroup namespace),
 * so the pod is found as the last {@code pod<uid>} segment and the container as the segment after
 * it.
 *
 * @param podUid the pod's UID with dashes, as the API server has it
 * @param containerId the 64-hex container ID, as {@code containerStatuses[].containerID} has it
 *     after {@code containerd://}
 */
public record ContainerCgroup(String podUid, String containerId) {

    private static final Pattern POD =
            Pattern.compile(
                    "pod([0-9a-f]{8}[-_][0-9a-f]{4}[-_][0-9a-f]{4}[-_][0-9a-f]{4}[-_][0-9a-f]{12})(?:\\.slice)?$");

    private static final Pattern CONTAINER =
            Pattern.compile("^(?:[a-z-]+-)?([0-9a-f]{64})(?:\\.scope)?$");

    /** The container of one {@code /proc/<pid>/cgroup} text; empty when it is in no pod. */
    public static Optional<ContainerCgroup> parse(String procCgroup) {
        for (String line : procCgroup.split("\n")) {
            // hierarchy-id:controllers:path; the path itself may hold colons
            int first = line.indexOf(':');
            int second = first < 0 ? -1 : line.indexOf(':', first + 1);
            if (second < 0) {
                continue;
            }
            Optional<ContainerCgroup> c = ofPath(line.substring(second + 1).strip());
            if (c.isPresent()) {
                return c;
            }
        }
        return Optional.empty();
    }

    /** The container a cgroup path names; empty for a pod's own cgroup or a path in no pod. */
    static Optional<ContainerCgroup> ofPath(String path) {
        // containerd's systemd cgroup in a cgroupfs-looking path: <pod slice>:cri-containerd:<id>
        String[] segments = path.replaceAll("\\.slice:([a-z-]+):", ".slice/$1-").split("/");
        for (int i = segments.length - 2; i >= 0; i--) {
            String segment = segments[i];
            // systemd: kubepods-burstable-pod<uid>.slice; cgroupfs: pod<uid>
            int dash = segment.lastIndexOf("-pod");
            String pod = dash >= 0 ? segment.substring(dash + 1) : segment;
            Matcher p = POD.matcher(pod);
            if (!p.matches()) {
                continue;
            }
            Matcher c = CONTAINER.matcher(segments[i + 1]);
            if (!c.matches()) {
                return Optional.empty();
            }
            return Optional.of(
                    new ContainerCgroup(
                            p.group(1).replace('_', '-').toLowerCase(Locale.ROOT), c.group(1)));
        }
        return Optional.empty();
    }

    /**
     * Reads {@code <proc>/<pid>/cgroup}; empty when the process runs in no pod.
     *
     * @throws IOException when the file cannot be read (the process ended, or this is not the PID
     *     namespace it runs in)
     */
    public static Optional<ContainerCgroup> read(Path proc, long pid) throws IOException {
        return parse(Files.readString(proc.resolve(Long.toString(pid)).resolve("cgroup")));
    }

    /** As {@link #read}, empty also when the file cannot be read. */
    public static Optional<ContainerCgroup> ofProcess(Path proc, long pid) {
        try {
            return read(proc, pid);
        } catch (IOException | RuntimeException e) {
            return Optional.empty(); // a process that ended between listing and reading
        }
    }
}
