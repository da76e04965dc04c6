package org.gpuoperator.deviceplugin.server;

import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.gpuoperator.kubelet.UnixSockets;
import org.gpuoperator.kubelet.deviceplugin.v1beta1.RegisterRequest;
import org.gpuoperator.kubelet.deviceplugin.v1beta1.RegistrationGrpc;
import org.gpuoperator.node.agent.Backoff;
import org.gpuoperator.node.agent.EventLog;

/**
 * Keeps every resource served on its socket and registered with the kubelet. One thread polls
 * (every 100 ms) the identity (inode) of {@code kubelet.sock} and of each plugin socket:
 *
 * <ul>
 *   <li>a plugin socket gone (the kubelet cleans the directory when it restarts): serve it again;
 *   <li>a plugin socket replaced by another process's: in a DaemonSet rollout the pods overlap, and
 *       either may serve last (the new pod, or an old one whose start was slow). That process owns
 *       the socket and the registration now, so this resource stands by rather than take them back
 *       at once (which left the kubelet dialing a plugin about to exit: UnexpectedAdmissionError).
 *       It serves again once the socket is released: gone (its owner ended and removed it) or dead
 *       (nobody listens: its owner was killed), checked every second. A pod being replaced ends
 *       while standing by; the pod that stays takes over;
 *   <li>a new {@code kubelet.sock}: register every resource again, at once;
 *   <li>no {@code kubelet.sock} yet, or Register failing: retry with the kit's {@link Backoff} (100
 *       ms doubling to 5 s), logging once per change of state, not once per attempt.
 * </ul>
 *
 * Serving always comes before Register, as the kubelet requires.
 */
public final class PluginSupervisor implements AutoCloseable {

    public static final String KUBELET_SOCKET = "kubelet.sock";
    public static final String API_VERSION = "v1beta1";
    static final Duration POLL = Duration.ofMillis(100);
    static final Duration MAX_BACKOFF = Duration.ofSeconds(5);
    static final Duration REGISTER_TIMEOUT = Duration.ofSeconds(5);
    static final Duration LISTENER_CHECK = Duration.ofSeconds(1);

    /** How often a standing state is told again, so the receiver can repair what drifted. */
    static final Duration RETELL = Duration.ofSeconds(2);

    private final Path dir;
    private final Path kubeletSocket;
    private final EventLoopGroup group;
    private final EventLog log;
    private final Consumer<Boolean> onReadyChange;
    private final Thread thread;

    private List<Plugin> plugins = List.of();
    private Object lastKubeletKey;
    private boolean kubeletAbsentLogged;
    private final Backoff backoff = new Backoff(POLL, MAX_BACKOFF);
    private long nextAttempt;
    private Boolean ready;
    private long lastTold;
    private volatile boolean running = true;

    /**
     * Names this process's bound sockets apart from another instance's (pods share pid 1). Not a
     * secret: ThreadLocalRandom, seeded from the clocks, spares the start a SecureRandom (~9 ms).
     */
    private final String tag = Long.toHexString(ThreadLocalRandom.current().nextInt() & 0xffffffL);

    private int serial;

    /**
     * @param dir the device plugin directory (holds kubelet.sock and the plugin sockets)
     * @param onReadyChange told true once every resource is registered, false when that stops being
     *     so; a standing true is told again every {@link #RETELL} (another process may have removed
     *     what the receiver keeps in step with it)
     */
    public PluginSupervisor(
            Path dir, EventLoopGroup group, EventLog log, Consumer<Boolean> onReadyChange) {
        this.dir = dir;
        this.kubeletSocket = dir.resolve(KUBELET_SOCKET);
        this.group = group;
        this.log = log;
        this.onReadyChange = onReadyChange;
        this.thread =
                Thread.ofPlatform().name("plugin-supervisor").daemon(true).unstarted(this::loop);
    }

    /**
     * Starts serving and registering {@code services}, one socket each. First removes the bound
     * names ({@code .nvidia-*.sock.*}) that earlier instances left: one killed (SIGKILL, OOM) never
     * unlinked its own. A predecessor still terminating loses only the name; its connections stay.
     */
    public synchronized void start(List<DevicePluginService> services) {
        removeLeftBoundNames();
        plugins = services.stream().map(Plugin::new).toList();
        tick();
        thread.start();
    }

    private void removeLeftBoundNames() {
        try (var files = Files.list(dir)) {
            for (Path f : files.toList()) {
                String name = f.getFileName().toString();
                if (name.matches("\\.nvidia-.+\\.sock\\..+") && UnixSockets.isSocket(f)) {
                    Files.deleteIfExists(f);
                    log.info("left-socket-removed", "socket", f);
                }
            }
        } catch (IOException e) {
            // no directory yet (no kubelet): nothing was left
        }
    }

    /**
     * Replaces all served resources (config reload): stops the old sockets, serves and registers
     * the new ones.
     */
    public synchronized void replace(List<DevicePluginService> services) {
        plugins.forEach(Plugin::stop);
        plugins = services.stream().map(Plugin::new).toList();
        backoff.reset();
        nextAttempt = 0;
        tick();
    }

    /** Whether every resource is registered with the current kubelet. */
    public synchronized boolean registered() {
        return !plugins.isEmpty()
                && plugins.stream()
                        .allMatch(
                                p ->
                                        p.registeredWith != null
                                                && p.registeredWith.equals(lastKubeletKey));
    }

    private void loop() {
        while (running) {
            try {
                Thread.sleep(POLL.toMillis());
            } catch (InterruptedException e) {
                return;
            }
            synchronized (this) {
                if (running) {
                    try {
                        tick();
                    } catch (RuntimeException e) {
                        log.error("supervisor-error", "error", e.toString());
                    }
                }
            }
        }
    }

    /** One round: serve what is not served, register what is not registered. */
    private void tick() {
        for (Plugin p : plugins) {
            p.ensureServing();
        }
        Object kubeletKey = UnixSockets.fileKey(kubeletSocket);
        if (kubeletKey == null) {
            if (!kubeletAbsentLogged) {
                log.info("waiting-for-kubelet", "socket", kubeletSocket);
                kubeletAbsentLogged = true;
            }
            lastKubeletKey = null;
            updateReady();
            return;
        }
        if (!kubeletKey.equals(lastKubeletKey)) {
            if (lastKubeletKey != null) {
                log.info(
                        "kubelet-restarted",
                        "socket",
                        kubeletSocket,
                        "action",
                        "registering again");
            } else if (kubeletAbsentLogged) {
                log.info("kubelet-socket-appeared", "socket", kubeletSocket);
            }
            kubeletAbsentLogged = false;
            lastKubeletKey = kubeletKey;
            backoff.reset();
            nextAttempt = 0;
        }
        if (System.nanoTime() - nextAttempt >= 0 || nextAttempt == 0) {
            boolean failed = false;
            for (Plugin p : plugins) {
                if (p.server != null && !kubeletKey.equals(p.registeredWith)) {
                    failed |= !p.register(kubeletKey);
                }
            }
            if (failed) {
                nextAttempt = System.nanoTime() + backoff.next().toNanos();
            } else {
                backoff.reset();
                nextAttempt = 0;
            }
        }
        updateReady();
    }

    private void updateReady() {
        boolean now = registered();
        long t = System.nanoTime();
        if (!Objects.equals(ready, now) || (now && t - lastTold >= RETELL.toNanos())) {
            ready = now;
            lastTold = t;
            onReadyChange.accept(now);
        }
    }

    @Override
    public void close() {
        running = false;
        thread.interrupt();
        try {
            thread.join(2000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        synchronized (this) {
            plugins.forEach(Plugin::stop);
            plugins = List.of();
        }
    }

    /** One resource: its socket, its server and with which kubelet it is registered. */
    private final class Plugin {
        final DevicePluginService service;
        final Path socket;
        Server server;
        Object servedKey;
        Object registeredWith;
        String lastError;
        boolean standingBy;
        long nextListenerCheck;

        Plugin(DevicePluginService service) {
            this.service = service;
            this.socket = dir.resolve(service.resource().socketName());
        }

        void ensureServing() {
            if (standingBy && !released()) {
                return;
            }
            if (server != null) {
                Object key = UnixSockets.fileKey(socket);
                if (key != null && key.equals(servedKey)) {
                    return;
                }
                if (key != null) {
                    log.info(
                            "plugin-socket-taken-over",
                            "resource",
                            service.resource().name(),
                            "socket",
                            socket,
                            "action",
                            "standing by until it is released");
                    stop(); // leaves the other process's socket in place
                    standingBy = true;
                    nextListenerCheck = System.nanoTime() + LISTENER_CHECK.toNanos();
                    return;
                }
                log.info(
                        "plugin-socket-removed",
                        "resource",
                        service.resource().name(),
                        "socket",
                        socket);
                stop();
            }
            try {
                // Bound on a name of this process's own, the well-known name a hard link to it:
                // closing a server unlinks the path it bound (netty does), and through the well-
                // known name that would delete a successor's socket
                Path bound = dir.resolve("." + socket.getFileName() + "." + tag + "-" + ++serial);
                server = UnixSockets.serve(bound, group, service);
                Files.deleteIfExists(socket);
                Files.createLink(socket, bound);
                servedKey = UnixSockets.fileKey(socket);
                registeredWith = null;
                lastError = null;
                log.info(
                        "serving",
                        "resource",
                        service.resource().name(),
                        "socket",
                        socket,
                        "devices",
                        service.resource().devices().size());
            } catch (IOException | RuntimeException e) {
                if (server != null) {
                    server.shutdownNow();
                }
                server = null;
                logOnce("serve-failed", "cannot serve on " + socket + ": " + e.getMessage());
            }
        }

        /** While standing by: whether the other process's socket is gone or nobody listens. */
        private boolean released() {
            boolean gone = UnixSockets.fileKey(socket) == null;
            if (!gone) {
                if (System.nanoTime() - nextListenerCheck < 0) {
                    return false;
                }
                nextListenerCheck = System.nanoTime() + LISTENER_CHECK.toNanos();
                if (UnixSockets.listening(socket)) {
                    return false;
                }
            }
            log.info(
                    "plugin-socket-released",
                    "resource",
                    service.resource().name(),
                    "socket",
                    socket,
                    "reason",
                    gone ? "removed" : "nobody listens",
                    "action",
                    "serving again");
            standingBy = false;
            return true;
        }

        boolean register(Object kubeletKey) {
            RegisterRequest req =
                    RegisterRequest.newBuilder()
                            .setVersion(API_VERSION)
                            .setEndpoint(socket.getFileName().toString())
                            .setResourceName(service.resource().name())
                            .setOptions(DevicePluginService.OPTIONS)
                            .build();
            ManagedChannel ch = UnixSockets.dial(kubeletSocket, group);
            try {
                RegistrationGrpc.newBlockingStub(ch)
                        .withDeadlineAfter(REGISTER_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
                        .register(req);
                registeredWith = kubeletKey;
                lastError = null;
                log.info(
                        "registered",
                        "resource",
                        req.getResourceName(),
                        "endpoint",
                        req.getEndpoint());
                return true;
            } catch (StatusRuntimeException e) {
                logOnce(
                        "register-failed",
                        e.getStatus().getCode() + ": " + e.getStatus().getDescription());
                return false;
            } finally {
                ch.shutdownNow();
            }
        }

        private void logOnce(String event, String error) {
            if (!error.equals(lastError)) {
                log.warn(event, "resource", service.resource().name(), "error", error);
                lastError = error;
            }
        }

        void stop() {
            service.close();
            if (server != null) {
                server.shutdownNow();
                try {
                    server.awaitTermination(2, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
                server = null;
            }
            // only our own socket: after a kubelet restart the path may already hold someone else's
            Object key = UnixSockets.fileKey(socket);
            if (key != null && key.equals(servedKey)) {
                try {
                    Files.deleteIfExists(socket);
                } catch (IOException ignored) {
                    // the directory went away with the kubelet
                }
            }
            servedKey = null;
            registeredWith = null;
        }
    }

    /** For logs and tests: the sockets currently served. */
    public synchronized List<Path> sockets() {
        List<Path> out = new ArrayList<>();
        plugins.stream().filter(p -> p.server != null).forEach(p -> out.add(p.socket));
        return out;
    }
}
