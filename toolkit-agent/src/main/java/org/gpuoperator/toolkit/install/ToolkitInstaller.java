package org.gpuoperator.toolkit.install;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.gpuoperator.node.agent.AtomicFiles;
import org.gpuoperator.node.agent.EventLog;
import org.gpuoperator.node.cdi.CdiSpecGenerator;
import org.gpuoperator.toolkit.ConfigException;
import org.gpuoperator.toolkit.NvidiaRuntimes;
import org.gpuoperator.toolkit.simulated.RuntimeConfig;

/**
 * Puts the runtime binaries into the install directory on the host ({@code
 * /usr/local/nvidia/toolkit}). Real nodes get the NVIDIA container runtime shipped in the image.
 * Simulated nodes get the simulated nvidia-container-runtime: a {@code #!/bin/sh} wrapper under
 * each runtime binary name (logs each call, execs runc for all but {@code create}), the simulated
 * {@code nvidia-smi}, the runtime's config ({@code .config/nvidia-container-runtime/config.toml})
 * and what its Java part needs: a Java runtime ({@code jre/}) and the agent's classpath ({@code
 * lib/}). Files whose bytes (payload: size and time) are already right are not touched.
 */
public final class ToolkitInstaller {

    /** Shipped next to the runtime in the image; copied when present. */
    public static final String NVIDIA_SMI = "nvidia-smi";

    /** Simulated nodes: the installed {@code nvidia-cdi-hook}, which has nothing to do there. */
    static final String SIMULATED_CDI_HOOK =
            "#!/bin/sh\n# nvidia-cdi-hook for simulated GPU nodes (toolkit-agent): the stand-in driver"
                    + " libraries need no links and no ldcache\nexit 0\n";

    public static final String JRE_DIR = "jre";
    public static final String LIB_DIR = "lib";

    /** The class data archive the first create writes (start-up time), next to the wrapper. */
    public static final String CDS_ARCHIVE = "simulated-runtime.jsa";

    /** Suffix of the real program behind each wrapper, as upstream installs it. */
    public static final String REAL_SUFFIX = ".real";

    private final Path hostRoot;
    private final NvidiaRuntimes runtimes;
    private final boolean simulated;
    private final Path sourceDir;
    private final String shimLog;
    private final SimulatedRuntime sim;
    private final EventLog log;
    private final String driverRoot;
    private final NvidiaRuntimeConfig.Modes modes;

    /**
     * What the simulated runtime needs besides the binaries.
     *
     * @param config written to {@code <install dir>/.config/nvidia-container-runtime/config.toml}
     * @param payload the Java runtime and classpath of its Java part
     */
    public record SimulatedRuntime(RuntimeConfig config, RuntimePayload payload) {}

    /**
     * Real GPUs: installs the NVIDIA runtime from {@code sourceDir} with its config for {@code
     * driverRoot} (a host path, from driver-ready).
     */
    public ToolkitInstaller(
            Path hostRoot, NvidiaRuntimes runtimes, Path sourceDir, String driverRoot) {
        this(hostRoot, runtimes, sourceDir, driverRoot, NvidiaRuntimeConfig.Modes.DEFAULTS);
    }

    /** As above, with the runtime's mode and CDI annotation prefixes for its config. */
    public ToolkitInstaller(
            Path hostRoot,
            NvidiaRuntimes runtimes,
            Path sourceDir,
            String driverRoot,
            NvidiaRuntimeConfig.Modes modes) {
        this(hostRoot, runtimes, false, sourceDir, null, null, null, driverRoot, modes);
    }

    /**
     * @param sourceDir where the image keeps the real runtime (real mode)
     * @param shimLog host path the wrapper appends its calls to (simulated mode)
     * @param sim the simulated runtime's config and payload (simulated mode)
     */
    public ToolkitInstaller(
            Path hostRoot,
            NvidiaRuntimes runtimes,
            boolean simulated,
            Path sourceDir,
            String shimLog,
            SimulatedRuntime sim,
            EventLog log) {
        this(
                hostRoot,
                runtimes,
                simulated,
                sourceDir,
                shimLog,
                sim,
                log,
                null,
                NvidiaRuntimeConfig.Modes.DEFAULTS);
    }

    private ToolkitInstaller(
            Path hostRoot,
            NvidiaRuntimes runtimes,
            boolean simulated,
            Path sourceDir,
            String shimLog,
            SimulatedRuntime sim,
            EventLog log,
            String driverRoot,
            NvidiaRuntimeConfig.Modes modes) {
        this.modes = modes;
        if (!simulated && (driverRoot == null || !driverRoot.startsWith("/"))) {
            throw new IllegalArgumentException(
                    "real mode needs the driver root as a host path, got '" + driverRoot + "'");
        }
        this.driverRoot = driverRoot;
        if (simulated && (sim == null || shimLog == null)) {
            throw new IllegalArgumentException(
                    "simulated mode needs the shim log and the simulated runtime");
        }
        this.hostRoot = hostRoot;
        this.runtimes = runtimes;
        this.simulated = simulated;
        this.sourceDir = sourceDir;
        this.shimLog = shimLog;
        this.sim = sim;
        this.log = log;
    }

    /**
     * The simulated runtime's entry point: one line per call in the log, runc for every command but
     * create.
     *
     * @param java the java command, as shell text
     * @param classpath the classpath, as shell text
     */
    public static String wrapper(
            String logFile, String java, String classpath, boolean classDataArchive) {
        return wrapper(
                logFile,
                java,
                classpath,
                classDataArchive,
                RuntimeConfig.DEFAULT_CDI_ANNOTATION_PREFIX);
    }

    /**
     * @param cdiAnnotationPrefix a create whose config.json has neither {@code
     *     NVIDIA_VISIBLE_DEVICES=} nor an annotation key starting with this skips the JVM
     */
    public static String wrapper(
            String logFile,
            String java,
            String classpath,
            boolean classDataArchive,
            String cdiAnnotationPrefix) {
        return new String(
                        RuntimePayload.resource("nvidia-container-runtime"), StandardCharsets.UTF_8)
                .replace("__LOG__", logFile.replace("'", "'\\''"))
                .replace("__CDI_PREFIX__", cdiAnnotationPrefix.replace("'", "'\\''"))
                .replace("__JAVA__", java)
                .replace("__CDS__", classDataArchive ? "$cds " : "")
                .replace("\"$dir/lib/*\"", classpath);
    }

    /** The simulated nvidia-smi that the runtime bind-mounts into GPU containers. */
    public static byte[] nvidiaSmi() {
        return RuntimePayload.resource("nvidia-smi");
    }

    /** Host path → content of every small file to install (the payload is mirrored separately). */
    public Map<String, byte[]> desired() throws ConfigException {
        Map<String, byte[]> files = new LinkedHashMap<>();
        if (simulated) {
            Placement p = placement();
            // the JVM cannot archive classes from directories, and its failed dump at exit turns a
            // good create
            // into exit 1: class directories (a development classpath) go without the archive
            boolean jarsOnly = sim.payload().classpath().stream().noneMatch(Files::isDirectory);
            byte[] s =
                    wrapper(
                                    shimLog,
                                    p.java(),
                                    p.classpath(),
                                    jarsOnly,
                                    sim.config().cdiAnnotationPrefix())
                            .getBytes(StandardCharsets.UTF_8);
            runtimes.binaries().values().forEach(b -> files.put(b, s));
            files.put(runtimes.installDir() + "/" + NVIDIA_SMI, nvidiaSmi());
            // the CDI specs' hook path: a runtime that applies the specs itself (containerd 1.7+
            // with enable_cdi) runs it; nothing to link or cache for the stand-in libraries
            files.put(
                    runtimes.installDir() + "/" + CdiSpecGenerator.HOOK_BINARY,
                    SIMULATED_CDI_HOOK.getBytes(StandardCharsets.UTF_8));
            files.put(
                    runtimes.installDir() + "/" + RuntimeConfig.RELATIVE_PATH,
                    sim.config().render().getBytes(StandardCharsets.UTF_8));
            return files;
        }
        // every file first: a missing one installs nothing, rather than half a runtime
        List<String> missing =
                NvidiaToolkitFiles.all().stream()
                        .filter(n -> !Files.isRegularFile(sourceDir.resolve(n)))
                        .toList();
        if (!missing.isEmpty()) {
            throw new ConfigException(
                    sourceDir
                            + " (--toolkit-source-dir) lacks "
                            + String.join(", ", missing)
                            + ": the image does not carry the NVIDIA container runtime; nothing "
                            + "installed");
        }
        String dir = runtimes.installDir();
        for (String n : NvidiaToolkitFiles.PROGRAMS) {
            files.put(dir + "/" + n + REAL_SUFFIX, read(sourceDir.resolve(n)));
            files.put(dir + "/" + n, realWrapper(dir, n).getBytes(StandardCharsets.UTF_8));
        }
        for (String n : NvidiaToolkitFiles.LIBRARIES) {
            files.put(dir + "/" + n, read(sourceDir.resolve(n)));
        }
        files.put(
                dir + "/" + RuntimeConfig.RELATIVE_PATH,
                new NvidiaRuntimeConfig(dir, driverRoot, ldconfig(), modes)
                        .render()
                        .getBytes(StandardCharsets.UTF_8));
        return files;
    }

    /** Where the runtime wrappers look for the loaded {@code nvidia} kernel module. */
    static final String PROC_MODULES = "/proc/modules";

    /**
     * The wrapper that runs {@code <name>.real} with the install dir's config ({@code
     * XDG_CONFIG_HOME}) and libraries ({@code LD_LIBRARY_PATH}).
     */
    static String realWrapper(String installDir, String name) {
        return realWrapper(installDir, name, PROC_MODULES);
    }

    /**
     * As {@link #realWrapper(String, String)}; a runtime ({@code nvidia-container-runtime}, {@code
     * .cdi}, {@code .legacy}) runs {@code runc} instead while {@code modulesFile} lists no {@code
     * nvidia} module, as upstream's wrappers do: containers without GPUs keep starting while the
     * driver is being installed. Silently: the shim parses what runc prints.
     */
    static String realWrapper(String installDir, String name, String modulesFile) {
        String dir = shellQuote(installDir);
        boolean runtime =
                name.startsWith("nvidia-container-runtime")
                        && !name.equals("nvidia-container-runtime-hook");
        return "#!/bin/sh\n"
                + "# installed by toolkit-agent: "
                + name
                + " with the config and libraries of its install dir\n"
                + (runtime
                        ? "# the nvidia kernel module not loaded yet (a driver installing): runc\n"
                                + "if ! grep -q '^nvidia ' "
                                + shellQuote(modulesFile)
                                + " 2>/dev/null; then\n"
                                + "  exec runc \"$@\"\n"
                                + "fi\n"
                        : "")
                + "LD_LIBRARY_PATH="
                + dir
                + "${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}\n"
                + "XDG_CONFIG_HOME="
                + dir
                + "/.config\n"
                + "export LD_LIBRARY_PATH XDG_CONFIG_HOME\n"
                + "exec "
                + dir
                + "/"
                + shellQuote(name + REAL_SUFFIX)
                + " \"$@\"\n";
    }

    /** The driver root's ldconfig ({@code ldconfig.real} where Debian/Ubuntu keep the binary). */
    private String ldconfig() {
        String base = driverRoot.equals("/") ? "" : driverRoot;
        String real = base + "/sbin/ldconfig.real";
        return Files.exists(onHost(real)) ? real : base + "/sbin/ldconfig";
    }

    /**
     * Where the simulated runtime's Java part comes from: copied into the install dir (the image's
     * small runtime), or referenced in place when {@code java.home} is a full JDK on a host (the
     * agent then runs as a host process, so its paths are the host's).
     *
     * @param java shell text of the java command in the wrapper
     * @param classpath shell text of the classpath
     * @param copied payload source → install dir path (host path), empty when referenced in place
     */
    record Placement(String java, String classpath, Map<Path, String> copied) {}

    private Placement placement;

    private Placement placement() {
        if (placement != null) {
            return placement;
        }
        RuntimePayload payload = sim.payload();
        long bytes = payload.javaHomeBytes();
        if (bytes > RuntimePayload.COPY_LIMIT_BYTES) {
            String cp = String.join(":", payload.classpath().stream().map(Path::toString).toList());
            placement =
                    new Placement(
                            shellQuote(payload.javaHome().resolve("bin/java").toString()),
                            shellQuote(cp),
                            Map.of());
            if (log != null) {
                log.info(
                        "simulated-runtime-java",
                        "mode",
                        "referenced-in-place",
                        "java-home",
                        payload.javaHome(),
                        "java-home-mb",
                        bytes / (1024 * 1024),
                        "why",
                        "over "
                                + RuntimePayload.COPY_LIMIT_BYTES / (1024 * 1024)
                                + " MB: a JDK on this host, not the image's runtime");
            }
            return placement;
        }
        Map<Path, String> copied = new LinkedHashMap<>();
        copied.put(payload.javaHome(), runtimes.installDir() + "/" + JRE_DIR);
        List<String> cp = new ArrayList<>();
        for (Path entry : payload.classpath()) {
            String name = entry.getFileName().toString();
            if (copied.containsValue(runtimes.installDir() + "/" + LIB_DIR + "/" + name)) {
                name = copied.size() + "-" + name; // two entries with one file name: keep both
            }
            copied.put(entry, runtimes.installDir() + "/" + LIB_DIR + "/" + name);
            cp.add("$dir/" + LIB_DIR + "/" + name);
        }
        placement =
                new Placement(
                        "\"$dir/" + JRE_DIR + "/bin/java\"",
                        "\"" + String.join(":", cp) + "\"",
                        copied);
        return placement;
    }

    static String shellQuote(String s) {
        return "'" + s.replace("'", "'\\''") + "'";
    }

    /**
     * Installs what differs; returns the host paths written (or removed, for a stale payload file).
     */
    public List<String> install() throws ConfigException {
        List<String> written = new ArrayList<>();
        if (simulated) {
            written.addAll(mirrorPayload());
        }
        for (Map.Entry<String, byte[]> f : desired().entrySet()) {
            Path target = onHost(f.getKey());
            // the runtime's config and the libraries are data; everything else here is run
            boolean executable = !f.getKey().endsWith(".toml") && !f.getKey().contains(".so.");
            try {
                if (Files.isRegularFile(target)
                        && Arrays.equals(Files.readAllBytes(target), f.getValue())
                        && Files.isExecutable(target) == executable) {
                    continue;
                }
                AtomicFiles.write(target, f.getValue());
                Files.setPosixFilePermissions(
                        target,
                        PosixFilePermissions.fromString(executable ? "rwxr-xr-x" : "rw-r--r--"));
                written.add(f.getKey());
            } catch (IOException e) {
                throw new ConfigException(target + ": cannot install: " + e.getMessage(), e);
            }
        }
        if (simulated && written.size() > 0) {
            // the JVM would notice a stale class data archive too; removing it keeps that off the
            // next create's path
            Path archive = onHost(runtimes.installDir() + "/" + CDS_ARCHIVE);
            try {
                if (Files.deleteIfExists(archive)) {
                    written.add(runtimes.installDir() + "/" + CDS_ARCHIVE);
                }
            } catch (IOException e) {
                throw new ConfigException(archive + ": cannot remove: " + e.getMessage(), e);
            }
        }
        return written;
    }

    private List<String> mirrorPayload() throws ConfigException {
        List<String> written = new ArrayList<>();
        Map<Path, String> copied = placement().copied();
        try {
            for (Map.Entry<Path, String> e : copied.entrySet()) {
                for (Path p : PayloadMirror.mirror(e.getKey(), onHost(e.getValue()))) {
                    written.add("/" + hostRoot.relativize(p));
                }
            }
            if (!copied.isEmpty()) {
                // jars no longer on the classpath (an older version) must not stay in lib/
                Path lib = onHost(runtimes.installDir() + "/" + LIB_DIR);
                Set<Path> keep = new HashSet<>();
                copied.values().forEach(v -> keep.add(onHost(v)));
                try (Stream<Path> s = Files.list(lib)) {
                    for (Path stale : s.filter(p -> !keep.contains(p)).toList()) {
                        PayloadMirror.deleteTree(stale);
                        written.add("/" + hostRoot.relativize(stale));
                    }
                }
            }
        } catch (IOException e) {
            throw new ConfigException(
                    runtimes.installDir()
                            + ": cannot install the simulated runtime's Java part: "
                            + e.getMessage(),
                    e);
        }
        return written;
    }

    /** Every runtime binary is in place and executable. */
    public void verify() throws ConfigException {
        for (String p : runtimes.binaries().values()) {
            if (!Files.isExecutable(onHost(p))) {
                throw new ConfigException(onHost(p) + ": runtime binary missing or not executable");
            }
        }
    }

    private Path onHost(String hostPath) {
        return hostRoot.resolve(hostPath.substring(1));
    }

    private static byte[] read(Path p) throws ConfigException {
        try {
            return Files.readAllBytes(p);
        } catch (IOException e) {
            throw new ConfigException(p + ": cannot read: " + e.getMessage(), e);
        }
    }
}
