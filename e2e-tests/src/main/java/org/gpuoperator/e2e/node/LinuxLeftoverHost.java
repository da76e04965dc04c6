package org.gpuoperator.e2e.node;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;

/** {@link LeftoverHost} on this Linux machine: {@code /proc}, {@code /sys/class/net}, and tools. */
public final class LinuxLeftoverHost implements LeftoverHost {

    private static final Path PROC = Path.of("/proc");
    private static final Path SYS_NET = Path.of("/sys/class/net");

    private final List<AutoCloseable> claimed = new ArrayList<>();

    @Override
    public LeftoverRuns.Snapshot snapshot() throws IOException {
        List<LeftoverRuns.Proc> processes = processes();
        List<LeftoverRuns.RunDir> dirs = new ArrayList<>();
        try (DirectoryStream<Path> s =
                Files.newDirectoryStream(LeftoverRuns.TMP, LeftoverRuns.PREFIX + "*")) {
            for (Path d : s) {
                if (Files.isDirectory(d, LinkOption.NOFOLLOW_LINKS)
                        && !d.getFileName().toString().equals("gpuop-cni-sim")) {
                    RunOwner owner = RunOwner.of(d).orElse(null);
                    dirs.add(new LeftoverRuns.RunDir(d, owner, owner != null && alive(owner)));
                }
            }
        }
        List<LeftoverRuns.Link> links = new ArrayList<>();
        Set<Integer> idle = new TreeSet<>();
        try (DirectoryStream<Path> s = Files.newDirectoryStream(SYS_NET)) {
            for (Path l : s) {
                String name = l.getFileName().toString();
                boolean bridge = Files.isDirectory(l.resolve("bridge"));
                Path master = l.resolve("master");
                String masterName =
                        Files.isSymbolicLink(master)
                                ? Files.readSymbolicLink(master).getFileName().toString()
                                : null;
                links.add(new LeftoverRuns.Link(name, bridge, masterName));
                Matcher m = NodeNetwork.BRIDGE.matcher(name);
                if (bridge && m.matches()) {
                    int index = Integer.parseInt(m.group(1));
                    NodeNetwork.claimIdle(index)
                            .ifPresent(
                                    lock -> {
                                        claimed.add(lock);
                                        idle.add(index);
                                    });
                }
            }
        }
        return new LeftoverRuns.Snapshot(processes, dirs, links, mountPoints(), idle);
    }

    private static List<LeftoverRuns.Proc> processes() throws IOException {
        List<LeftoverRuns.Proc> out = new ArrayList<>();
        try (DirectoryStream<Path> s = Files.newDirectoryStream(PROC, "[0-9]*")) {
            for (Path p : s) {
                long pid = Long.parseLong(p.getFileName().toString());
                try {
                    String stat = Files.readString(p.resolve("stat"));
                    String[] after = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                    if (after[0].equals("Z")) {
                        continue; // a zombie: nothing left to kill
                    }
                    long ppid = Long.parseLong(after[1]);
                    List<String> argv = nulSeparated(Files.readAllBytes(p.resolve("cmdline")));
                    String kubeconfig = null;
                    if (argv.contains("-jar")) {
                        kubeconfig = env(p, "KUBECONFIG");
                    }
                    out.add(new LeftoverRuns.Proc(pid, ppid, argv, kubeconfig));
                } catch (IOException | RuntimeException e) {
                    // gone meanwhile, or not ours to read
                }
            }
        }
        return out;
    }

    private static String env(Path proc, String name) {
        try {
            for (String kv : nulSeparated(Files.readAllBytes(proc.resolve("environ")))) {
                if (kv.startsWith(name + "=")) {
                    return kv.substring(name.length() + 1);
                }
            }
        } catch (IOException e) {
            // another user's process
        }
        return null;
    }

    private static List<String> nulSeparated(byte[] bytes) {
        String s = new String(bytes, StandardCharsets.UTF_8);
        if (s.isEmpty()) {
            return List.of();
        }
        return Arrays.asList(s.split("\0"));
    }

    private static boolean alive(RunOwner owner) {
        return owner.alive() && !zombie(owner.pid());
    }

    private static boolean zombie(long pid) {
        try {
            String stat = Files.readString(PROC.resolve(Long.toString(pid)).resolve("stat"));
            return stat.substring(stat.lastIndexOf(')') + 2).startsWith("Z");
        } catch (IOException | RuntimeException e) {
            return true; // gone
        }
    }

    @Override
    public boolean kill(long pid) {
        return ProcessHandle.of(pid).map(ProcessHandle::destroyForcibly).orElse(false);
    }

    @Override
    public boolean gone(long pid) {
        return zombie(pid);
    }

    @Override
    public List<Path> mountPoints() throws IOException {
        List<Path> out = new ArrayList<>();
        for (String line : Files.readAllLines(PROC.resolve("self/mountinfo"))) {
            String[] f = line.split(" ");
            if (f.length > 4) {
                out.add(Path.of(unescape(f[4])));
            }
        }
        return out;
    }

    /** mountinfo writes space, tab, newline and backslash as octal escapes. */
    static String unescape(String s) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '\\' && i + 3 < s.length() && s.substring(i + 1, i + 4).matches("[0-7]{3}")) {
                b.append((char) Integer.parseInt(s.substring(i + 1, i + 4), 8));
                i += 3;
            } else {
                b.append(c);
            }
        }
        return b.toString();
    }

    @Override
    public void unmount(Path mountPoint) throws IOException {
        // lazy: a namespace file whose namespace still has a process is detached all the same
        try {
            run(List.of("umount", "--lazy", mountPoint.toString()));
        } catch (IOException e) {
            if (mountPoints().contains(mountPoint)) {
                throw e;
            } // another run's clean-up, starting at the same time, was first
        }
    }

    @Override
    public void deleteLink(String name) throws IOException {
        if (Files.exists(SYS_NET.resolve(name))) {
            try {
                run(List.of("ip", "link", "delete", name));
            } catch (IOException e) {
                if (Files.exists(SYS_NET.resolve(name))) {
                    throw e;
                }
            }
        }
    }

    @Override
    public void deleteDir(Path dir) throws IOException {
        if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
            return; // another run's clean-up was first
        }
        Files.walkFileTree(
                dir,
                new SimpleFileVisitor<>() {
                    @Override
                    public FileVisitResult visitFile(Path file, BasicFileAttributes attrs)
                            throws IOException {
                        Files.deleteIfExists(file);
                        return FileVisitResult.CONTINUE;
                    }

                    @Override
                    public FileVisitResult visitFileFailed(Path file, IOException e)
                            throws IOException {
                        Files.deleteIfExists(file);
                        return FileVisitResult.CONTINUE;
                    }

                    @Override
                    public FileVisitResult postVisitDirectory(Path d, IOException e)
                            throws IOException {
                        Files.deleteIfExists(d);
                        return FileVisitResult.CONTINUE;
                    }
                });
    }

    @Override
    public boolean privileged() {
        return "root".equals(System.getProperty("user.name"));
    }

    @Override
    public void release() {
        for (AutoCloseable c : claimed) {
            try {
                c.close();
            } catch (Exception e) {
                // the lock goes with the process anyway
            }
        }
        claimed.clear();
    }

    private static void run(List<String> cmd) throws IOException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        try {
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(30, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException("did not finish within 30 s");
            }
            if (p.exitValue() != 0) {
                throw new IOException(out.isBlank() ? "exit " + p.exitValue() : out.strip());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
    }
}
