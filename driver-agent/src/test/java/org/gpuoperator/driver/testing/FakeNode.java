package org.gpuoperator.driver.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;
import org.gpuoperator.driver.host.CommandResult;
import org.gpuoperator.driver.host.HostRoot;
import org.gpuoperator.driver.host.LoadedModules;
import org.gpuoperator.driver.install.DriverConfig;
import org.gpuoperator.node.agent.EventLog;

/**
 * A fake host root in a temp dir plus a {@link RecordingHostCommands} scripted like a small kernel:
 * insmod adds to {@code proc/modules} (and, for nvidia, writes {@code proc/driver/nvidia}), rmmod
 * removes, make writes module files for the headers' kernel. Tests override single commands to make
 * them fail.
 */
public final class FakeNode {

    public static final String VERSION = "550.54.15";

    public final Path root;
    public final HostRoot host;
    public final RecordingHostCommands commands = new RecordingHostCommands();
    public final Path install;
    public final Path pkg;
    public final Path driverRootDir;
    public final Path pidFile;
    public final int gpus;
    public String kernel;

    /** The version insmod of nvidia.ko reports in /proc (the package's). */
    public String moduleVersion = VERSION;

    public final java.io.ByteArrayOutputStream logBytes = new java.io.ByteArrayOutputStream();
    public final EventLog log =
            new EventLog("driver-agent", new java.io.PrintStream(logBytes, true));

    public FakeNode(Path tmp, String kernel, int gpus) {
        this.root = tmp.resolve("host");
        this.host = new HostRoot(root);
        this.kernel = kernel;
        this.gpus = gpus;
        this.install = tmp.resolve("image");
        this.pkg = install.resolve("usr/src/nvidia-" + VERSION);
        this.driverRootDir = root.resolve("run/nvidia/driver");
        this.pidFile = tmp.resolve("image/var/run/nvidia-persistenced/nvidia-persistenced.pid");
        write(pkg.resolve("kernel/Makefile"), "all:\n");
        script();
    }

    public DriverConfig config(boolean peermem) {
        return new DriverConfig(host, install, pkg, VERSION, driverRootDir, pidFile, peermem, 0, 2);
    }

    public String log() {
        return logBytes.toString();
    }

    /** Module files in {@code dir} whose vermagic says they were built for {@code builtFor}. */
    public void modules(Path dir, String builtFor) {
        for (String m :
                List.of("nvidia", "nvidia-uvm", "nvidia-modeset", "nvidia-drm", "nvidia-peermem")) {
            write(
                    dir.resolve(m + ".ko"),
                    "vermagic=" + builtFor + " SMP preempt mod_unload modversions\n");
        }
    }

    public Path headers() {
        Path h = root.resolve("usr/src/linux-headers-" + kernel);
        write(h.resolve("Makefile"), "# headers\n");
        return h;
    }

    /** A driver already loaded, as after an earlier run (or a host driver). */
    public void loaded(String version, String... modules) {
        for (String m : modules) {
            appendModule(LoadedModules.kernelName(m));
        }
        nvidiaProc(version);
    }

    /** A process with {@code device} open. */
    public void process(long pid, String comm, String device) {
        write(root.resolve("proc/" + pid + "/comm"), comm + "\n");
        try {
            Files.createDirectories(root.resolve("proc/" + pid + "/fd"));
            Files.createSymbolicLink(root.resolve("proc/" + pid + "/fd/3"), Path.of(device));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public void hostNvidiaSmi() {
        Path smi = root.resolve("usr/bin/nvidia-smi");
        write(smi, "#!/bin/sh\n");
        try {
            Files.setPosixFilePermissions(smi, PosixFilePermissions.fromString("rwxr-xr-x"));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void script() {
        commands.on(List.of("uname", "-r"), argv -> CommandResult.ok(argv, kernel + "\n"));
        commands.on(
                List.of("modinfo"),
                argv -> {
                    Path f = Path.of(argv.getLast());
                    String text = read(f);
                    return text == null
                            ? CommandResult.failed(
                                    argv, 1, "modinfo: ERROR: Module " + f + " not found.")
                            : CommandResult.ok(argv, text.replaceFirst("^vermagic=", ""));
                });
        commands.on(
                List.of("make"),
                argv -> {
                    Path dir = Path.of(argv.get(argv.indexOf("-C") + 1));
                    if (argv.getLast().equals("clean")) {
                        deleteKo(dir);
                    } else {
                        String sysout =
                                argv.stream()
                                        .filter(a -> a.startsWith("SYSOUT="))
                                        .findFirst()
                                        .orElseThrow();
                        modules(
                                dir,
                                Path.of(sysout.substring(7))
                                        .getFileName()
                                        .toString()
                                        .replace("linux-headers-", ""));
                    }
                    return CommandResult.ok(argv, "");
                });
        commands.on(
                List.of("insmod"),
                argv -> {
                    String name =
                            LoadedModules.kernelName(
                                    Path.of(argv.get(1))
                                            .getFileName()
                                            .toString()
                                            .replace(".ko", ""));
                    appendModule(name);
                    if (name.equals("nvidia")) {
                        nvidiaProc(moduleVersion);
                    }
                    return CommandResult.ok(argv, "");
                });
        commands.ok("", "modprobe");
        commands.on(
                List.of("rmmod"),
                argv -> {
                    String text = read(root.resolve("proc/modules"));
                    StringBuilder sb = new StringBuilder();
                    for (String line : text.split("\n")) {
                        if (!line.isBlank() && !line.startsWith(argv.get(1) + " ")) {
                            sb.append(line).append('\n');
                        }
                    }
                    write(root.resolve("proc/modules"), sb.toString());
                    return CommandResult.ok(argv, "");
                });
        commands.on(
                List.of("mknod"),
                argv -> {
                    write(Path.of(argv.get(3)), "c " + argv.get(5) + ":" + argv.get(6) + "\n");
                    return CommandResult.ok(argv, "");
                });
        commands.on(
                List.of("nvidia-persistenced"),
                argv -> {
                    write(pidFile, "777\n");
                    write(root.resolve("proc/777/comm"), "nvidia-persistenced\n");
                    return CommandResult.ok(argv, "");
                });
        commands.on(
                List.of("kill"),
                argv -> {
                    deleteTree(root.resolve("proc/" + argv.getLast()));
                    return CommandResult.ok(argv, "");
                });
        commands.fail(32, "", "mountpoint");
        commands.ok("", "mount");
    }

    private void appendModule(String name) {
        String current = read(root.resolve("proc/modules"));
        write(
                root.resolve("proc/modules"),
                (current == null ? "" : current) + name + " 1048576 0 - Live 0x0\n");
    }

    private void nvidiaProc(String version) {
        write(
                root.resolve("proc/driver/nvidia/version"),
                "NVRM version: NVIDIA UNIX x86_64 Kernel Module  "
                        + version
                        + "  Tue Mar  5 22:23:56 UTC 2024\n");
        for (int i = 0; i < gpus; i++) {
            write(
                    root.resolve(
                            String.format(
                                    Locale.ROOT,
                                    "proc/driver/nvidia/gpus/0000:%02x:00.0/information",
                                    0x18 + 0x10 * i)),
                    "Model: \t\t NVIDIA L4\nDevice Minor: \t " + i + "\n");
        }
        write(
                root.resolve("proc/devices"),
                "Character devices:\n  1 mem\n195 nvidia\n195 nvidiactl\n"
                        + "509 nvidia-uvm\n\nBlock devices:\n  7 loop\n");
    }

    public static void write(Path file, String content) {
        try {
            Files.createDirectories(file.getParent());
            Files.writeString(file, content);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static String read(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            return null;
        }
    }

    private static void deleteKo(Path dir) {
        try (Stream<Path> s = Files.list(dir)) {
            for (Path ko : s.filter(e -> e.toString().endsWith(".ko")).toList()) {
                Files.delete(ko);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public static void deleteTree(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> s = Files.walk(dir)) {
            List<Path> all = new ArrayList<>(s.toList());
            all.sort(Comparator.reverseOrder());
            for (Path p : all) {
                Files.delete(p);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
