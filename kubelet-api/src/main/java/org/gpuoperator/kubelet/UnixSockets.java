package org.gpuoperator.kubelet;

import io.grpc.BindableService;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.MultiThreadIoEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollDomainSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollIoHandler;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollServerDomainSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.unix.DomainSocketAddress;
import io.grpc.netty.shaded.io.netty.util.concurrent.DefaultThreadFactory;
import java.io.IOException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.Arrays;
import java.util.concurrent.Executor;
import java.util.logging.Logger;

/**
 * gRPC over unix domain sockets (netty epoll), the way the kubelet talks to its runtime (CRI), its
 * device plugins (device-plugin v1beta1) and its pod-resources clients: serving, dialling, and the
 * socket-file checks around them.
 */
public final class UnixSockets {

    /** The kernel's limit for {@code sun_path} is 108 bytes including the terminating NUL. */
    public static final int MAX_SOCKET_PATH_BYTES = 107;

    /** netty's SO_KEEPALIVE warnings kept out of the log ({@link NettyLogs}); held in a field. */
    private static final Logger NETTY_BOOTSTRAP_LOG = NettyLogs.quietBootstrap();

    private UnixSockets() {}

    /**
     * A small event loop group of daemon threads; one group can serve and dial many sockets.
     * Callers shut it down.
     */
    public static EventLoopGroup eventLoops(String name, int threads) {
        return new MultiThreadIoEventLoopGroup(
                threads, new DefaultThreadFactory(name, true), EpollIoHandler.newFactory());
    }

    /**
     * The target string a kubelet would be configured with, e.g. {@code
     * unix:///run/containerd/containerd.sock}.
     */
    public static String target(Path socket) {
        return "unix://" + socket.toAbsolutePath();
    }

    /**
     * Serves {@code services} on {@code socket}, replacing a stale socket file. Calls run on the
     * event loop (direct executor): for handlers that are short and never block.
     */
    public static Server serve(Path socket, EventLoopGroup group, BindableService... services)
            throws IOException {
        return serve(socket, group, null, services);
    }

    /**
     * As {@link #serve(Path, EventLoopGroup, BindableService...)}, with calls run on {@code
     * executor}.
     */
    public static Server serve(
            Path socket, EventLoopGroup group, Executor executor, BindableService... services)
            throws IOException {
        Files.createDirectories(socket.toAbsolutePath().getParent());
        Files.deleteIfExists(socket);
        return unstarted(socket, group, executor, services).start();
    }

    /**
     * The server {@link #serve} starts, built and not started: nothing is bound and no file is
     * touched (for a start's warm-up).
     */
    public static Server unstarted(
            Path socket, EventLoopGroup group, Executor executor, BindableService... services) {
        NettyServerBuilder b =
                NettyServerBuilder.forAddress(new DomainSocketAddress(socket.toString()))
                        .channelType(EpollServerDomainSocketChannel.class)
                        .bossEventLoopGroup(group)
                        .workerEventLoopGroup(group);
        if (executor == null) {
            b.directExecutor();
        } else {
            b.executor(executor);
        }
        for (BindableService s : services) {
            b.addService(s);
        }
        return b.build();
    }

    /**
     * A plaintext channel to {@code socket} with authority "localhost", as the kubelet dials. Fails
     * fast on a path the kernel cannot connect to, which otherwise shows up later as an opaque
     * connection error. Accepts messages up to 16 MiB (CRI list answers on a busy node exceed
     * gRPC's 4 MiB default).
     */
    public static ManagedChannel dial(Path socket, EventLoopGroup group) {
        String path = socket.toAbsolutePath().toString();
        if (path.getBytes(StandardCharsets.UTF_8).length > MAX_SOCKET_PATH_BYTES) {
            throw new IllegalArgumentException(
                    "unix socket path longer than " + MAX_SOCKET_PATH_BYTES + " bytes: " + path);
        }
        return NettyChannelBuilder.forAddress(new DomainSocketAddress(path))
                .channelType(EpollDomainSocketChannel.class)
                .eventLoopGroup(group)
                .overrideAuthority("localhost")
                .usePlaintext()
                .maxInboundMessageSize(16 * 1024 * 1024)
                .build();
    }

    /**
     * Identity of the file at {@code path} (device + inode + modification time), or null when there
     * is none. The time tells a new socket from a deleted one whose inode number the file system
     * reused at once (ext4 does).
     */
    public static Object fileKey(Path path) {
        try {
            BasicFileAttributes a =
                    Files.readAttributes(
                            path, BasicFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
            return Arrays.asList(
                    a.fileKey(), a.lastModifiedTime()); // fileKey may be null elsewhere
        } catch (IOException absent) {
            return null;
        }
    }

    /**
     * Whether a process listens on the unix socket at {@code path}: a connect succeeds (and is
     * closed at once). False for no file, a socket whose server ended without unlinking it (one
     * killed), or no socket at all.
     */
    public static boolean listening(Path path) {
        try (SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            return ch.connect(UnixDomainSocketAddress.of(path));
        } catch (IOException | RuntimeException e) {
            return false;
        }
    }

    /** Whether {@code path} is a unix socket. */
    public static boolean isSocket(Path path) {
        try {
            int mode = (Integer) Files.getAttribute(path, "unix:mode", LinkOption.NOFOLLOW_LINKS);
            return (mode & 0170000) == 0140000;
        } catch (IOException | UnsupportedOperationException | IllegalArgumentException e) {
            return false;
        }
    }
}
