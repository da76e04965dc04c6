package org.gpuoperator.kubelet.cri;

import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.MultiThreadIoEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollDomainSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollIoHandler;
import io.grpc.netty.shaded.io.netty.channel.unix.DomainSocketAddress;
import io.grpc.netty.shaded.io.netty.util.concurrent.DefaultThreadFactory;
import java.nio.file.Path;

/** gRPC client channels to unix domain sockets over netty epoll, as the kubelet dials its runtime. */
public final class UnixChannels {

    /** The kernel's limit for {@code sun_path} is 108 bytes including the terminating NUL. */
    public static final int MAX_SOCKET_PATH_BYTES = 107;

    private UnixChannels() {}

    /** One small group of daemon event-loop threads; callers own and shut it down. */
    public static EventLoopGroup eventLoops(String name, int threads) {
        return new MultiThreadIoEventLoopGroup(threads, new DefaultThreadFactory(name, true), EpollIoHandler.newFactory());
    }

    /** The target string a kubelet would be configured with, e.g. {@code unix:///run/containerd/containerd.sock}. */
    public static String target(Path socket) {
        return "unix://" + socket.toAbsolutePath();
    }

    /**
     * A plaintext channel to {@code socket} with authority "localhost". Fails fast on a path the kernel cannot bind to,
     * which otherwise shows up later as an opaque connection error.
     */
    public static ManagedChannel dial(Path socket, EventLoopGroup group) {
        String path = socket.toAbsolutePath().toString();
        if (path.getBytes(java.nio.charset.StandardCharsets.UTF_8).length > MAX_SOCKET_PATH_BYTES) {
            throw new IllegalArgumentException("unix socket path longer than " + MAX_SOCKET_PATH_BYTES + " bytes: " + path);
        }
        return NettyChannelBuilder.forAddress(new DomainSocketAddress(path))
                .channelType(EpollDomainSocketChannel.class)
                .eventLoopGroup(group)
                .overrideAuthority("localhost")
                .usePlaintext()
                .maxInboundMessageSize(16 * 1024 * 1024)
                .build();
    }
}
