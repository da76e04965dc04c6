package org.gpuoperator.node.cdi;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.gpuoperator.node.host.ProcDevices;

/**
 * Finds the driver's files on a node, as {@code nvidia-ctk cdi generate} does.
 *
 * <p>Libraries: every 64-bit entry of the driver root's ldcache ({@code <driver
 * root>/etc/ld.so.cache}) whose path, its links followed, is a file {@code lib*.so.<driver
 * version>} (Debian's packages: the ldcache names {@code /lib/x86_64-linux-gnu/libcuda.so.1}, a
 * link through {@code /etc/alternatives} to {@code nvidia/current/libcuda.so.1}, a link to {@code
 * libcuda.so.<version>}); then the files {@code lib*.so.<driver version>} in the folders of those
 * entries and of the ldcache's {@code libcuda}/{@code libnvidia-*} entries, and in {@link
 * #LIBRARY_DIRS} ({@code nvidia-ctk}'s search paths: the {@code .run} installer's and Debian's
 * triplet folders, Debian's {@code nvidia/current}, RHEL's {@code /usr/lib64}), which find them
 * where the ldcache lacks them. Each library is its real file; its soname links (the ldcache's
 * soname for it, and the links next to it that lead to it, e.g. {@code libcuda.so.1}) are links the
 * container gets next to it. Binaries: {@link #BINARIES} in {@link #BINARY_DIRS}, each mounted from
 * its real file.
 *
 * <p>Every path is resolved inside the driver root as a {@code chroot} would: each component's link
 * followed (at most {@value #MAX_LINKS}), an absolute target read from the driver root, {@code ..}
 * stopping at it; the driver root itself is resolved in the host's root the same way. So nothing
 * outside the driver root is ever read or mounted. Also the host's {@code /dev/nvidia*} nodes, the
 * {@code nvidia*} character majors and the MIG capability minors. I/O only through {@link
 * DriverFs}.
 */
public final class DriverDiscovery {

    /**
     * Library folders searched after those the ldcache leads to ({@code nvidia-ctk}'s, x86-64 and
     * AArch64), each resolved in the driver root (on a merged-{@code /usr} system {@code /lib/...}
     * is {@code /usr/lib/...}).
     */
    public static final List<String> LIBRARY_DIRS =
            List.of(
                    "/usr/lib/x86_64-linux-gnu",
                    "/usr/lib/aarch64-linux-gnu",
                    "/usr/lib/x86_64-linux-gnu/nvidia/current",
                    "/usr/lib/aarch64-linux-gnu/nvidia/current",
                    "/usr/lib64",
                    "/lib64",
                    "/lib/x86_64-linux-gnu",
                    "/lib/aarch64-linux-gnu",
                    "/lib/x86_64-linux-gnu/nvidia/current",
                    "/lib/aarch64-linux-gnu/nvidia/current",
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

    /** Links one path's resolution follows at most: a loop ends there, the path unresolved. */
    public static final int MAX_LINKS = 40;

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
        Root root = new Root(new Root("/", "/").resolve(driverRoot).orElse(driverRoot), driverRoot);
        Libraries libs = new Libraries(root, ".so." + version);
        for (String dir : libs.fromLdCache()) {
            libs.scan(dir);
        }
        for (String dir : LIBRARY_DIRS) {
            Optional<String> real = root.resolve(dir);
            if (real.isPresent()) {
                libs.scan(real.get());
            }
        }
        libs.sonameLinksNextToThem();

        List<String> binaries = new ArrayList<>();
        Map<String, String> realFiles = new LinkedHashMap<>();
        for (String b : BINARIES) {
            for (String dir : BINARY_DIRS) {
                String path = dir + "/" + b;
                Optional<String> real = root.resolve(path).filter(root::isFile);
                if (real.isPresent()) {
                    binaries.add(path);
                    if (!real.get().equals(path)) {
                        realFiles.put(path, real.get());
                    }
                    break;
                }
            }
        }
        return new DriverFiles(
                driverRoot,
                version,
                libs.byName.values().stream().sorted().toList(),
                binaries,
                deviceNodes(),
                migCapMinors(),
                characterMajors(),
                libs.sonameLinks,
                realFiles);
    }

    /**
     * A root on the host (a host path with no link on the way) in which paths resolve as under
     * {@code chroot}: every component's link followed, an absolute target from the root, {@code ..}
     * stopping at it.
     */
    private final class Root {
        final String base;

        /** The root as the caller named it, for messages. */
        final String named;

        /** Link targets read so far (a prefix such as {@code /lib} is read once). */
        final Map<String, Optional<String>> links = new HashMap<>();

        Root(String base, String named) {
            this.base = base;
            this.named = named;
        }

        /** The host path of a path in this root that has no link on the way. */
        String host(String inRoot) {
            return base.equals("/") ? inRoot : base + inRoot;
        }

        String namedHost(String inRoot) {
            return named.equals("/") ? inRoot : named.replaceAll("/+$", "") + inRoot;
        }

        boolean isFile(String real) {
            return fs.isFile(host(real));
        }

        boolean isLink(String real) throws IOException {
            return linkTarget(real).isPresent();
        }

        private Optional<String> linkTarget(String inRoot) throws IOException {
            Optional<String> t = links.get(inRoot);
            if (t == null) {
                t = fs.linkTarget(host(inRoot));
                links.put(inRoot, t);
            }
            return t;
        }

        /**
         * {@code path} resolved in this root, empty after {@value #MAX_LINKS} links (a loop). A
         * path that does not exist resolves as far as it exists: the caller checks for the file.
         */
        Optional<String> resolve(String path) throws IOException {
            Deque<String> todo = new ArrayDeque<>(components(path));
            List<String> done = new ArrayList<>();
            int hops = 0;
            while (!todo.isEmpty()) {
                String c = todo.removeFirst();
                if (c.equals("..")) {
                    if (!done.isEmpty()) {
                        done.removeLast();
                    }
                    continue;
                }
                done.add(c);
                Optional<String> target = linkTarget("/" + String.join("/", done));
                if (target.isEmpty()) {
                    continue;
                }
                done.removeLast();
                if (++hops > MAX_LINKS) {
                    return Optional.empty();
                }
                if (target.get().startsWith("/")) {
                    done.clear();
                }
                List<String> parts = components(target.get());
                for (int i = parts.size() - 1; i >= 0; i--) {
                    todo.addFirst(parts.get(i));
                }
            }
            return Optional.of("/" + String.join("/", done));
        }
    }

    /** The libraries found so far, their soname links and the folders listed. */
    private final class Libraries {
        final Root root;
        final String suffix;

        /** File name → real path: the first found of a name wins (the ldcache's first). */
        final Map<String, String> byName = new LinkedHashMap<>();

        /** Link path in the container → target file name. */
        final Map<String, String> sonameLinks = new LinkedHashMap<>();

        final Map<String, List<String>> listings = new LinkedHashMap<>();

        Libraries(Root root, String suffix) {
            this.root = root;
            this.suffix = suffix;
        }

        boolean versioned(String name) {
            return name.startsWith("lib")
                    && name.endsWith(suffix)
                    && name.length() > suffix.length();
        }

        /**
         * The ldcache's libraries of the driver, with their sonames as links to create; returns the
         * folders to search: those of the driver's entries as named and as resolved.
         */
        List<String> fromLdCache() throws IOException, CdiException {
            Optional<String> file = root.resolve(LD_CACHE);
            Optional<byte[]> bytes =
                    file.isPresent() ? fs.read(root.host(file.get())) : Optional.empty();
            if (bytes.isEmpty()) {
                return List.of();
            }
            Set<String> dirs = new LinkedHashSet<>();
            for (LdCache.Entry e : LdCache.parse(bytes.get(), root.namedHost(LD_CACHE))) {
                if (!e.lib64() || !e.path().startsWith("/")) {
                    continue;
                }
                Optional<String> real = root.resolve(e.path());
                boolean found = real.isPresent() && add(real.get());
                if (found) {
                    sonameLink(real.get(), e.soname());
                    dirs.add(folder(real.get()));
                }
                boolean driverNamed =
                        e.soname().startsWith("libcuda.so") || e.soname().startsWith("libnvidia-");
                if (found || driverNamed) {
                    root.resolve(folder(e.path())).ifPresent(dirs::add);
                    real.map(DriverDiscovery::folder).ifPresent(dirs::add);
                }
            }
            return List.copyOf(dirs);
        }

        /** The versioned libraries in a folder (resolved), each as its real file. */
        void scan(String dir) throws IOException {
            for (String name : list(dir)) {
                if (versioned(name) && !byName.containsKey(name)) {
                    Optional<String> real = root.resolve(join(dir, name));
                    if (real.isPresent()) {
                        add(real.get());
                    }
                }
            }
        }

        /** Whether {@code real} is a library of the driver (added unless its name was found). */
        boolean add(String real) {
            String name = name(real);
            if (!versioned(name) || !root.isFile(real)) {
                return false;
            }
            byName.putIfAbsent(name, real);
            return true;
        }

        /** {@code soname} as a link next to {@code real} when it names that library. */
        void sonameLink(String real, String soname) {
            String name = name(real);
            if (byName.containsValue(real)
                    && soname.startsWith(stem(name))
                    && !soname.equals(name)
                    && soname.indexOf('/') < 0) {
                sonameLinks.putIfAbsent(join(folder(real), soname), name);
            }
        }

        /** The links next to each library that lead to it ({@code libcuda.so.1}). */
        void sonameLinksNextToThem() throws IOException {
            for (String real : byName.values()) {
                String dir = folder(real);
                String stem = stem(name(real));
                for (String n : list(dir)) {
                    String path = join(dir, n);
                    if (n.startsWith(stem)
                            && root.isLink(path)
                            && root.resolve(path).filter(real::equals).isPresent()) {
                        sonameLink(real, n);
                    }
                }
            }
        }

        /** {@code libcuda.so.} of {@code libcuda.so.<version>}. */
        String stem(String name) {
            return name.substring(0, name.length() - suffix.length()) + ".so.";
        }

        List<String> list(String dir) throws IOException {
            List<String> names = listings.get(dir);
            if (names == null) {
                names = fs.list(root.host(dir));
                listings.put(dir, names);
            }
            return names;
        }
    }

    private static List<String> components(String path) {
        List<String> out = new ArrayList<>();
        for (String c : path.split("/")) {
            if (!c.isEmpty() && !c.equals(".")) {
                out.add(c);
            }
        }
        return out;
    }

    private static String folder(String path) {
        int slash = path.lastIndexOf('/');
        return slash > 0 ? path.substring(0, slash) : "/";
    }

    private static String name(String path) {
        return path.substring(path.lastIndexOf('/') + 1);
    }

    private static String join(String dir, String name) {
        return dir.equals("/") ? "/" + name : dir + "/" + name;
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
