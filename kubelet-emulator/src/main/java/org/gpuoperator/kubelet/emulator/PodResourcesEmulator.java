package org.gpuoperator.kubelet.emulator;

import io.grpc.Server;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.MultiThreadIoEventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollIoHandler;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollServerDomainSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.unix.DomainSocketAddress;
import io.grpc.stub.StreamObserver;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.gpuoperator.kubelet.podresources.v1.ContainerDevices;
import org.gpuoperator.kubelet.podresources.v1.ContainerResources;
import org.gpuoperator.kubelet.podresources.v1.ListPodResourcesRequest;
import org.gpuoperator.kubelet.podresources.v1.ListPodResourcesResponse;
import org.gpuoperator.kubelet.podresources.v1.PodResources;
import org.gpuoperator.kubelet.podresources.v1.PodResourcesListerGrpc;

/**
 * A stand-in for the kubelet's pod-resources endpoint: a real gRPC {@code v1.PodResourcesLister}
 * server on a unix socket, answering {@code List} with whatever pod list was last set. Used by this
 * module's tests and by the simulated cluster, where no kubelet assigns real GPUs.
 */
public final class PodResourcesEmulator implements AutoCloseable {

    /** One pod as the kubelet reports it. */
    public record Pod(String name, String namespace, List<Container> containers) {
        public Pod {
            containers = List.copyOf(containers);
        }
    }

    public record Container(String name, List<Devices> devices) {
        public Container {
            devices = List.copyOf(devices);
        }
    }

    /** Device IDs of one resource, exactly as the device plugin advertised them. */
    public record Devices(String resourceName, List<String> deviceIds) {
        public Devices {
            deviceIds = List.copyOf(deviceIds);
        }
    }

    /** A pod with one container holding {@code deviceIds} of {@code resourceName}. */
    public static Pod pod(
            String namespace,
            String name,
            String container,
            String resourceName,
            String... deviceIds) {
        return new Pod(
                name,
                namespace,
                List.of(
                        new Container(
                                container,
                                List.of(new Devices(resourceName, List.of(deviceIds))))));
    }

    private final Path socket;
    private final Server server;
    private final EventLoopGroup group;
    private final AtomicInteger listCalls = new AtomicInteger();
    private volatile ListPodResourcesResponse response =
            ListPodResourcesResponse.getDefaultInstance();

    private PodResourcesEmulator(Path socket, Server server, EventLoopGroup group) {
        this.socket = socket;
        this.server = server;
        this.group = group;
    }

    /** Serves on {@code socket} (replacing a stale socket file, as the kubelet does). */
    public static PodResourcesEmulator start(Path socket) throws IOException {
        Files.createDirectories(socket.toAbsolutePath().getParent());
        Files.deleteIfExists(socket);
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, EpollIoHandler.newFactory());
        PodResourcesEmulator[] self = new PodResourcesEmulator[1];
        Server server =
                NettyServerBuilder.forAddress(new DomainSocketAddress(socket.toString()))
                        .channelType(EpollServerDomainSocketChannel.class)
                        .bossEventLoopGroup(group)
                        .workerEventLoopGroup(group)
                        .addService(
                                new PodResourcesListerGrpc.PodResourcesListerImplBase() {
                                    @Override
                                    public void list(
                                            ListPodResourcesRequest request,
                                            StreamObserver<ListPodResourcesResponse> observer) {
                                        self[0].listCalls.incrementAndGet();
                                        observer.onNext(self[0].response);
                                        observer.onCompleted();
                                    }
                                })
                        .build();
        PodResourcesEmulator emulator = new PodResourcesEmulator(socket, server, group);
        self[0] = emulator;
        try {
            server.start();
        } catch (IOException e) {
            group.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS);
            throw e;
        }
        return emulator;
    }

    /** Replaces the whole pod list; the next List answers with it. */
    public void setPods(List<Pod> pods) {
        ListPodResourcesResponse.Builder b = ListPodResourcesResponse.newBuilder();
        for (Pod p : pods) {
            PodResources.Builder pb =
                    PodResources.newBuilder().setName(p.name()).setNamespace(p.namespace());
            for (Container c : p.containers()) {
                ContainerResources.Builder cb = ContainerResources.newBuilder().setName(c.name());
                for (Devices d : c.devices()) {
                    cb.addDevices(
                            ContainerDevices.newBuilder()
                                    .setResourceName(d.resourceName())
                                    .addAllDeviceIds(d.deviceIds()));
                }
                pb.addContainers(cb);
            }
            b.addPodResources(pb);
        }
        response = b.build();
    }

    public Path socket() {
        return socket;
    }

    /** How many List calls were answered, to check caching. */
    public int listCalls() {
        return listCalls.get();
    }

    @Override
    public void close() {
        server.shutdownNow();
        try {
            server.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        group.shutdownGracefully(0, 0, TimeUnit.MILLISECONDS);
        try {
            Files.deleteIfExists(socket);
        } catch (IOException ignored) {
            // best effort: a leftover socket file is replaced on the next start
        }
    }
}
