package org.gpuoperator.node.cdi;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.gpuoperator.node.host.ProcDevices;

/**
 * Finds the driver's files on a node, as {@code nvidia-ctk cdi generate} does: the libraries of the
 * driver version from the folders the driver root's ldcache ({@code <driver root>/etc/ld.so.cache})
 * names for the driver's libraries, and those its entries' links lead to (Debian's packages: the
 * ldcache names {@code /usr/lib/<triplet>/libcuda.so.1}, a link through {@code /etc/alternatives}
 * to {@code nvidia/current/libcuda.so.<version>}), then the usual library folders and Debian's
 * {@code nvidia/current}; the driver's binaries; the host's {@code /dev/nvidia*} nodes and the MIG
 * capability minors. I/O only through {@link DriverFs}.
 */
public final class DriverDiscovery {

    /** Library folders searched after those the ldcache names (x86-64 and AArch64 layouts). */
    public static final List<String> LIBRARY_DIRS =
            List.of(
                    "/usr/lib/x86_64-linux-gnu",
                    "/usr/lib/aarch64-linux-gnu",
                    "/usr/lib/x86_64-linux-gnu/nvidia/current",
                    "/usr/lib/aarch64-linux-gnu/nvidia/current",
                    "/usr/lib64",
                    "/lib64",
                    "/lib/x86_64-linux-gnu",
                    "/usr/lib");

    public static final List<String> BINARY_DIRS =
            List.of("/usr/bin", "/usr/sbin", "/bin", "/sbin", "/usr/local/bin");

    /** The driver's tools a container gets (those present are listed). */
    public static final List<String> BINARIES =
            List.of(
                    "nvidia-smi",
                    "nvidia-debugdump",
                    "nvidia-persistenced",
                    "nvidia-cuda-mps-control",
                    "nvidia-cuda-mps-server");

    public static final String LD_CACHE = "/etc/ld.so.cache";
    public static final String MIG_MINORS = "/proc/driver/nvidia-caps/mig-minors";
    public static final String PROC_DEVICES = ProcDevices.PATH;
    public static final String CAPS_DIR = "/dev/nvidia-caps";

    private final DriverFs fs;

    public DriverDiscovery(DriverFs fs) {
        this.fs = fs;
    }

    /**
     * @param driverRoot the driver root on the host
     * @param version the driver version (from NVML or the simulated profile)
     * @throws CdiException when the ldcache is there but unreadable (it names the file)
     */
    public DriverFiles discover(String driverRoot, String version)
            throws IOException, CdiException {
        DriverFiles at =
                new DriverFiles(driverRoot, version, List.of(), List.of(), Map.of(), Map.of());
        Set<String> dirs = new LinkedHashSet<>(ldCacheDirs(at));
        dirs.addAll(LIBRARY_DIRS);
        String suffix = ".so." + version;
        Map<String, String> byName = new LinkedHashMap<>();
        for (String dir : dirs) {
            for (String name : fs.list(at.hostPath(dir))) {
                if (name.startsWith("lib")
                        && name.endsWith(suffix)
                        && !byName.containsKey(name)
                        && fs.isFile(at.hostPath(dir + "/" + name))) {
                    byName.put(name, dir + "/" + name);
                }
            }
        }
        List<String> binaries = new ArrayList<>();
        for (String b : BINARIES) {
            for (String dir : BINARY_DIRS) {
                if (fs.isFile(at.hostPath(dir + "/" + b))) {
                    binaries.add(dir + "/" + b);
                    break;
                }
            }
        }
        return new DriverFiles(
                driverRoot,
                version,
                byName.values().stream().sorted().toList(),
                binaries,
                deviceNodes(),
                migCapMinors(),
                characterMajors());
    }

    /** The {@code nvidia*} character device majors in {@code /proc/devices}. */
    private Map<String, Integer> characterMajors() throws IOException {
        Map<String, Integer> out = new LinkedHashMap<>();
        ProcDevices.characterMajors(
                        fs.read(PROC_DEVICES)
                                .map(b -> new String(b, StandardCharsets.US_ASCII))
                                .orElse(""))
                .forEach(
                        (name, major) -> {
                            if (name.startsWith("nvidia")) {
                                out.put(name, major);
                            }
                        });
        return out;
    }

    /** Folders of the driver's libraries as the ldcache has them, in ldcache order. */
    private List<String> ldCacheDirs(DriverFiles at) throws IOException, CdiException {
        String file = at.hostPath(LD_CACHE);
        Optional<byte[]> bytes = fs.read(file);
        if (bytes.isEmpty()) {
            return List.of();
        }
        Set<String> dirs = new LinkedHashSet<>();
        for (LdCache.Entry e : LdCache.parse(bytes.get(), file)) {
            boolean driverLib =
                    e.soname().startsWith("libcuda.so") || e.soname().startsWith("libnvidia-");
            if (driverLib && e.lib64()) {
                folder(e.path()).ifPresent(dirs::add);
                folder(resolved(at, e.path())).ifPresent(dirs::add);
            }
        }
        return List.copyOf(dirs);
    }

    private static Optional<String> folder(String path) {
        int slash = path.lastIndexOf('/');
        return slash > 0 ? Optional.of(path.substring(0, slash)) : Optional.empty();
    }

    /** Links that hops at most: a loop ends there. */
    private static final int MAX_LINKS = 40;

    /**
     * {@code path} (in the driver root) with the links of its last component followed, an absolute
     * target read in the driver root as the driver's own loader would: the file a soname link
     * stands for.
     */
    private String resolved(DriverFiles at, String path) throws IOException {
        String p = path;
        for (int hop = 0; hop < MAX_LINKS; hop++) {
            Optional<String> target = fs.linkTarget(at.hostPath(p));
            if (target.isEmpty()) {
                return p;
            }
            String t = target.get();
            p =
                    java.nio.file.Path.of(t.startsWith("/") ? t : folder(p).orElse("") + "/" + t)
                            .normalize()
                            .toString();
        }
        return p;
    }

    private Map<String, CdiSpec.DeviceNode> deviceNodes() throws IOException {
        Map<String, CdiSpec.DeviceNode> out = new LinkedHashMap<>();
        for (String name : fs.list("/dev")) {
            if (name.startsWith("nvidia")) {
                fs.deviceNode("/dev/" + name).ifPresent(n -> out.put(n.path(), n));
            }
        }
        for (String name : fs.list(CAPS_DIR)) {
            fs.deviceNode(CAPS_DIR + "/" + name).ifPresent(n -> out.put(n.path(), n));
        }
        return out;
    }

    private Map<String, Integer> migCapMinors() throws IOException {
        Optional<byte[]> bytes = fs.read(MIG_MINORS);
        return bytes.isEmpty()
                ? Map.of()
                : MigCaps.parse(new String(bytes.get(), StandardCharsets.US_ASCII));
    }
}
