package org.gpuoperator.node.inventory.simulated;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.gpuoperator.node.agent.AtomicFiles;

/**
 * Fault injection for simulated GPUs, through files under the node's host root, so that tests, the
 * e2e harness and a person with a shell can all break and heal a simulated GPU while the agents run
 * in other processes.
 *
 * <p>One file per faulty GPU: {@code <host-root>/run/nvidia/simulated-gpu/faults/gpu-<index>},
 * holding either {@code xid=<code>} or {@code lost}. Removing the file is the recovery.
 */
public final class SimulatedFaults {

    /** Relative to the host root. */
    public static final String FAULTS_DIR = "run/nvidia/simulated-gpu/faults";

    private final Path dir;

    public SimulatedFaults(Path hostRoot) {
        this.dir = hostRoot.resolve(FAULTS_DIR);
    }

    public Path directory() {
        return dir;
    }

    /** Reports XID {@code xid} on GPU {@code gpuIndex} until {@link #recover} is called. */
    public void injectXid(int gpuIndex, long xid) {
        write(gpuIndex, "xid=" + xid);
    }

    /** Makes GPU {@code gpuIndex} fall off the bus until {@link #recover} is called. */
    public void loseGpu(int gpuIndex) {
        write(gpuIndex, "lost");
    }

    public void recover(int gpuIndex) {
        try {
            Files.deleteIfExists(file(gpuIndex));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The active faults, GPU index to fault; unreadable or malformed files are ignored. */
    public Map<Integer, Fault> active() {
        Map<Integer, Fault> out = new TreeMap<>();
        if (!Files.isDirectory(dir)) {
            return out;
        }
        try (Stream<Path> files = Files.list(dir)) {
            files.forEach(
                    f -> {
                        String n = f.getFileName().toString();
                        if (!n.startsWith("gpu-")) {
                            return;
                        }
                        try {
                            int idx = Integer.parseInt(n.substring(4));
                            Fault fault = Fault.parse(Files.readString(f).trim());
                            if (fault != null) {
                                out.put(idx, fault);
                            }
                        } catch (NumberFormatException | IOException ignored) {
                            // a half-written or foreign file: not a fault
                        }
                    });
        } catch (IOException e) {
            return out;
        }
        return out;
    }

    private Path file(int gpuIndex) {
        return dir.resolve("gpu-" + gpuIndex);
    }

    /**
     * Atomically, and readable by every user (rw-r--r--): a process of any user on the node may
     * read it, as any process sees a GPU that NVML lost.
     */
    private void write(int gpuIndex, String content) {
        try {
            AtomicFiles.writeString(file(gpuIndex), content + "\n"); // creates the directory too
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A fault on one GPU: an XID code, or lost ({@code xid == 0}). */
    public record Fault(boolean lost, long xid) {
        static Fault parse(String s) {
            if (s.equals("lost")) {
                return new Fault(true, 0);
            }
            if (s.startsWith("xid=")) {
                return new Fault(false, Long.parseLong(s.substring(4).trim()));
            }
            return null;
        }
    }
}
