package org.gpuoperator.e2e.simulate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code simulate} after a run killed with SIGKILL (issue 24): the next run removes what the killed
 * one left, says so in one line and gets ready; a run beside a live one touches nothing of it and
 * gets its own bridge. Each run is the jar's {@code simulate --nodes 1} as its own process. Heavy:
 * run alone, e.g. {@code flock /tmp/heavy.lock ./mvnw -o -pl e2e-tests verify
 * -Dit.test=SimulateRestartIT -Dtest=NONE -Dsurefire.failIfNoSpecifiedTests=false -DskipImages}.
 */
class SimulateRestartIT {

    static final Path REPO = RepoRoot.find();
    static final Pattern WORK_DIR =
            Pattern.compile("export KUBECONFIG=(/tmp/gpuop-[^/]+)/kubeconfig");
    static final Pattern BRIDGE_EVENT = Pattern.compile("pod network (\\S+) on (cni-sim\\d+)");
    static final Duration READY = Duration.ofMinutes(5);

    private final List<Process> started = new ArrayList<>();

    @AfterEach
    void stopWhatIsLeft() throws Exception {
        for (Process p : started) {
            if (p.isAlive()) {
                p.destroy(); // SIGTERM: its shutdown hook cleans up
                if (!p.waitFor(60, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                }
            }
        }
    }

    @Test
    @Timeout(value = 20, unit = TimeUnit.MINUTES)
    void aRunAfterAKilledRunCleansUpSaysSoAndGetsReadyAndARunBesideItTouchesNothingOfIt()
            throws Exception {
        Path jar = REPO.resolve("e2e-tests/target/e2e-tests.jar");
        assumeTrue(Files.isRegularFile(jar), "no " + jar + ": ./mvnw package first");

        // run A, killed once ready
        Run a = start("a", "--nodes", "1", "--timeout", "4m");
        a.awaitLine("all 1 nodes ready", READY);
        Path dirA = a.workDir();
        String bridgeA = bridgeOf(dirA); // null in process mode (no pod network)
        a.process.destroyForcibly(); // SIGKILL: no shutdown hook runs
        assertThat(a.process.waitFor(30, TimeUnit.SECONDS)).isTrue();
        List<Long> leftA = processesMentioning(dirA);
        assertThat(leftA).as("what the killed run left running").isNotEmpty();
        List<String> vethsA = bridgeA == null ? List.of() : portsOf(bridgeA);
        if (bridgeA != null) {
            assertThat(vethsA).as("pods' veths on " + bridgeA).isNotEmpty();
        }

        // run B cleans up first, in one line, then gets ready
        Run b = start("b", "--nodes", "1", "--timeout", "4m");
        String cleaned = b.awaitLine("cleaned up a killed run", Duration.ofMinutes(1));
        assertThat(cleaned)
                .startsWith("cleaned up a killed run (pid " + a.process.pid() + "): ")
                .contains(dirA.toString());
        if (bridgeA != null) {
            // the GPU node and the control-plane node that runs the operator's pod
            assertThat(cleaned).contains("2 containerd", "2 bridges", "2 mounts");
        }
        b.awaitLine("all 1 nodes ready", READY);
        assertThat(b.output().stream().filter(l -> l.startsWith("cleaned up"))).hasSize(1);
        assertThat(processesMentioning(dirA)).isEmpty();
        assertThat(leftA.stream().filter(pid -> ProcessHandle.of(pid).isPresent())).isEmpty();
        assertThat(dirA).doesNotExist();
        assertThat(mountsUnder(dirA)).isEmpty();
        for (String veth : vethsA) {
            assertThat(Path.of("/sys/class/net", veth)).doesNotExist();
        }
        Path dirB = b.workDir();
        String bridgeB = bridgeOf(dirB);

        // run C beside the live B: no clean-up of B, a bridge of its own
        Run c =
                start(
                        "c",
                        "--nodes",
                        "1",
                        "--timeout",
                        "4m",
                        "--exit-when-ready",
                        "--keep-work-dir");
        assertThat(c.process.waitFor(READY.toSeconds(), TimeUnit.SECONDS)).isTrue();
        assertThat(c.process.exitValue()).as(String.join("\n", c.output())).isZero();
        Path dirC = c.workDir();
        try {
            assertThat(c.output()).noneMatch(l -> l.startsWith("cleaned up"));
            if (bridgeB != null) {
                Matcher m = c.find(BRIDGE_EVENT);
                assertThat(m.group(2)).isNotEqualTo(bridgeB);
                assertThat(m.group(1)).isNotEqualTo(subnetOf(dirB));
                assertThat(Path.of("/sys/class/net", bridgeB)).exists();
            }
            assertThat(b.process.isAlive()).isTrue();
            assertThat(processesMentioning(dirB)).isNotEmpty();
            assertThat(dirB.resolve("kubeconfig")).exists();
        } finally {
            deleteTree(dirC); // kept by --keep-work-dir, to read its events
        }

        // B stopped as Ctrl-C would: it leaves nothing
        b.process.destroy();
        assertThat(b.process.waitFor(2, TimeUnit.MINUTES)).isTrue();
        assertThat(processesMentioning(dirB)).isEmpty();
        assertThat(dirB).doesNotExist();
        if (bridgeB != null) {
            assertThat(Path.of("/sys/class/net", bridgeB)).doesNotExist();
        }
    }

    /** One {@code simulate} process, its output in {@code target/simulate-restart-<name>.log}. */
    final class Run {
        final Process process;
        final Path log;

        Run(Process process, Path log) {
            this.process = process;
            this.log = log;
        }

        List<String> output() throws IOException {
            return Files.readAllLines(log, StandardCharsets.UTF_8);
        }

        String awaitLine(String prefix, Duration timeout) throws Exception {
            Instant deadline = Instant.now().plus(timeout);
            while (Instant.now().isBefore(deadline)) {
                for (String l : output()) {
                    if (l.strip().startsWith(prefix)) {
                        return l.strip();
                    }
                }
                if (!process.isAlive()) {
                    break;
                }
                Thread.sleep(500);
            }
            throw new AssertionError(
                    "no line `"
                            + prefix
                            + "` from simulate (exit "
                            + (process.isAlive() ? "-" : process.exitValue())
                            + ") in "
                            + timeout
                            + ":\n"
                            + String.join("\n", output()));
        }

        Matcher find(Pattern p) throws IOException {
            for (String l : output()) {
                Matcher m = p.matcher(l);
                if (m.find()) {
                    return m;
                }
            }
            throw new AssertionError("no " + p + " in:\n" + String.join("\n", output()));
        }

        Path workDir() throws IOException {
            return Path.of(find(WORK_DIR).group(1));
        }
    }

    private Run start(String name, String... args) throws IOException {
        Path log = REPO.resolve("e2e-tests/target/simulate-restart-" + name + ".log");
        List<String> cmd =
                new ArrayList<>(
                        List.of(
                                REPO.resolve("bin/java25").toString(),
                                "--sun-misc-unsafe-memory-access=allow",
                                "-jar",
                                REPO.resolve("e2e-tests/target/e2e-tests.jar").toString(),
                                "simulate"));
        cmd.addAll(List.of(args));
        Process p =
                new ProcessBuilder(cmd)
                        .directory(REPO.toFile())
                        .redirectErrorStream(true)
                        .redirectOutput(log.toFile())
                        .start();
        started.add(p);
        return new Run(p, log);
    }

    /** The bridge the node's CNI config names, or null without a pod network. */
    private static String bridgeOf(Path workDir) throws IOException {
        Path netd = workDir.resolve("gpu-node-1/etc/cni/net.d");
        if (!Files.isDirectory(netd)) {
            return null;
        }
        try (Stream<Path> s = Files.list(netd)) {
            for (Path f : s.toList()) {
                Matcher m =
                        Pattern.compile("\"bridge\": \"(cni-sim\\d+)\"")
                                .matcher(Files.readString(f));
                if (m.find()) {
                    return m.group(1);
                }
            }
        }
        return null;
    }

    private static String subnetOf(Path workDir) throws IOException {
        try (Stream<Path> s = Files.list(workDir.resolve("gpu-node-1/etc/cni/net.d"))) {
            for (Path f : s.toList()) {
                Matcher m =
                        Pattern.compile("\"subnet\": \"([^\"]+)\"").matcher(Files.readString(f));
                if (m.find()) {
                    return m.group(1);
                }
            }
        }
        return null;
    }

    private static List<String> portsOf(String bridge) throws IOException {
        List<String> out = new ArrayList<>();
        Path brif = Path.of("/sys/class/net", bridge, "brif");
        if (Files.isDirectory(brif)) {
            try (DirectoryStream<Path> s = Files.newDirectoryStream(brif)) {
                s.forEach(p -> out.add(p.getFileName().toString()));
            }
        }
        return out;
    }

    /**
     * Processes whose command line or environment names a path in {@code dir} (agents run as
     * processes have their {@code KUBECONFIG} there).
     */
    private static List<Long> processesMentioning(Path dir) throws IOException {
        String needle = dir + "/";
        List<Long> out = new ArrayList<>();
        try (DirectoryStream<Path> s = Files.newDirectoryStream(Path.of("/proc"), "[0-9]*")) {
            for (Path p : s) {
                try {
                    String cmd =
                            new String(
                                            Files.readAllBytes(p.resolve("cmdline")),
                                            StandardCharsets.UTF_8)
                                    + new String(
                                            Files.readAllBytes(p.resolve("environ")),
                                            StandardCharsets.UTF_8);
                    String stat = Files.readString(p.resolve("stat"));
                    boolean zombie = stat.substring(stat.lastIndexOf(')') + 2).startsWith("Z");
                    if (!zombie && cmd.contains(needle)) {
                        out.add(Long.parseLong(p.getFileName().toString()));
                    }
                } catch (IOException e) {
                    // gone meanwhile
                }
            }
        }
        return out;
    }

    private static List<String> mountsUnder(Path dir) throws IOException {
        return Files.readAllLines(Path.of("/proc/self/mountinfo")).stream()
                .filter(l -> l.contains(" " + dir + "/") || l.contains(" " + dir + " "))
                .toList();
    }

    private static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir) || !mountsUnder(dir).isEmpty()) {
            return;
        }
        try (Stream<Path> s = Files.walk(dir)) {
            s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }
}
