package org.gpuoperator.toolkit.containerd;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A containerd of our own for tests: its own root, state and sockets under one directory (reference
 * recipe B11), started with a given config and always killed.
 */
public final class PrivateContainerd implements AutoCloseable {

    private final Path dir;
    private Process process;

    public PrivateContainerd(Path dir) {
        this.dir = dir;
    }

    public Path socket() {
        return dir.resolve("ctd.sock");
    }

    /** The settings that keep it private; the test appends its own CRI settings after these. */
    public String baseConfig(String sandboxImage) {
        return """
                version = 2
                root = "%1$s/lib"
                state = "%1$s/run"

                [grpc]
                  address = "%1$s/ctd.sock"

                [ttrpc]
                  address = "%1$s/ctd.sock.ttrpc"

                [debug]
                  address = "%1$s/debug.sock"

                # CRI: no OOM score changes in a restricted container, no CNI needed for host-network pods
                [plugins."io.containerd.grpc.v1.cri"]
                  restrict_oom_score_adj = true
                  sandbox_image = "%2$s"
                  [plugins."io.containerd.grpc.v1.cri".cni]
                    conf_dir = "%1$s/cni"
                """
                .formatted(dir, sandboxImage);
    }

    public void start(Path config) throws IOException, InterruptedException {
        Files.createDirectories(dir.resolve("cni"));
        ProcessBuilder pb = new ProcessBuilder("containerd", "--config", config.toString());
        // the shims it starts, and so the runtimes they run, inherit this: the simulated runtime's
        // node root
        pb.environment().put("NVIDIA_SIMULATED_NODE_ROOT", dir.resolve("node").toString());
        process =
                pb.redirectErrorStream(true)
                        .redirectOutput(
                                ProcessBuilder.Redirect.appendTo(
                                        dir.resolve("containerd.log").toFile()))
                        .start();
        Instant deadline = Instant.now().plus(Duration.ofSeconds(20));
        while (Instant.now().isBefore(deadline)) {
            if (!process.isAlive()) {
                throw new IOException("containerd exited " + process.exitValue() + ": " + log());
            }
            if (Files.exists(socket()) && ctr("version").exit() == 0) {
                return;
            }
            Thread.sleep(100);
        }
        throw new IOException("containerd did not answer within 20 s: " + log());
    }

    public ContainerdBinary.Run ctr(String... args) throws IOException, InterruptedException {
        List<String> cmd =
                new java.util.ArrayList<>(List.of("ctr", "--address", socket().toString()));
        cmd.addAll(List.of(args));
        return ContainerdBinary.run(cmd);
    }

    /** The status column of the cri row of {@code ctr plugins ls}. */
    public String criPluginStatus() throws IOException, InterruptedException {
        for (String line : ctr("plugins", "ls").out().split("\n")) {
            String[] cols = line.trim().split("\\s+");
            if (cols.length >= 4
                    && cols[0].equals("io.containerd.grpc.v1")
                    && cols[1].equals("cri")) {
                return cols[cols.length - 1];
            }
        }
        return "absent";
    }

    public Process process() {
        return process;
    }

    public String log() throws IOException {
        Path f = dir.resolve("containerd.log");
        return Files.exists(f) ? Files.readString(f) : "";
    }

    /** SIGTERM, wait, then kill. */
    public void stop() throws InterruptedException {
        if (process != null && process.isAlive()) {
            process.destroy();
            if (!process.waitFor(15, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
        }
    }

    @Override
    public void close() throws InterruptedException {
        stop();
    }
}
