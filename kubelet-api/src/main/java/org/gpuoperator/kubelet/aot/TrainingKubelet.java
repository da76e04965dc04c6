package org.gpuoperator.kubelet.aot;

import io.grpc.Context;
import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.grpc.stub.StreamObserver;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.gpuoperator.kubelet.UnixSockets;
import org.gpuoperator.kubelet.deviceplugin.v1beta1.DevicePluginGrpc;
import org.gpuoperator.kubelet.deviceplugin.v1beta1.DevicePluginOptions;
import org.gpuoperator.kubelet.deviceplugin.v1beta1.Empty;
import org.gpuoperator.kubelet.deviceplugin.v1beta1.ListAndWatchResponse;
import org.gpuoperator.kubelet.deviceplugin.v1beta1.RegisterRequest;
import org.gpuoperator.kubelet.deviceplugin.v1beta1.RegistrationGrpc;

/**
 * A stand-in for the kubelet's device-plugin registration socket in an image's AOT training run
 * (images/aot-training.sh), never on a node. The device plugin is ready once the kubelet has taken
 * its {@code Register}; a training run without a kubelet stopped at {@code serving}, so the cache
 * held neither the Register call's classes nor those of the kubelet's calls that follow it, and the
 * plugin's readiness was never part of its start's figure.
 *
 * <p>Like the kubelet on {@code Register}: it dials the plugin's endpoint (a socket in its own
 * directory), calls {@code GetDevicePluginOptions} before it answers, then keeps a {@code
 * ListAndWatch} stream open. No version or resource-name checks (the plugin under training is
 * ours), no allocation, no pods. A failed dial-back is the Register's error, as in a kubelet.
 *
 * <p>Arguments: {@code <socket>}; prints {@code serving} once a plugin of its own has registered
 * through it (so the agent's Register is not also the stand-in's first, slow one, which a kubelet
 * written in Go never has); runs until killed.
 */
public final class TrainingKubelet implements AutoCloseable {

    /** The endpoint of the stand-in's own plugin, registered once to warm it; then removed. */
    static final String SELF_ENDPOINT = "aot-training-self.sock";

    static final String SELF_RESOURCE = "aot-training.example.com/self";

    private final Path dir;
    private final EventLoopGroup group;
    // Register blocks while it dials the plugin back: not on the event loop
    private final ExecutorService registers =
            Executors.newSingleThreadExecutor(
                    Thread.ofPlatform().name("training-kubelet-register").daemon().factory());
    private final List<ManagedChannel> plugins = new CopyOnWriteArrayList<>();
    private final List<String> listed = new ArrayList<>();
    private Server server;

    private TrainingKubelet(Path dir) {
        this.dir = dir;
        this.group = UnixSockets.eventLoops("training-kubelet", 1);
    }

    /** Serves {@code socket} (a stale socket file there is replaced). */
    public static TrainingKubelet start(Path socket) throws IOException {
        TrainingKubelet k = new TrainingKubelet(socket.toAbsolutePath().getParent());
        try {
            k.server = UnixSockets.serve(socket, k.group, k.registers, k.new Registration());
            return k;
        } catch (IOException | RuntimeException e) {
            k.registers.shutdownNow();
            k.group.shutdownGracefully(0, 0, TimeUnit.SECONDS);
            throw e;
        }
    }

    /** Resource names whose plugin has sent its first device list, in order. */
    public synchronized List<String> listed() {
        return List.copyOf(listed);
    }

    /** Whether {@code resource}'s first device list came within {@code millis}. */
    public synchronized boolean awaitListed(String resource, long millis)
            throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        while (!listed.contains(resource)) {
            long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
            if (left <= 0) {
                return false;
            }
            wait(left);
        }
        return true;
    }

    private final class Registration extends RegistrationGrpc.RegistrationImplBase {
        @Override
        public void register(RegisterRequest req, StreamObserver<Empty> out) {
            ManagedChannel ch = UnixSockets.dial(dir.resolve(req.getEndpoint()), group);
            try {
                // no wait for ready: a plugin serves before it registers
                DevicePluginGrpc.newBlockingStub(ch)
                        .withDeadlineAfter(10, TimeUnit.SECONDS)
                        .getDevicePluginOptions(Empty.getDefaultInstance());
            } catch (RuntimeException e) {
                ch.shutdownNow();
                out.onError(
                        Status.UNKNOWN
                                .withDescription("failed to dial device plugin: " + e.getMessage())
                                .asRuntimeException());
                return;
            }
            plugins.add(ch);
            // not in the Register call's context, which is cancelled when Register returns
            Context.ROOT.run(() -> listAndWatch(ch, req.getResourceName()));
            out.onNext(Empty.getDefaultInstance());
            out.onCompleted();
        }
    }

    private void listAndWatch(ManagedChannel ch, String resource) {
        DevicePluginGrpc.newStub(ch)
                .listAndWatch(
                        Empty.getDefaultInstance(),
                        new StreamObserver<>() {
                            boolean first = true;

                            @Override
                            public void onNext(ListAndWatchResponse r) {
                                if (first) {
                                    first = false;
                                    synchronized (TrainingKubelet.this) {
                                        listed.add(resource);
                                        TrainingKubelet.this.notifyAll();
                                    }
                                }
                            }

                            @Override
                            public void onError(Throwable t) {}

                            @Override
                            public void onCompleted() {}
                        });
    }

    /**
     * Registers a plugin of the stand-in's own through its socket and waits for its first list:
     * every path a Register takes has then run once in this JVM. The plugin is stopped after.
     */
    void registerSelf(Path socket) throws IOException, InterruptedException {
        Server self =
                UnixSockets.serve(
                        dir.resolve(SELF_ENDPOINT),
                        group,
                        new DevicePluginGrpc.DevicePluginImplBase() {
                            @Override
                            public void getDevicePluginOptions(
                                    Empty request, StreamObserver<DevicePluginOptions> out) {
                                out.onNext(DevicePluginOptions.getDefaultInstance());
                                out.onCompleted();
                            }

                            @Override
                            public void listAndWatch(
                                    Empty request, StreamObserver<ListAndWatchResponse> out) {
                                out.onNext(ListAndWatchResponse.getDefaultInstance());
                            }
                        });
        ManagedChannel ch = UnixSockets.dial(socket, group);
        try {
            RegistrationGrpc.newBlockingStub(ch)
                    .withDeadlineAfter(30, TimeUnit.SECONDS)
                    .register(
                            RegisterRequest.newBuilder()
                                    .setVersion("v1beta1")
                                    .setEndpoint(SELF_ENDPOINT)
                                    .setResourceName(SELF_RESOURCE)
                                    .build());
            if (!awaitListed(SELF_RESOURCE, 30_000)) {
                throw new IOException("the stand-in's own plugin was never listed");
            }
        } finally {
            ch.shutdownNow();
            self.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        }
    }

    @Override
    public void close() throws InterruptedException {
        plugins.forEach(ManagedChannel::shutdownNow);
        server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        registers.shutdownNow();
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 1) {
            System.err.println("usage: TrainingKubelet <socket>");
            System.exit(2);
        }
        Path socket = Path.of(args[0]);
        TrainingKubelet kubelet = start(socket);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> closeQuietly(kubelet)));
        kubelet.registerSelf(socket);
        System.out.println("serving " + socket);
        kubelet.server.awaitTermination();
    }

    private static void closeQuietly(TrainingKubelet kubelet) {
        try {
            kubelet.close();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
