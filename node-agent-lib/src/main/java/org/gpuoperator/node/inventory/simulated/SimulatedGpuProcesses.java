package org.gpuoperator.node.inventory.simulated;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeSet;
import org.gpuoperator.node.host.ContainerCgroup;
import org.gpuoperator.node.inventory.GpuProcess;

/**
 * Which processes use a simulated GPU, and their share of it.
 *
 * <p>A real driver knows the processes that opened a GPU. On a simulated node the simulated NVIDIA
 * runtime plays that part: for every container it gives GPUs to, it writes {@value #CONTAINERS_DIR}
 * {@code /<container id>/}{@value #DESCRIPTION_FILE} under the node's root (one {@code gpu} line
 * per GPU, with its UUID) and removes it when the container is deleted. The processes using a GPU
 * are then the processes running in those containers: those whose {@code /proc/<pid>/cgroup} names
 * one of the container IDs. They really run on the node, so a pod's processes come and go with the
 * pod.
 *
 * <p>The GPU's simulated utilization and memory are split among them by a fixed weight per PID
 * ({@link #split}), so that the parts add up to the whole and stay the same between reads.
 */
public final class SimulatedGpuProcesses {

    /** The runtime's per-container files, relative to the node root. */
    public static final String CONTAINERS_DIR = "run/nvidia/simulated-runtime/containers";

    public static final String DESCRIPTION_FILE = "gpus";

    private static final long MIB = 1024L * 1024L;

    private final Path nodeRoot;
    private final Path proc;

    /**
     * @param nodeRoot where the node's {@code /run/nvidia} is
     * @param proc the node's {@code /proc}
     */
    SimulatedGpuProcesses(Path nodeRoot, Path proc) {
        this.nodeRoot = nodeRoot;
        this.proc = proc;
    }

    /** The PIDs running in containers that the runtime gave GPU {@code uuid}, ascending. */
    List<Long> pidsUsing(String uuid) {
        Set<String> containers = containersHolding(uuid);
        if (containers.isEmpty()) {
            return List.of(); // the common case: no /proc scan
        }
        TreeSet<Long> pids = new TreeSet<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(proc, "[0-9]*")) {
            for (Path p : ds) {
                long pid;
                try {
                    pid = Long.parseLong(p.getFileName().toString());
                } catch (NumberFormatException e) {
                    continue;
                }
                ContainerCgroup.ofProcess(proc, pid)
                        .filter(c -> containers.contains(c.containerId()))
                        .ifPresent(c -> pids.add(pid));
            }
        } catch (IOException e) {
            return List.of();
        }
        return List.copyOf(pids);
    }

    private Set<String> containersHolding(String uuid) {
        Set<String> out = new HashSet<>();
        Path dir = nodeRoot.resolve(CONTAINERS_DIR);
        if (!Files.isDirectory(dir)) {
            return out;
        }
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir)) {
            for (Path container : ds) {
                try {
                    if (gpuUuids(Files.readString(container.resolve(DESCRIPTION_FILE)))
                            .contains(uuid)) {
                        out.add(container.getFileName().toString());
                    }
                } catch (IOException e) {
                    // deleted meanwhile: that container is gone
                }
            }
        } catch (IOException e) {
            return Set.of();
        }
        return out;
    }

    /**
     * Pure: the GPU UUIDs of a description file ({@code gpu <index> <uuid> ...}, tab-separated).
     */
    static Set<String> gpuUuids(String description) {
        Set<String> out = new HashSet<>();
        for (String line : description.split("\n")) {
            String[] f = line.split("\t");
            if (f.length >= 3 && f[0].equals("gpu")) {
                out.add(f[2]);
            }
        }
        return out;
    }

    /**
     * Pure: the GPU's utilization (percent) and used memory (MiB) split among {@code pids} by
     * weights 1, 2 or 3 fixed by each PID, the remainder of each value going to the first PIDs so
     * that the parts add up to the whole.
     */
    static List<GpuProcess> split(
            List<Long> pids, int smUtil, int memUtil, int decUtil, long usedMiB) {
        int n = pids.size();
        int[] w = new int[n];
        int total = 0;
        for (int i = 0; i < n; i++) {
            w[i] = 1 + (int) Long.remainderUnsigned(pids.get(i) * 0x9E3779B97F4A7C15L >>> 32, 3);
            total += w[i];
        }
        long[] sm = shares(smUtil, w, total);
        long[] mem = shares(memUtil, w, total);
        long[] dec = shares(decUtil, w, total);
        long[] used = shares(usedMiB, w, total);
        List<GpuProcess> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            out.add(
                    new GpuProcess(
                            pids.get(i),
                            OptionalLong.of(used[i] * MIB),
                            OptionalInt.of((int) sm[i]),
                            OptionalInt.of((int) mem[i]),
                            OptionalInt.of(0),
                            OptionalInt.of((int) dec[i])));
        }
        return out;
    }

    private static long[] shares(long whole, int[] w, int total) {
        long[] out = new long[w.length];
        long given = 0;
        for (int i = 0; i < w.length; i++) {
            out[i] = whole * w[i] / total;
            given += out[i];
        }
        for (int i = 0; given < whole && i < w.length; i++, given++) {
            out[i]++;
        }
        return out;
    }
}
