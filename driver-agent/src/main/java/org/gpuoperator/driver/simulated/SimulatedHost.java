package org.gpuoperator.driver.simulated;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;
import org.gpuoperator.driver.host.CommandResult;
import org.gpuoperator.driver.host.GpuHolders;
import org.gpuoperator.driver.host.HostCommands;
import org.gpuoperator.driver.host.HostRoot;
import org.gpuoperator.driver.host.LoadedModules;
import org.gpuoperator.driver.host.NvidiaProcFs;
import org.gpuoperator.driver.install.DriverConfig;
import org.gpuoperator.driver.install.KernelModules;
import org.gpuoperator.node.inventory.simulated.SimulatedDriverFiles;

/**
 * A node for simulated GPUs: the host commands the driver agent runs, emulated on files under the
 * node's host root. The agent runs its real code path against it; what changes on "the kernel"
 * shows up where the real kernel shows it ({@code /proc/modules}, {@code /proc/driver/nvidia},
 * {@code /proc/devices}, {@code /dev/nvidia*}), so the same readers work on both.
 *
 * <ul>
 *   <li>Kernel release: {@code <host-root>/proc/sys/kernel/osrelease}, else {@value
 *       #DEFAULT_KERNEL}; rewrite that file and restart the agent to simulate a kernel update.
 *   <li>Module files are text ({@code vermagic=...}, {@code version=...}); {@code insmod} refuses
 *       one built for another kernel, as the real one does ("Invalid module format").
 *   <li>Device files are regular files holding {@code c major:minor}; a bind mount is a relative
 *       symlink.
 *   <li>Processes are directories {@code <host-root>/proc/<pid>} with {@code comm} and {@code fd/}
 *       links; create one whose fd links to {@code /dev/nvidia0} to simulate a GPU workload that
 *       blocks an unload.
 * </ul>
 */
public final class SimulatedHost implements HostCommands {

    public static final String DEFAULT_KERNEL = "6.8.0-sim";

    /**
     * The simulated driver image (the container's root in a real driver pod), under the host root.
     */
    public static final String IMAGE_DIR = "/var/lib/driver-agent-sim/image";

    static final int FIRST_PID = 30000;
    static final int UVM_MAJOR = 510;
    static final int CAPS_MAJOR = 511;

    private final HostRoot host;
    private final DriverConfig config;
    private final int gpuCount;
    private final NvidiaProcFs proc;

    /**
     * @param config the agent's configuration (package and install root live under the host root)
     * @param gpuCount GPUs the simulated kernel module binds (the profile's count)
     */
    public SimulatedHost(DriverConfig config, int gpuCount) {
        this.host = config.host();
        this.config = config;
        this.gpuCount = gpuCount;
        this.proc = new NvidiaProcFs(host);
    }

    /**
     * Lays out what a real node and driver image would already have: the driver package (module
     * sources), nvidia-smi, stand-in libraries ({@link SimulatedDriverFiles}) and the version file
     * in the driver image, and kernel headers for the running kernel. Leaves what exists alone.
     */
    public void prepare() {
        try {
            writeIfAbsent(
                    config.moduleSources().resolve("Makefile"),
                    "# simulated NVIDIA kernel module sources\n");
            Path smi = config.installRoot().resolve("usr/bin/nvidia-smi");
            if (writeIfAbsent(
                    smi,
                    "#!/bin/sh\necho \"NVIDIA-SMI (simulated)  Driver Version: "
                            + config.driverVersion()
                            + "\"\n")) {
                Files.setPosixFilePermissions(smi, PosixFilePermissions.fromString("rwxr-xr-x"));
            }
            // empty stand-ins with the real names, so CDI spec generation lists them
            SimulatedDriverFiles.layDown(config.installRoot(), config.driverVersion());
            writeIfAbsent(
                    config.installRoot().resolve("proc/driver/nvidia/version"),
                    versionText(config.driverVersion(), config.openModules()));
            Path headers = host.path("/usr/src/linux-headers-" + kernel());
            writeIfAbsent(headers.resolve("include/config/kernel.release"), kernel() + "\n");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot prepare the simulated host under " + host, e);
        }
    }

    /** The running kernel's release. */
    public String kernel() {
        try {
            String k = Files.readString(host.path("/proc/sys/kernel/osrelease")).trim();
            return k.isEmpty() ? DEFAULT_KERNEL : k;
        } catch (IOException e) {
            return DEFAULT_KERNEL;
        }
    }

    /**
     * Simulates a reboot into {@code kernel}: everything the kernel and tmpfs held is gone (loaded
     * modules, {@code /proc/driver/nvidia}, device nodes, processes, the driver root mount); files
     * on disk stay.
     */
    public synchronized void reboot(String kernel) {
        try {
            for (String file : List.of(NvidiaProcFs.MODULES_FILE, NvidiaProcFs.DEVICES_FILE)) {
                Files.deleteIfExists(host.path(file));
            }
            deleteTree(host.path("/proc/driver/nvidia"));
            if (Files.isDirectory(host.path("/proc"))) {
                try (Stream<Path> s = Files.list(host.path("/proc"))) {
                    for (Path pid :
                            s.filter(e -> e.getFileName().toString().matches("\\d+")).toList()) {
                        deleteTree(pid);
                    }
                }
            }
            if (Files.isDirectory(host.path("/dev"))) {
                try (Stream<Path> s = Files.list(host.path("/dev"))) {
                    for (Path dev :
                            s.filter(e -> e.getFileName().toString().startsWith("nvidia"))
                                    .toList()) {
                        Files.delete(dev);
                    }
                }
            }
            if (Files.isSymbolicLink(config.driverRootDir())) {
                Files.delete(config.driverRootDir());
            }
            Files.deleteIfExists(config.persistencedPidFile());
            write(host.path("/proc/sys/kernel/osrelease"), kernel + "\n");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot reboot the simulated host " + host, e);
        }
    }

    @Override
    public synchronized CommandResult run(List<String> argv, Duration timeout) {
        try {
            return switch (argv.getFirst()) {
                case "uname" -> ok(argv, argv.contains("-r") ? kernel() + "\n" : "Linux\n");
                case "modinfo" -> modinfo(argv);
                case "make" -> make(argv);
                case "insmod" -> insmod(argv);
                case "modprobe" -> modprobe(argv);
                case "rmmod" -> rmmod(argv);
                case "mknod" -> mknod(argv);
                case "mountpoint" ->
                        new CommandResult(
                                argv,
                                Files.isSymbolicLink(Path.of(argv.getLast())) ? 0 : 32,
                                "",
                                "",
                                false,
                                Duration.ZERO);
                case "mount" -> mount(argv);
                case "nvidia-persistenced" -> persistenced(argv);
                case "kill" -> kill(argv);
                case "chroot" -> nvidiaSmi(argv, Path.of(argv.get(1)), argv.get(2));
                default ->
                        argv.getFirst().endsWith("nvidia-smi")
                                ? nvidiaSmi(argv, host.root(), argv.getFirst())
                                : fail(
                                        argv,
                                        CommandResult.NOT_STARTED,
                                        "cannot run "
                                                + argv.getFirst()
                                                + ": the simulated host has no such command");
            };
        } catch (IOException e) {
            return fail(argv, 1, argv.getFirst() + ": " + e);
        }
    }

    private CommandResult modinfo(List<String> argv) throws IOException {
        Path file = Path.of(argv.getLast());
        if (!Files.isRegularFile(file)) {
            return fail(argv, 1, "modinfo: ERROR: Module " + file + " not found.");
        }
        String field = argv.indexOf("-F") >= 0 ? argv.get(argv.indexOf("-F") + 1) : "version";
        return ok(argv, moduleInfo(file).getOrDefault(field, "") + "\n");
    }

    private CommandResult make(List<String> argv) throws IOException {
        Path dir = Path.of(argv.get(argv.indexOf("-C") + 1));
        String sysout = null; // the kernel's output tree names the release
        List<String> targets = new ArrayList<>();
        for (String a : argv.subList(1, argv.size())) {
            if (a.startsWith("SYSOUT=")) {
                sysout = a.substring("SYSOUT=".length());
            } else if (a.startsWith("SYSSRC=")) {
                continue;
            } else if (!a.startsWith("-") && !a.contains("=") && !a.equals(dir.toString())) {
                targets.add(a);
            }
        }
        if (!Files.isRegularFile(dir.resolve("Makefile"))) {
            return fail(argv, 2, "make: *** No targets specified and no makefile found.  Stop.");
        }
        if (targets.contains("clean")) {
            for (String m : allModules()) {
                Files.deleteIfExists(dir.resolve(KernelModules.fileName(m)));
            }
        }
        if (targets.contains("modules")) {
            Path headers = sysout == null ? null : Path.of(sysout);
            if (headers == null || !Files.isDirectory(headers)) {
                return fail(
                        argv, 2, "make[1]: *** " + sysout + ": No such file or directory.  Stop.");
            }
            Path release = headers.resolve("include/config/kernel.release");
            String kernel =
                    Files.isRegularFile(release)
                            ? Files.readString(release).trim()
                            : headers.getFileName().toString().replaceFirst("^linux-headers-", "");
            for (String m : allModules()) {
                Files.writeString(
                        dir.resolve(KernelModules.fileName(m)),
                        "vermagic="
                                + kernel
                                + " SMP preempt mod_unload modversions\nversion="
                                + config.driverVersion()
                                + "\n");
            }
        }
        return ok(argv, "");
    }

    private CommandResult insmod(List<String> argv) throws IOException {
        Path file = Path.of(argv.get(1));
        String err = "insmod: ERROR: could not insert module " + file + ": ";
        if (!Files.isRegularFile(file)) {
            return fail(argv, 1, err + "No such file or directory");
        }
        Map<String, String> info = moduleInfo(file);
        String builtFor = info.getOrDefault("vermagic", "").split("\\s+")[0];
        if (!builtFor.equals(kernel())) {
            return fail(argv, 1, err + "Invalid module format");
        }
        String name =
                LoadedModules.kernelName(file.getFileName().toString().replaceFirst("\\.ko$", ""));
        Map<String, List<String>> modules = modules();
        if (modules.containsKey(name)) {
            return fail(argv, 1, err + "File exists");
        }
        List<String> deps =
                name.equals("nvidia")
                        ? List.of()
                        : name.equals("nvidia_peermem")
                                ? List.of("nvidia", "ib_core")
                                : List.of("nvidia");
        for (String dep : deps) {
            if (!modules.containsKey(dep)) {
                return fail(argv, 1, err + "Unknown symbol in module");
            }
            modules.get(dep).add(name);
        }
        modules.put(name, new ArrayList<>());
        writeModules(modules);
        if (name.equals("nvidia")) {
            String version = info.getOrDefault("version", config.driverVersion());
            write(host.path(NvidiaProcFs.VERSION_FILE), versionText(version, config.openModules()));
            for (int i = 0; i < gpuCount; i++) {
                // The bus ids the simulated GPU inventory reports, in the kernel's lower-case form.
                String bus = String.format(Locale.ROOT, "0000:%02x:00.0", 0x18 + i * 0x10);
                write(
                        host.path(NvidiaProcFs.GPUS_DIR + "/" + bus + "/information"),
                        "Model: \t\t Simulated GPU\nBus Location: \t "
                                + bus
                                + "\nDevice Minor: \t "
                                + i
                                + "\n");
            }
            addDevice(195, "nvidia");
            addDevice(195, "nvidiactl");
            addDevice(CAPS_MAJOR, "nvidia-caps"); // MIG capabilities, as the real module registers
        } else if (name.equals("nvidia_uvm")) {
            addDevice(UVM_MAJOR, "nvidia-uvm");
        }
        return ok(argv, "");
    }

    private CommandResult modprobe(List<String> argv) throws IOException {
        String name = LoadedModules.kernelName(argv.getLast());
        Map<String, List<String>> modules = modules();
        modules.putIfAbsent(name, new ArrayList<>());
        writeModules(modules);
        return ok(argv, "");
    }

    private CommandResult rmmod(List<String> argv) throws IOException {
        String name = LoadedModules.kernelName(argv.getLast());
        Map<String, List<String>> modules = modules();
        if (!modules.containsKey(name)) {
            return fail(argv, 1, "rmmod: ERROR: Module " + name + " is not currently loaded");
        }
        if (!modules.get(name).isEmpty()) {
            return fail(
                    argv,
                    1,
                    "rmmod: ERROR: Module "
                            + name
                            + " is in use by: "
                            + String.join(" ", modules.get(name)));
        }
        if (name.equals("nvidia") && !new GpuHolders(host).scan(java.util.Set.of()).isEmpty()) {
            return fail(argv, 1, "rmmod: ERROR: Module nvidia is in use");
        }
        modules.remove(name);
        modules.values().forEach(users -> users.remove(name));
        writeModules(modules);
        if (name.equals("nvidia")) {
            deleteTree(host.path("/proc/driver/nvidia"));
            removeDevices("nvidia", "nvidiactl", "nvidia-caps");
        } else if (name.equals("nvidia_uvm")) {
            removeDevices("nvidia-uvm");
        }
        return ok(argv, "");
    }

    private CommandResult mknod(List<String> argv) throws IOException {
        // mknod -m MODE PATH c MAJOR MINOR
        Path path = Path.of(argv.get(3));
        if (Files.exists(path, LinkOption.NOFOLLOW_LINKS)) {
            return fail(argv, 1, "mknod: " + path + ": File exists");
        }
        write(path, "c " + argv.get(5) + ":" + argv.get(6) + "\n");
        return ok(argv, "");
    }

    private CommandResult mount(List<String> argv) throws IOException {
        Path source = Path.of(argv.get(argv.size() - 2));
        Path target = Path.of(argv.getLast());
        if (Files.isDirectory(target, LinkOption.NOFOLLOW_LINKS)) {
            try (Stream<Path> s = Files.list(target)) {
                if (s.findAny().isPresent()) {
                    return fail(
                            argv,
                            32,
                            "mount: " + target + ": simulated bind mount needs an empty directory");
                }
            }
            Files.delete(target);
        }
        Files.createDirectories(target.getParent());
        Files.createSymbolicLink(target, bindLink(source, target));
        return ok(argv, "");
    }

    /**
     * The symlink a simulated bind mount of {@code source} at {@code target} points with: relative,
     * so that it resolves wherever the host root is seen from (the agent's {@code /host}, a
     * process-mode host root directory, or {@code /} in the node's own mount namespace, where
     * containerd and the runtime run).
     */
    static Path bindLink(Path source, Path target) {
        return target.toAbsolutePath()
                .normalize()
                .getParent()
                .relativize(source.toAbsolutePath().normalize());
    }

    private CommandResult persistenced(List<String> argv) throws IOException {
        if (!modules().containsKey("nvidia") || !Files.exists(host.path("/dev/nvidiactl"))) {
            return fail(
                    argv,
                    1,
                    "nvidia-persistenced failed to initialize. Check syslog for more details.");
        }
        int pid = FIRST_PID;
        while (Files.exists(host.path("/proc/" + pid))) {
            pid++;
        }
        Path dir = host.path("/proc/" + pid);
        write(dir.resolve("comm"), "nvidia-persistenced\n");
        Files.createDirectories(dir.resolve("fd"));
        Files.createSymbolicLink(dir.resolve("fd/3"), Path.of("/dev/nvidiactl"));
        for (int i = 0; i < gpuCount; i++) {
            Files.createSymbolicLink(dir.resolve("fd/" + (4 + i)), Path.of("/dev/nvidia" + i));
        }
        write(config.persistencedPidFile(), pid + "\n");
        return ok(argv, "");
    }

    private CommandResult kill(List<String> argv) throws IOException {
        Path dir = host.path("/proc/" + argv.getLast());
        if (!Files.isDirectory(dir)) {
            return fail(argv, 1, "kill: (" + argv.getLast() + ") - No such process");
        }
        deleteTree(dir);
        return ok(argv, "");
    }

    private CommandResult nvidiaSmi(List<String> argv, Path root, String smi) {
        Path binary = root.resolve(smi.startsWith("/") ? smi.substring(1) : smi);
        if (!Files.isExecutable(binary)) {
            return fail(
                    argv,
                    CommandResult.NOT_STARTED,
                    "chroot: failed to run command '" + smi + "': No such file or directory");
        }
        if (proc.loadedDriverVersion().isEmpty()) {
            return fail(
                    argv,
                    9,
                    "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. "
                            + "Make sure that the latest NVIDIA driver is installed and running.");
        }
        return ok(
                argv,
                "NVIDIA-SMI (simulated)  Driver Version: "
                        + proc.loadedDriverVersion().get()
                        + "  GPUs: "
                        + proc.kernelGpus().size()
                        + "\n");
    }

    // --- the simulated kernel's files

    private Map<String, List<String>> modules() {
        Map<String, List<String>> out = new LinkedHashMap<>();
        proc.loadedModules()
                .byName()
                .values()
                .forEach(m -> out.put(m.name(), new ArrayList<>(m.usedBy())));
        return out;
    }

    private void writeModules(Map<String, List<String>> modules) throws IOException {
        StringBuilder sb = new StringBuilder();
        modules.forEach(
                (name, users) ->
                        sb.append(name)
                                .append(" 1048576 ")
                                .append(users.size())
                                .append(' ')
                                .append(users.isEmpty() ? "-" : String.join(",", users) + ",")
                                .append(" Live 0x0000000000000000\n"));
        write(host.path(NvidiaProcFs.MODULES_FILE), sb.toString());
    }

    private void addDevice(int major, String name) throws IOException {
        Map<String, Integer> majors = new HashMap<>(proc.characterMajors());
        majors.putIfAbsent(name, major);
        writeDevices(majors);
    }

    private void removeDevices(String... names) throws IOException {
        Map<String, Integer> majors = new HashMap<>(proc.characterMajors());
        for (String n : names) {
            majors.remove(n);
        }
        writeDevices(majors);
    }

    private void writeDevices(Map<String, Integer> majors) throws IOException {
        StringBuilder sb = new StringBuilder("Character devices:\n  1 mem\n");
        majors.entrySet().stream()
                .filter(e -> e.getValue() != 1)
                .sorted(
                        Map.Entry.<String, Integer>comparingByValue()
                                .thenComparing(Map.Entry.comparingByKey()))
                .forEach(
                        e ->
                                sb.append(
                                        String.format(
                                                Locale.ROOT,
                                                "%3d %s%n",
                                                e.getValue(),
                                                e.getKey())));
        sb.append("\nBlock devices:\n  7 loop\n");
        write(host.path(NvidiaProcFs.DEVICES_FILE), sb.toString());
    }

    private static Map<String, String> moduleInfo(Path file) throws IOException {
        Map<String, String> out = new HashMap<>();
        for (String line : Files.readAllLines(file)) {
            int eq = line.indexOf('=');
            if (eq > 0) {
                out.put(line.substring(0, eq), line.substring(eq + 1));
            }
        }
        return out;
    }

    /** The kernel's banner, as each flavour of the real modules writes it. */
    static String versionText(String version, boolean open) {
        return (open
                        ? "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  "
                        : "NVRM version: NVIDIA UNIX x86_64 Kernel Module  ")
                + version
                + "  (simulated)\n"
                + "GCC version:  gcc version 12.2.0 (Debian 12.2.0-14)\n";
    }

    private static List<String> allModules() {
        return List.of(
                KernelModules.NVIDIA,
                KernelModules.UVM,
                KernelModules.MODESET,
                KernelModules.DRM,
                KernelModules.PEERMEM);
    }

    private static CommandResult ok(List<String> argv, String out) {
        return CommandResult.ok(argv, out);
    }

    private static CommandResult fail(List<String> argv, int code, String err) {
        return CommandResult.failed(argv, code, err + "\n");
    }

    private static void write(Path file, String content) throws IOException {
        Files.createDirectories(file.getParent());
        Files.writeString(file, content);
    }

    private static boolean writeIfAbsent(Path file, String content) throws IOException {
        if (Files.exists(file)) {
            return false;
        }
        write(file, content);
        return true;
    }

    private static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
