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
 * container gets next to it; the {@code vdpau/} subfolder of each library folder too. Binaries:
 * {@link #BINARIES} in {@link #BINARY_DIRS}, each mounted from its real file. Also, where they
 * exist: the GSP firmware {@code nvidia/<version>/gsp*.bin} in the kernel's firmware folders; the
 * graphics files ({@link #CONFIG_FILES}, EGL's external platforms, {@link #VULKAN_FILES}, the X
 * driver modules); the daemons' sockets ({@link #IPC_SOCKETS}) and the MPS pipe folder; each GPU's
 * {@code /dev/dri} nodes by the host's {@code /dev/dri/by-path} links.
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
                    "nvidia-cuda-mps-server",
                    "nvidia-imex",
                    "nvidia-imex-ctl");

    /** The VDPAU driver's subfolder of a library folder. */
    public static final String VDPAU_DIR = "vdpau";

    /** Where graphics configuration files are looked for, in the driver root. */
    public static final List<String> CONFIG_DIRS =
            List.of("/etc", "/usr/local/share", "/usr/share");

    /** Graphics configuration files, under each of {@link #CONFIG_DIRS}, mounted where found. */
    public static final List<String> CONFIG_FILES =
            List.of(
                    "glvnd/egl_vendor.d/10_nvidia.json",
                    "OpenCL/vendors/nvidia.icd",
                    "nvidia/nvoptix.bin",
                    "X11/xorg.conf.d/10-nvidia.conf",
                    "X11/xorg.conf.d/nvidia-drm-outputclass.conf");

    /**
     * The libraries of NVIDIA's EGL external platforms, versioned on their own: {@code
     * <name><x.y...>} in the library folders.
     */
    public static final List<String> EGL_PLATFORM_LIBRARIES =
            List.of("libnvidia-egl-gbm.so.", "libnvidia-egl-wayland.so.");

    /** The EGL external platforms' folder: its {@code *nvidia*.json} files are mounted. */
    public static final String EGL_PLATFORMS = "egl/egl_external_platform.d";

    /**
     * Vulkan's ICD and layer files: the first found is mounted at {@code /etc/<name>}, which the
     * Vulkan loader reads.
     */
    public static final List<String> VULKAN_FILES =
            List.of(
                    "vulkan/icd.d/nvidia_icd.json",
                    "vulkan/icd.d/nvidia_icd.x86_64.json",
                    "vulkan/icd.d/nvidia_icd.aarch64.json",
                    "vulkan/icd.d/nvidia_layers.json",
                    "vulkan/implicit_layer.d/nvidia_layers.json");

    public static final String X_DRIVER = "nvidia_drv.so";

    /** The GLX server module, {@code libglxserver_nvidia.so.<version>}. */
    public static final String X_GLX_SERVER = "libglxserver_nvidia.so.";

    /** Debian's folder of the driver's X modules and tools. */
    public static final String DEBIAN_NVIDIA_CURRENT = "/usr/lib/nvidia/current";

    /** The daemons' sockets, under {@code /run} or {@code /var/run}. */
    public static final List<String> IPC_SOCKETS =
            List.of("nvidia-persistenced/socket", "nvidia-fabricmanager/socket");

    /** The MPS control daemon's default pipe folder. */
    public static final String MPS_PIPE_DIR = "/tmp/nvidia-mps";

    public static final String OS_RELEASE = "/proc/sys/kernel/osrelease";
    public static final String FIRMWARE_CLASS_PATH = "/sys/module/firmware_class/parameters/path";
    public static final String DRI_DIR = "/dev/dri";
    public static final String DRI_BY_PATH = DRI_DIR + "/by-path";

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
        List<String> libDirs = new ArrayList<>(libs.fromLdCache());
        for (String dir : LIBRARY_DIRS) {
            root.resolve(dir).ifPresent(libDirs::add);
        }
        for (String dir : libDirs) {
            libs.scan(dir);
        }
        // the VDPAU driver's subfolder of each library folder (the .run installer's vdpau/)
        for (String dir : libDirs) {
            Optional<String> vdpau = root.resolve(join(dir, VDPAU_DIR));
            if (vdpau.isPresent()) {
                libs.scan(vdpau.get());
            }
        }
        libs.sonameLinksNextToThem();
        for (String dir : libDirs) {
            libs.eglPlatformLibraries(dir);
        }
        List<String> libraries = libs.byName.values().stream().sorted().toList();

        Map<String, String> realFiles = new LinkedHashMap<>();
        List<String> binaries = new ArrayList<>();
        for (String b : BINARIES) {
            firstFile(root, BINARY_DIRS.stream().map(d -> d + "/" + b).toList(), realFiles)
                    .ifPresent(binaries::add);
        }
        Map<String, CdiSpec.DeviceNode> nodes = deviceNodes();
        Map<String, List<DriverFiles.DriLink>> dri = dri(nodes); // adds the DRI nodes to nodes
        return new DriverFiles(
                driverRoot,
                version,
                libraries,
                binaries,
                nodes,
                migCapMinors(),
                characterMajors(),
                libs.sonameLinks,
                realFiles,
                firmware(root, version, realFiles),
                graphics(root, version, libraries, realFiles),
                ipc(root, realFiles),
                dri);
    }

    /**
     * The first of {@code paths} that is a file in the root, noted in {@code realFiles} when links
     * lead elsewhere.
     */
    private static Optional<String> firstFile(
            Root root, List<String> paths, Map<String, String> realFiles) throws IOException {
        for (String path : paths) {
            Optional<String> real = root.resolve(path).filter(root::isFile);
            if (real.isPresent()) {
                realFile(path, real.get(), realFiles);
                return Optional.of(path);
            }
        }
        return Optional.empty();
    }

    private static void realFile(String path, String real, Map<String, String> realFiles) {
        if (!real.equals(path)) {
            realFiles.put(path, real);
        }
    }

    /**
     * The GSP firmware {@code nvidia/<version>/gsp*.bin} in the kernel's firmware folders (the
     * custom {@code firmware_class.path}, {@code /lib/firmware/updates/<release>}, {@code
     * /lib/firmware/updates}, {@code /lib/firmware/<release>}, {@code /lib/firmware}), each file
     * once.
     */
    private List<String> firmware(Root root, String version, Map<String, String> realFiles)
            throws IOException {
        String release = text(OS_RELEASE);
        List<String> dirs = new ArrayList<>();
        String custom = text(FIRMWARE_CLASS_PATH);
        if (custom.startsWith("/")) {
            dirs.add(custom.replaceAll("/+$", ""));
        }
        if (!release.isEmpty() && release.indexOf('/') < 0) {
            dirs.add("/lib/firmware/updates/" + release);
        }
        dirs.add("/lib/firmware/updates");
        if (!release.isEmpty() && release.indexOf('/') < 0) {
            dirs.add("/lib/firmware/" + release);
        }
        dirs.add("/lib/firmware");
        List<String> out = new ArrayList<>();
        Set<String> seen = new LinkedHashSet<>();
        for (String dir : dirs) {
            String folder = dir + "/nvidia/" + version;
            Optional<String> real = root.resolve(folder);
            if (real.isEmpty()) {
                continue;
            }
            for (String name : fs.list(root.host(real.get()))) {
                if (!name.startsWith("gsp") || !name.endsWith(".bin")) {
                    continue;
                }
                String path = folder + "/" + name;
                Optional<String> file = root.resolve(path).filter(root::isFile);
                if (file.isPresent() && seen.add(file.get())) {
                    out.add(path);
                    realFile(path, file.get(), realFiles);
                }
            }
        }
        return out;
    }

    /**
     * Graphics files: {@link #CONFIG_FILES} and the EGL external platforms {@code *nvidia*.json} in
     * each of {@link #CONFIG_DIRS} at their path; {@link #VULKAN_FILES} from the first of {@link
     * #CONFIG_DIRS} and the driver root itself that has them, at {@code /etc/<name>}; the X driver
     * modules from the first of {@link #xorgDirs(List, String)} that has them.
     */
    private List<String> graphics(
            Root root, String version, List<String> libraries, Map<String, String> realFiles)
            throws IOException {
        Set<String> out = new LinkedHashSet<>();
        for (String dir : CONFIG_DIRS) {
            for (String f : CONFIG_FILES) {
                firstFile(root, List.of(dir + "/" + f), realFiles).ifPresent(out::add);
            }
            String platforms = dir + "/" + EGL_PLATFORMS;
            Optional<String> real = root.resolve(platforms);
            if (real.isPresent()) {
                for (String name : fs.list(root.host(real.get()))) {
                    if (name.contains("nvidia") && name.endsWith(".json")) {
                        firstFile(root, List.of(platforms + "/" + name), realFiles)
                                .ifPresent(out::add);
                    }
                }
            }
        }
        for (String f : VULKAN_FILES) {
            List<String> candidates = new ArrayList<>();
            CONFIG_DIRS.forEach(d -> candidates.add(d + "/" + f));
            candidates.add("/" + f);
            for (String c : candidates) {
                Optional<String> real = root.resolve(c).filter(root::isFile);
                if (real.isPresent()) {
                    String path = "/etc/" + f;
                    out.add(path);
                    realFile(path, real.get(), realFiles);
                    break;
                }
            }
        }
        List<String> xorg = xorgDirs(libraries, version);
        for (String module : List.of(X_DRIVER, X_GLX_SERVER + version)) {
            firstFile(root, xorg.stream().map(d -> d + "/" + module).toList(), realFiles)
                    .ifPresent(out::add);
        }
        return List.copyOf(out);
    }

    /**
     * Where the X driver modules are looked for, as {@code nvidia-ctk} does: under libcuda's folder
     * ({@code nvidia/xorg}, {@code xorg/modules/...}), then the X server's module folders, then
     * Debian's {@code /usr/lib/nvidia/current}.
     */
    static List<String> xorgDirs(List<String> libraries, String version) {
        List<String> kinds =
                List.of("drivers", "extensions", "updates/drivers", "updates/extensions");
        List<String> out = new ArrayList<>();
        libraries.stream()
                .filter(l -> name(l).equals("libcuda.so." + version))
                .findFirst()
                .map(DriverDiscovery::folder)
                .ifPresent(
                        libRoot -> {
                            out.add(libRoot + "/nvidia/xorg");
                            kinds.forEach(k -> out.add(libRoot + "/xorg/modules/" + k));
                        });
        for (String base :
                List.of(
                        "/usr/lib/xorg/modules",
                        "/usr/lib64/xorg/modules",
                        "/usr/X11R6/lib/modules",
                        "/usr/X11R6/lib64/modules")) {
            kinds.forEach(k -> out.add(base + "/" + k));
        }
        out.add(DEBIAN_NVIDIA_CURRENT);
        return out;
    }

    /**
     * The IPC sockets ({@link #IPC_SOCKETS}, the first of {@code /run} and {@code /var/run} that
     * has each) and the MPS pipe folder, where they exist in the driver root.
     */
    private List<String> ipc(Root root, Map<String, String> realFiles) throws IOException {
        List<String> out = new ArrayList<>();
        for (String socket : IPC_SOCKETS) {
            for (String dir : List.of("/run", "/var/run")) {
                String path = dir + "/" + socket;
                Optional<String> real =
                        root.resolve(path)
                                .filter(r -> fs.exists(root.host(r)))
                                .filter(r -> !fs.isDirectory(root.host(r)));
                if (real.isPresent()) {
                    out.add(path);
                    realFile(path, real.get(), realFiles);
                    break;
                }
            }
        }
        Optional<String> mps = root.resolve(MPS_PIPE_DIR).filter(r -> fs.isDirectory(root.host(r)));
        if (mps.isPresent()) {
            out.add(MPS_PIPE_DIR);
            realFile(MPS_PIPE_DIR, mps.get(), realFiles);
        }
        return out;
    }

    /**
     * Each GPU's {@code /dev/dri} card and render nodes by bus id, from the host's {@code
     * /dev/dri/by-path/pci-<bus id>-card} and {@code -render} links; the nodes join {@code nodes}.
     */
    private Map<String, List<DriverFiles.DriLink>> dri(Map<String, CdiSpec.DeviceNode> nodes)
            throws IOException {
        Map<String, List<DriverFiles.DriLink>> out = new LinkedHashMap<>();
        for (String name : fs.list(DRI_BY_PATH)) {
            int dash = name.lastIndexOf('-');
            if (!name.startsWith("pci-")
                    || dash < 4
                    || !List.of("card", "render").contains(name.substring(dash + 1))) {
                continue;
            }
            String link = DRI_BY_PATH + "/" + name;
            Optional<String> target = fs.linkTarget(link);
            if (target.isEmpty()) {
                continue;
            }
            String node =
                    "/"
                            + String.join(
                                    "/",
                                    normalized(
                                            target.get().startsWith("/")
                                                    ? target.get()
                                                    : DRI_BY_PATH + "/" + target.get()));
            String nodeName = name(node);
            if (!folder(node).equals(DRI_DIR)
                    || !(nodeName.startsWith("card") || nodeName.startsWith("renderD"))) {
                continue;
            }
            Optional<CdiSpec.DeviceNode> n = fs.deviceNode(node);
            if (n.isEmpty()) {
                continue;
            }
            nodes.put(node, n.get());
            out.computeIfAbsent(DriverFiles.busId(name.substring(4, dash)), k -> new ArrayList<>())
                    .add(new DriverFiles.DriLink(link, target.get(), node));
        }
        return out;
    }

    /** A path's components with {@code .} and {@code ..} applied. */
    private static List<String> normalized(String path) {
        List<String> out = new ArrayList<>();
        for (String c : components(path)) {
            if (c.equals("..")) {
                if (!out.isEmpty()) {
                    out.removeLast();
                }
            } else {
                out.add(c);
            }
        }
        return out;
    }

    /** A small text file's content, stripped; empty when absent. */
    private String text(String path) throws IOException {
        return fs.read(path).map(b -> new String(b, StandardCharsets.UTF_8).strip()).orElse("");
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

        /**
         * The EGL platform libraries in a folder ({@link #EGL_PLATFORM_LIBRARIES}, versioned on
         * their own, e.g. {@code libnvidia-egl-wayland.so.1.1.10}), with the links next to each
         * that lead to it: the EGL platform files name them by soname.
         */
        void eglPlatformLibraries(String dir) throws IOException {
            for (String n : list(dir)) {
                String prefix =
                        EGL_PLATFORM_LIBRARIES.stream()
                                .filter(n::startsWith)
                                .findFirst()
                                .orElse(null);
                if (prefix == null
                        || !n.substring(prefix.length()).matches("\\d+(\\.\\d+)+")
                        || byName.containsKey(n)) {
                    continue;
                }
                Optional<String> real = root.resolve(join(dir, n)).filter(root::isFile);
                if (real.isEmpty() || !name(real.get()).equals(n)) {
                    continue;
                }
                byName.put(n, real.get());
                String folder = folder(real.get());
                for (String l : list(folder)) {
                    String path = join(folder, l);
                    if (l.startsWith(prefix)
                            && !l.equals(n)
                            && root.isLink(path)
                            && root.resolve(path).filter(real.get()::equals).isPresent()) {
                        sonameLinks.putIfAbsent(path, n);
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
