package org.gpuoperator.e2e.node;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.gpuoperator.e2e.images.BusyboxImage;
import org.gpuoperator.e2e.images.LocalImages;
import org.gpuoperator.kubelet.cri.CriClient;

/**
 * A real containerd for one simulated node: its own config, root, state and sockets under the
 * node's host root, so the toolkit agent edits {@code <host-root>/etc/containerd/config.toml}
 * exactly as on a real node. Supervised like the systemd unit ({@code Restart=always}): when it
 * exits (SIGHUP makes containerd 1.6 exit) it is started again, which is also how a config change
 * takes effect.
 */
public final class PrivateContainerd implements AutoCloseable {

    private final Path root;
    private final NodeNetwork network;
    private final Path config;
    private final Path socket;
    private final Path log;
    private Process process;

    /**
     * Keeps the node's mount namespace across daemon restarts (outside the node root, see
     * NodeMountNamespace).
     */
    private final Path mountNamespace;

    private boolean mountNamespaceMade;
    private int starts;
    private int failNextStarts;

    /** Without a pod network: enough for CRI status and host-network sandboxes. */
    public PrivateContainerd(Path nodeRoot) {
        this(nodeRoot, null);
    }

    /**
     * @param network the node's pod network (CNI bridge + host-local IPAM), written into the
     *     initial config together with {@link BusyboxImage#REF} as sandbox image; null for none
     */
    public PrivateContainerd(Path nodeRoot, NodeNetwork network) {
        this.root = nodeRoot;
        this.network = network;
        this.mountNamespace = nodeRoot.resolveSibling(nodeRoot.getFileName() + ".mnt");
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

    /** The node's pod network, or null when it has none. */
    public NodeNetwork network() {
        return network;
    }

    /** containerd's {@code root}: its content store, snapshots and metadata. */
    public Path dataRoot() {
        return root.resolve("var/lib/containerd");
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
     * Writes the node's initial config: containerd's own default config, with every path moved
     * under the node's host root. The toolkit agent later edits this file; the original bytes are
     * what cleanup must restore.
     */
    public void writeInitialConfig() throws IOException, InterruptedException {
        Process p =
                new ProcessBuilder("containerd", "config", "default")
                        .redirectErrorStream(false)
                        .start();
        String dflt = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(20, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IOException("`containerd config default` failed");
        }
        String r = root.toString();
        String cfg =
                dflt.replace("root = \"/var/lib/containerd\"", "root = \"" + dataRoot() + "\"")
                        .replace(
                                "state = \"/run/containerd\"",
                                "state = \"" + r + "/run/containerd\"")
                        .replace(
                                "address = \"/run/containerd/containerd.sock\"",
                                "address = \"" + socket + "\"")
                        .replace(
                                "address = \"/run/containerd/containerd.sock.ttrpc\"",
                                "address = \"" + socket + ".ttrpc\"")
                        .replace(
                                "conf_dir = \"/etc/cni/net.d\"",
                                "conf_dir = \"" + r + "/etc/cni/net.d\"")
                        .replace(
                                "path = \"/opt/containerd\"",
                                "path = \"" + r + "/opt/containerd\"");
        if (!cfg.contains(socket.toString())) {
            throw new IOException(
                    "unexpected `containerd config default` output: no grpc address to move");
        }
        if (network != null) {
            // Part of the initial bytes on purpose: the toolkit agent edits this file and cleanup
            // restores these bytes.
            cfg = replaceOnce(cfg, "bin_dir = \"/opt/cni/bin\"", "bin_dir = \"/usr/lib/cni\"");
            cfg =
                    replaceOnce(
                            cfg,
                            "sandbox_image = \"registry.k8s.io/pause:3.6\"",
                            "sandbox_image = \"" + BusyboxImage.REF + "\"");
            // the CRI plugin gives sandboxes oom_score_adj -998, which runc cannot set where this
            // host is itself a
            // restricted container ("can't get final child's PID from pipe"); restrict keeps it at
            // or above ours
            cfg =
                    replaceOnce(
                            cfg, "restrict_oom_score_adj = false", "restrict_oom_score_adj = true");
            Files.createDirectories(root.resolve("etc/cni/net.d"));
            Files.writeString(
                    root.resolve("etc/cni/net.d/10-" + network.networkName() + ".conflist"),
                    network.conflist(root));
        }
        Files.createDirectories(config.getParent());
        Files.createDirectories(root.resolve("etc/cni/net.d"));
        Files.writeString(
                config,
                "# containerd config of simulated node "
                        + root.getParent().getFileName()
                        + "\n"
                        + cfg);
    }

    private static String replaceOnce(String text, String from, String to) throws IOException {
        if (!text.contains(from)) {
            throw new IOException(
                    "unexpected `containerd config default` output: no `" + from + "` to replace");
        }
        return text.replace(from, to);
    }

    /**
     * Shims outlive containerd by design (that is how containers survive its restarts). A node
     * going away must not leave any behind on this machine: kill what is left of this node's, their
     * containers first.
     */
    private void killLeftoverShims() {
        String address = socket.toString();
        ProcessHandle.allProcesses()
                .filter(
                        p ->
                                p.info()
                                        .commandLine()
                                        .filter(
                                                c ->
                                                        c.contains("containerd-shim")
                                                                && c.contains(address))
                                        .isPresent())
                .forEach(
                        shim -> {
                            shim.descendants().forEach(ProcessHandle::destroyForcibly);
                            shim.destroyForcibly();
                        });
    }

    private static void run(List<String> cmd, String what) throws IOException {
        try {
            Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
                throw new IOException(
                        "cannot "
                                + what
                                + ": "
                                + String.join(" ", cmd.subList(0, 2))
                                + ": "
                                + out.strip());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted while trying to " + what, e);
        }
    }

    /**
     * Imports an OCI/docker image archive into the CRI namespace ({@code k8s.io}), as {@code ctr
     * images import}.
     */
    public void importImage(Path archive) throws IOException, InterruptedException {
        LocalImages.importInto(socket, archive, IMPORT_TIMEOUT);
    }

    /** How long one {@code ctr images import} into a node's containerd may take. */
    static final Duration IMPORT_TIMEOUT = Duration.ofSeconds(120);

    /**
     * A second name for an image the node has ({@code ctr images tag}), as a pushed new version
     * would be.
     */
    public void tagImage(String from, String to) throws IOException, InterruptedException {
        tagImage(socket, from, to);
    }

    /**
     * Names image {@code from} also {@code to} in the {@code k8s.io} namespace of the containerd at
     * {@code socket} (replacing what {@code to} named): how the simulated registry's pulls land.
     */
    public static void tagImage(Path socket, String from, String to)
            throws IOException, InterruptedException {
        Process p =
                new ProcessBuilder(
                                "ctr",
                                "--address",
                                socket.toString(),
                                "-n",
                                "k8s.io",
                                "images",
                                "tag",
                                "--force",
                                from,
                                to)
                        .redirectErrorStream(true)
                        .start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IOException(
                    "ctr images tag " + from + " " + to + " in " + socket + " failed: " + out);
        }
    }

    /** For tests: the next {@code n} starts fail as a start that cannot fork would. */
    synchronized void failNextStarts(int n) {
        failNextStarts = n;
    }

    public synchronized void start() throws IOException {
        if (failNextStarts > 0) {
            failNextStarts--;
            throw new IOException("start failed on purpose (PrivateContainerdTest)");
        }
        Files.createDirectories(socket.getParent());
        Files.createDirectories(log.getParent());
        Files.deleteIfExists(socket);
        List<String> daemon =
                withDefaultSighup(List.of("containerd", "--config", config.toString()));
        if (network != null) {
            // pods run as containers: the daemon gets the node's own view of its paths
            // (NodeMountNamespace)
            if (!mountNamespaceMade) {
                for (Path dir : NodeMountNamespace.sources(root)) {
                    Files.createDirectories(dir);
                }
                Files.deleteIfExists(mountNamespace);
                Files.createFile(mountNamespace);
                run(
                        NodeMountNamespace.create(root, mountNamespace),
                        "make the node's mount namespace");
                mountNamespaceMade = true;
            }
            daemon = NodeMountNamespace.enter(mountNamespace, daemon);
        } else if (Files.isDirectory(Path.of("/etc/containerd"))) {
            // the toolkit agent's drop-in is imported by its absolute path
            Files.createDirectories(root.resolve("etc/containerd"));
            daemon = NodeMountNamespace.configOnly(root, daemon);
        }
        Process started =
                new ProcessBuilder(daemon)
                        .redirectErrorStream(true)
                        .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                        .start();
        process = started;
        starts++;
        // Restart=always, RestartSec=0.5: on its own, so that a SIGHUP during teardown (the
        // toolkit's cleanup) is
        // survived even after the cluster loop has stopped
        started.onExit()
                .thenRunAsync(
                        () -> restartAfterExit(started),
                        CompletableFuture.delayedExecutor(
                                RESTART_DELAY.toMillis(), TimeUnit.MILLISECONDS, RESTARTS));
    }

    static final Duration RESTART_DELAY = Duration.ofMillis(500);

    /**
     * {@code command} with SIGHUP at its default action, as systemd starts containerd. A JVM
     * started under {@code nohup} passes SIGHUP ignored on to its children, and a Go program keeps
     * an ignore it inherits: the toolkit's signal restart would then leave containerd running on
     * its old config. {@code env} execs the command, so the PID stays the daemon's.
     */
    static List<String> withDefaultSighup(List<String> command) {
        List<String> cmd = new java.util.ArrayList<>(List.of("env", "--default-signal=HUP"));
        cmd.addAll(command);
        return cmd;
    }

    /**
     * Not the common pool: whoever blocks it (a parallel stream waiting for pods to stop) must not
     * block restarts.
     */
    private static final java.util.concurrent.Executor RESTARTS =
            task -> Thread.ofVirtual().name("containerd-restart").start(task);

    /**
     * Starts the daemon again, and again after each failed start (a fork that fails under load, a
     * path in use), as systemd's {@code Restart=always} does: a node whose containerd stayed down
     * would fail every scenario after it on its toolkit pods. {@link #close()} ends the retries.
     */
    private synchronized void restartAfterExit(Process exited) {
        if (process != exited) {
            return; // closed, or already started again
        }
        try {
            start();
        } catch (IOException | RuntimeException e) {
            try {
                Files.writeString(
                        log,
                        "private-containerd: restart failed, again in "
                                + RESTART_DELAY.toMillis()
                                + " ms: "
                                + e
                                + "\n",
                        StandardCharsets.UTF_8,
                        StandardOpenOption.CREATE,
                        StandardOpenOption.APPEND);
            } catch (IOException | RuntimeException logFailed) {
                // the retry matters more than its log line
            }
            CompletableFuture.runAsync(
                    () -> restartAfterExit(exited),
                    CompletableFuture.delayedExecutor(
                            RESTART_DELAY.toMillis(), TimeUnit.MILLISECONDS, RESTARTS));
        }
    }

    /**
     * What {@code systemctl restart containerd} does after an admin edited the config: SIGTERM, and
     * the daemon comes back (Restart=always) with the config read again.
     */
    public synchronized void restart() {
        if (process != null) {
            process.destroy();
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
        throw new IllegalStateException(
                "containerd CRI did not answer on "
                        + socket
                        + " within "
                        + timeout
                        + " (log "
                        + log
                        + ")",
                last);
    }

    public List<String> logLines() throws IOException {
        return Files.exists(log) ? Files.readAllLines(log) : List.of();
    }

    @Override
    public synchronized void close() {
        closeDaemon();
        killLeftoverShims();
        if (mountNamespaceMade) {
            try {
                run(NodeMountNamespace.remove(mountNamespace), "end the node's mount namespace");
                Files.deleteIfExists(mountNamespace);
            } catch (IOException e) {
                // a busy namespace goes when its last process does
            }
            mountNamespaceMade = false;
        }
        if (network != null) {
            // the bridge outlives containerd; a stale one would make the next run pick another
            // index
            try {
                new ProcessBuilder("ip", "link", "delete", network.bridge())
                        .redirectErrorStream(true)
                        .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                        .start()
                        .waitFor(10, TimeUnit.SECONDS);
            } catch (IOException e) {
                // no ip tool: the bridge stays; harmless
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            NodeNetwork.release(network);
        }
    }

    private void closeDaemon() {
        if (process != null) { // process = null first: the exit it causes is not restarted
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
