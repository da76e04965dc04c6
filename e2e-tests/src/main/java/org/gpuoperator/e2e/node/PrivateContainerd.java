package org.gpuoperator.e2e.node;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.gpuoperator.kubelet.cri.CriClient;

/**
 * A real containerd for one simulated node: its own config, root, state and sockets under the node's host root, so
 * the toolkit agent edits {@code <host-root>/etc/containerd/config.toml} exactly as on a real node. Supervised like
 * the systemd unit ({@code Restart=always}): when it exits (SIGHUP makes containerd 1.6 exit) it is started again,
 * which is also how a config change takes effect.
 */
public final class PrivateContainerd implements AutoCloseable {

    private final Path root;
    private final Path config;
    private final Path socket;
    private final Path log;
    private Process process;
    private int starts;
    private Instant restartAt;

    public PrivateContainerd(Path nodeRoot) {
        this.root = nodeRoot;
        this.config = nodeRoot.resolve("etc/containerd/config.toml");
        this.socket = nodeRoot.resolve("run/containerd/containerd.sock");
        this.log = nodeRoot.resolve("var/log/containerd.log");
    }

    public static boolean installed() {
        for (String dir : System.getenv().getOrDefault("PATH", "/usr/bin").split(":")) {
            if (Files.isExecutable(Path.of(dir, "containerd"))) {
                return true;
            }
        }
        return false;
    }

    public Path config() {
        return config;
    }

    public Path socket() {
        return socket;
    }

    /** How many times the daemon was started (1 after a clean start; more after restarts). */
    public synchronized int starts() {
        return starts;
    }

    /**
     * Writes the node's initial config: containerd's own default config, with every path moved under the node's
     * host root. The toolkit agent later edits this file; the original bytes are what cleanup must restore.
     */
    public void writeInitialConfig() throws IOException, InterruptedException {
        Process p = new ProcessBuilder("containerd", "config", "default").redirectErrorStream(false).start();
        String dflt = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(20, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IOException("`containerd config default` failed");
        }
        String r = root.toString();
        String cfg = dflt
                .replace("root = \"/var/lib/containerd\"", "root = \"" + r + "/var/lib/containerd\"")
                .replace("state = \"/run/containerd\"", "state = \"" + r + "/run/containerd\"")
                .replace("address = \"/run/containerd/containerd.sock\"", "address = \"" + socket + "\"")
                .replace("address = \"/run/containerd/containerd.sock.ttrpc\"", "address = \"" + socket + ".ttrpc\"")
                .replace("conf_dir = \"/etc/cni/net.d\"", "conf_dir = \"" + r + "/etc/cni/net.d\"")
                .replace("path = \"/opt/containerd\"", "path = \"" + r + "/opt/containerd\"");
        if (!cfg.contains(socket.toString())) {
            throw new IOException("unexpected `containerd config default` output: no grpc address to move");
        }
        Files.createDirectories(config.getParent());
        Files.createDirectories(root.resolve("etc/cni/net.d"));
        Files.writeString(config, "# containerd config of simulated node " + root.getParent().getFileName() + "\n" + cfg);
    }

    public synchronized void start() throws IOException {
        Files.createDirectories(socket.getParent());
        Files.createDirectories(log.getParent());
        Files.deleteIfExists(socket);
        process = new ProcessBuilder("containerd", "--config", config.toString())
                .redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile())).start();
        starts++;
    }

    /** Restarts the daemon half a second after it exited; called from the cluster loop. */
    public synchronized void supervise() {
        if (process == null || process.isAlive()) {
            return;
        }
        if (restartAt == null) {
            restartAt = Instant.now().plus(Duration.ofMillis(500));
        } else if (!Instant.now().isBefore(restartAt)) {
            restartAt = null;
            try {
                start();
            } catch (IOException e) {
                // try again on the next pass
            }
        }
    }

    /** Waits until the CRI service answers on the socket. */
    public void awaitCri(Duration timeout) throws InterruptedException {
        Instant deadline = Instant.now().plus(timeout);
        RuntimeException last = null;
        while (Instant.now().isBefore(deadline)) {
            try (CriClient cri = new CriClient(socket, Duration.ofSeconds(5))) {
                cri.status();
                return;
            } catch (RuntimeException e) {
                last = e;
                Thread.sleep(100);
            }
        }
        throw new IllegalStateException("containerd CRI did not answer on " + socket + " within " + timeout
                + " (log " + log + ")", last);
    }

    public List<String> logLines() throws IOException {
        return Files.exists(log) ? Files.readAllLines(log) : List.of();
    }

    @Override
    public synchronized void close() {
        if (process != null) {
            Process p = process;
            process = null;
            p.destroy();
            try {
                if (!p.waitFor(10, TimeUnit.SECONDS)) {
                    p.destroyForcibly();
                }
            } catch (InterruptedException e) {
                p.destroyForcibly();
                Thread.currentThread().interrupt();
            }
        }
    }
}
