package org.gpuoperator.e2e.node;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What simulated clusters whose process is gone (a {@code kill -9}, a crash) left on this machine,
 * decided from a {@link Snapshot} of it: their containerd daemons, shims and the containers under
 * them, agent processes, CNI bridges and veths, mounts under their work dirs (the node mount
 * namespaces kept in {@code <work dir>/<node>.mnt}) and the work dirs themselves. Nothing of a run
 * whose owner ({@link RunOwner}) still runs is touched, nor a work dir without an owner record.
 */
public final class LeftoverRuns {

    private LeftoverRuns() {}

    /** The prefix of every simulated cluster's work dir ({@code /tmp/gpuop-<random>}). */
    public static final Path TMP = Path.of("/tmp");

    public static final String PREFIX = "gpuop-";

    /** A work dir path inside an argument or an env value: {@code /tmp/gpuop-<name>/...}. */
    private static final Pattern WORK_DIR_IN = Pattern.compile("/tmp/(gpuop-[^/\\s]+)/");

    /**
     * A process: argv as in {@code /proc/<pid>/cmdline}, and its {@code KUBECONFIG} (agents run as
     * host processes point it into their work dir), or null.
     */
    public record Proc(long pid, long ppid, List<String> argv, String kubeconfig) {}

    /**
     * A {@code /tmp/gpuop-*} directory, its recorded owner (null when none) and whether that owner
     * still runs.
     */
    public record RunDir(Path dir, RunOwner owner, boolean ownerAlive) {}

    /** A network link, whether it is a bridge, and the bridge it is a port of (or null). */
    public record Link(String name, boolean bridge, String master) {}

    /**
     * The machine as seen at start: processes (listed before the dirs, so every process's work dir
     * existed when the dirs were listed), {@code /tmp/gpuop-*} dirs, links, mount points, and the
     * node network slots whose lock no live process holds.
     */
    public record Snapshot(
            List<Proc> processes,
            List<RunDir> dirs,
            List<Link> links,
            List<Path> mountPoints,
            Set<Integer> idleSlots) {}

    /**
     * What to remove, in this order: processes (containerd first, so none is restarted, then the
     * containers, their shims and agents), mounts (deepest first), links (veths, then bridges),
     * dirs. {@code owners} are the dead runs' pids, for the message.
     */
    public record Plan(
            List<Long> owners,
            List<Long> containerd,
            List<Long> containers,
            List<Long> shims,
            List<Long> agents,
            List<Path> mounts,
            List<String> veths,
            List<String> bridges,
            List<Path> dirs) {

        public boolean empty() {
            return containerd.isEmpty()
                    && containers.isEmpty()
                    && shims.isEmpty()
                    && agents.isEmpty()
                    && mounts.isEmpty()
                    && veths.isEmpty()
                    && bridges.isEmpty()
                    && dirs.isEmpty();
        }

        /** Every pid to kill, in order. */
        public List<Long> processes() {
            List<Long> out = new ArrayList<>(containerd);
            out.addAll(containers);
            out.addAll(shims);
            out.addAll(agents);
            return out;
        }

        /**
         * One line: {@code a killed run (pid 1234): 1 containerd, 7 shims, 14 container processes,
         * 1 bridge, 7 veths, 1 mount, /tmp/gpuop-123}.
         */
        public String describe() {
            return who() + ": " + what();
        }

        /**
         * {@code a killed run (pid 1234)}, {@code 2 killed runs (pids 1, 2)}, or {@code killed
         * runs}.
         */
        public String who() {
            return switch (owners.size()) {
                case 0 -> "killed runs";
                case 1 -> "a killed run (pid " + owners.getFirst() + ")";
                default ->
                        owners.size()
                                + " killed runs (pids "
                                + String.join(", ", owners.stream().map(String::valueOf).toList())
                                + ")";
            };
        }

        /** What they left, counted: {@code 1 containerd, 7 shims, ..., /tmp/gpuop-123}. */
        public String what() {
            List<String> parts = new ArrayList<>();
            count(parts, containerd.size(), "containerd", "containerd");
            count(parts, shims.size(), "shim", "shims");
            count(parts, containers.size(), "container process", "container processes");
            count(parts, agents.size(), "agent process", "agent processes");
            count(parts, bridges.size(), "bridge", "bridges");
            count(parts, veths.size(), "veth", "veths");
            count(parts, mounts.size(), "mount", "mounts");
            dirs.forEach(d -> parts.add(d.toString()));
            return String.join(", ", parts);
        }

        private static void count(List<String> parts, int n, String one, String many) {
            if (n > 0) {
                parts.add(n + " " + (n == 1 ? one : many));
            }
        }
    }

    public static Plan plan(Snapshot s) {
        Set<String> listed = new LinkedHashSet<>();
        Set<String> dead = new LinkedHashSet<>();
        List<Long> owners = new ArrayList<>();
        List<Path> deadDirs = new ArrayList<>();
        for (RunDir d : s.dirs()) {
            String name = d.dir().getFileName().toString();
            listed.add(name);
            if (d.owner() != null && !d.ownerAlive()) {
                dead.add(name);
                deadDirs.add(d.dir());
                owners.add(d.owner().pid());
            }
        }
        // a process is a dead run's when the work dir it names is a dead run's or is gone (it
        // existed when the process started: processes were listed first)
        java.util.function.Predicate<String> stale =
                name -> dead.contains(name) || !listed.contains(name);

        List<Long> containerd = new ArrayList<>();
        List<Long> shims = new ArrayList<>();
        List<Long> agents = new ArrayList<>();
        for (Proc p : s.processes()) {
            if (p.argv().isEmpty()) {
                continue;
            }
            String exe = Path.of(p.argv().getFirst()).getFileName().toString();
            if (exe.equals("containerd")) {
                workDirOf(p.argv(), "--config")
                        .filter(stale)
                        .ifPresent(x -> containerd.add(p.pid()));
            } else if (exe.startsWith("containerd-shim")) {
                workDirOf(p.argv(), "-address").filter(stale).ifPresent(x -> shims.add(p.pid()));
            } else if (p.argv().contains("-jar") && p.kubeconfig() != null) {
                workDirIn(p.kubeconfig()).filter(stale).ifPresent(x -> agents.add(p.pid()));
            }
        }
        List<Long> containers = descendants(s.processes(), shims);
        containers.removeAll(shims);
        containerd.removeAll(containers);

        List<Path> mounts = new ArrayList<>();
        for (Path m : s.mountPoints()) {
            for (Path d : deadDirs) {
                if (m.startsWith(d)) {
                    mounts.add(m);
                }
            }
        }
        mounts.sort(Comparator.comparingInt(Path::getNameCount).reversed());

        Set<String> bridges = new TreeSet<>();
        for (Link l : s.links()) {
            Matcher m = NodeNetwork.BRIDGE.matcher(l.name());
            if (l.bridge() && m.matches() && s.idleSlots().contains(Integer.parseInt(m.group(1)))) {
                bridges.add(l.name());
            }
        }
        List<String> veths = new ArrayList<>();
        for (Link l : s.links()) {
            if (!l.bridge() && l.master() != null && bridges.contains(l.master())) {
                veths.add(l.name());
            }
        }
        return new Plan(
                owners,
                containerd,
                containers,
                shims,
                agents,
                mounts,
                veths,
                List.copyOf(bridges),
                deadDirs);
    }

    /** The {@code gpuop-*} name of the work dir that the value after {@code flag} lies in. */
    static Optional<String> workDirOf(List<String> argv, String flag) {
        for (int i = 0; i < argv.size(); i++) {
            String a = argv.get(i);
            if (a.equals(flag) && i + 1 < argv.size()) {
                return workDirIn(argv.get(i + 1));
            }
            if (a.startsWith(flag + "=")) {
                return workDirIn(a.substring(flag.length() + 1));
            }
        }
        return Optional.empty();
    }

    static Optional<String> workDirIn(String value) {
        Matcher m = WORK_DIR_IN.matcher(value);
        return m.lookingAt() ? Optional.of(m.group(1)) : Optional.empty();
    }

    /** Every descendant of {@code roots} (not the roots), parents before children. */
    static List<Long> descendants(List<Proc> processes, List<Long> roots) {
        Map<Long, List<Long>> children = new HashMap<>();
        for (Proc p : processes) {
            children.computeIfAbsent(p.ppid(), k -> new ArrayList<>()).add(p.pid());
        }
        List<Long> out = new ArrayList<>();
        Set<Long> seen = new LinkedHashSet<>(roots);
        List<Long> frontier = new ArrayList<>(roots);
        while (!frontier.isEmpty()) {
            List<Long> next = new ArrayList<>();
            for (long pid : frontier) {
                for (long c : children.getOrDefault(pid, List.of())) {
                    if (seen.add(c)) {
                        out.add(c);
                        next.add(c);
                    }
                }
            }
            frontier = next;
        }
        return out;
    }
}
