package org.gpuoperator.e2e.images;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.gpuoperator.e2e.node.PrivateContainerd;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * Every local image imported into a real, private containerd and run there as a container: only the
 * image's own files (its jlinked runtime, its glibc) are visible to it. Needs root and containerd;
 * skipped otherwise.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class LocalImagesContainerdIT {

    private static final Path REPO = Path.of("..").toAbsolutePath().normalize();

    private Path nodeRoot;
    private PrivateContainerd containerd;
    private Map<String, LocalImages.LocalImage> images;

    @BeforeAll
    void startContainerdAndImport() throws Exception {
        assumeTrue(
                PrivateContainerd.installed() && onPath("ctr"),
                "containerd or ctr is not installed: local images not run; test skipped, not passed");
        assumeTrue(
                "0".equals(run(List.of("id", "-u"), Duration.ofSeconds(5)).strip()),
                "not root: containerd cannot run containers; test skipped, not passed");
        images = new LocalImages(REPO, LocalImages.defaultOutDir(REPO)).buildAll();
        // unix socket paths must stay under 108 bytes: a short dir in /tmp, not the build directory
        nodeRoot = Files.createTempDirectory(Path.of("/tmp"), "li-");
        containerd = new PrivateContainerd(nodeRoot);
        containerd.writeInitialConfig();
        containerd.start();
        containerd.awaitCri(Duration.ofSeconds(60));
        for (LocalImages.LocalImage image : images.values()) {
            LocalImages.importInto(containerd.socket(), image.archive());
        }
    }

    @AfterAll
    void stop() throws Exception {
        if (containerd != null) {
            containerd.close();
        }
        if (nodeRoot != null) {
            // containerd leaves read-only and mounted-once directories: rm -rf, after its mounts
            // are gone
            run(List.of("rm", "-rf", nodeRoot.toString()), Duration.ofSeconds(60));
        }
    }

    @Test
    void everyComponentImageRunsItsOwnRuntimeAndPrintsItsVersion() throws Exception {
        for (String c : ImageLayout.COMPONENTS) {
            LocalImages.LocalImage image = images.get(c);
            List<String> cmd = new ArrayList<>(ctr("run", "--rm", image.reference(), "v-" + c));
            // the image's entrypoint, with -XX:AOTMode=on: the JVM exits unless it can use the
            // image's AOT cache (made on this machine's files, run on the image's)
            List<String> entrypoint = ImageLayout.entrypoint(c);
            cmd.add(entrypoint.getFirst());
            cmd.add("-XX:AOTMode=on");
            cmd.addAll(entrypoint.subList(1, entrypoint.size()));
            cmd.add("--version");
            long start = System.nanoTime();
            String out = run(cmd, Duration.ofSeconds(120));
            System.out.printf(
                    "%-20s %-52s archive %5.1f MiB, --version in %.1f s: %s%n",
                    c,
                    image.reference(),
                    image.size() / 1048576.0,
                    (System.nanoTime() - start) / 1e9,
                    out.strip());
            JavaRuntimeIT.assertVersionLine(c, out);
        }
    }

    @Test
    void theBusyboxImageRunsAShellAndItsSleepingEntrypointStopsOnSigterm() throws Exception {
        String ref = BusyboxImage.REF;
        assertThat(
                        run(
                                        ctr(
                                                "run", "--rm", ref, "bb-echo", "/bin/sh", "-c",
                                                "echo ok"),
                                        Duration.ofSeconds(60))
                                .strip())
                .isEqualTo("ok");
        run(ctr("run", "-d", ref, "bb-pause"), Duration.ofSeconds(60));
        long start = System.nanoTime();
        run(ctr("task", "kill", "-s", "SIGTERM", "bb-pause"), Duration.ofSeconds(10));
        String status = "";
        while (System.nanoTime() - start < 10_000_000_000L) {
            status = run(ctr("task", "ls"), Duration.ofSeconds(10));
            if (status.lines().anyMatch(l -> l.startsWith("bb-pause") && l.contains("STOPPED"))) {
                break;
            }
            Thread.sleep(100);
        }
        assertThat(status)
                .as("the pause entrypoint exits on SIGTERM")
                .containsPattern("bb-pause\\s+\\d+\\s+STOPPED");
        run(ctr("task", "delete", "bb-pause"), Duration.ofSeconds(10));
        run(ctr("container", "delete", "bb-pause"), Duration.ofSeconds(10));
    }

    private List<String> ctr(String... args) {
        List<String> cmd =
                new ArrayList<>(
                        List.of(
                                "ctr",
                                "--address",
                                containerd.socket().toString(),
                                "-n",
                                "k8s.io"));
        cmd.addAll(List.of(args));
        return cmd;
    }

    private static String run(List<String> cmd, Duration timeout)
            throws IOException, InterruptedException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            p.destroyForcibly();
            throw new IOException(String.join(" ", cmd) + ": timed out");
        }
        if (p.exitValue() != 0) {
            throw new IOException(
                    String.join(" ", cmd) + " exited " + p.exitValue() + ": " + out.strip());
        }
        return out;
    }

    private static boolean onPath(String exe) {
        for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin").split(":")) {
            if (Files.isExecutable(Path.of(dir, exe))) {
                return true;
            }
        }
        return false;
    }
}
