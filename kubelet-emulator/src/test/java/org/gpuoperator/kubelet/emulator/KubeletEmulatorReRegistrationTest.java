package org.gpuoperator.kubelet.emulator;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.grpc.stub.StreamObserver;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.gpuoperator.kubelet.UnixSockets;
import org.gpuoperator.kubelet.deviceplugin.v1beta1.AllocateRequest;
import org.gpuoperator.kubelet.deviceplugin.v1beta1.AllocateResponse;
import org.gpuoperator.kubelet.deviceplugin.v1beta1.ContainerAllocateResponse;
import org.gpuoperator.kubelet.deviceplugin.v1beta1.Device;
import org.gpuoperator.kubelet.deviceplugin.v1beta1.DevicePluginGrpc;
import org.gpuoperator.kubelet.deviceplugin.v1beta1.DevicePluginOptions;
import org.gpuoperator.kubelet.deviceplugin.v1beta1.Empty;
import org.gpuoperator.kubelet.deviceplugin.v1beta1.ListAndWatchResponse;
import org.gpuoperator.kubelet.deviceplugin.v1beta1.RegisterRequest;
import org.gpuoperator.kubelet.deviceplugin.v1beta1.RegistrationGrpc;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A plugin replaced by a new one (a DaemonSet rollout) over real unix sockets. */
class KubeletEmulatorReRegistrationTest {

    static final String RESOURCE = "example.com/dev";
    static final Duration WAIT = Duration.ofSeconds(10);

    @TempDir Path dir;
    final EventLoopGroup group = UnixSockets.eventLoops("test-plugin", 1);
    KubeletEmulator kubelet;
    Server first;
    Server second;

    @AfterEach
    void tearDown() {
        for (Server s : new Server[] {first, second}) {
            if (s != null) {
                s.shutdownNow();
            }
        }
        if (kubelet != null) {
            kubelet.close();
        }
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    }

    @Test
    void theKnownDevicesStayUntilTheNewPluginsFirstListAndAllocateReachesTheNewPlugin()
            throws Exception {
        kubelet = KubeletEmulator.start(dir);
        first = serve("first.sock", "first", new CountDownLatch(0), "dev-0", "dev-1");
        register("first.sock");
        kubelet.awaitDevices(RESOURCE, d -> d.size() == 2, WAIT);

        CountDownLatch firstList = new CountDownLatch(1);
        second = serve("second.sock", "second", firstList, "dev-0");
        long before = System.nanoTime();
        register("second.sock");
        kubelet.awaitRegistration(RESOURCE, before, WAIT);

        // before the new plugin's first list: the devices the kubelet knew, served by the new one
        assertThat(kubelet.devices(RESOURCE))
                .extracting(Device::getID)
                .containsExactly("dev-0", "dev-1");
        assertThat(kubelet.updates(RESOURCE)).isEmpty();
        AllocateResponse r = kubelet.allocate(RESOURCE, List.of("dev-0"));
        assertThat(r.getContainerResponses(0).getEnvsMap()).containsEntry("SERVED_BY", "second");

        firstList.countDown();
        assertThat(kubelet.awaitDevices(RESOURCE, d -> d.size() == 1, WAIT))
                .extracting(Device::getID)
                .containsExactly("dev-0");
    }

    private void register(String endpoint) {
        ManagedChannel ch = UnixSockets.dial(kubelet.socket(), group);
        try {
            RegistrationGrpc.newBlockingStub(ch)
                    .withDeadlineAfter(10, TimeUnit.SECONDS)
                    .register(
                            RegisterRequest.newBuilder()
                                    .setVersion(KubeletEmulator.SUPPORTED_VERSION)
                                    .setEndpoint(endpoint)
                                    .setResourceName(RESOURCE)
                                    .build());
        } finally {
            ch.shutdownNow();
        }
    }

    /** A plugin that lists {@code ids} once {@code listed} opens and names itself in Allocate. */
    private Server serve(String socket, String name, CountDownLatch listed, String... ids)
            throws Exception {
        DevicePluginGrpc.DevicePluginImplBase plugin =
                new DevicePluginGrpc.DevicePluginImplBase() {
                    @Override
                    public void getDevicePluginOptions(
                            Empty req, StreamObserver<DevicePluginOptions> out) {
                        out.onNext(DevicePluginOptions.getDefaultInstance());
                        out.onCompleted();
                    }

                    @Override
                    public void listAndWatch(Empty req, StreamObserver<ListAndWatchResponse> out) {
                        Thread.ofVirtual()
                                .start(
                                        () -> {
                                            try {
                                                listed.await();
                                            } catch (InterruptedException e) {
                                                return;
                                            }
                                            ListAndWatchResponse.Builder b =
                                                    ListAndWatchResponse.newBuilder();
                                            for (String id : ids) {
                                                b.addDevices(
                                                        Device.newBuilder()
                                                                .setID(id)
                                                                .setHealth("Healthy"));
                                            }
                                            out.onNext(b.build()); // the stream stays open
                                        });
                    }

                    @Override
                    public void allocate(
                            AllocateRequest req, StreamObserver<AllocateResponse> out) {
                        out.onNext(
                                AllocateResponse.newBuilder()
                                        .addContainerResponses(
                                                ContainerAllocateResponse.newBuilder()
                                                        .putEnvs("SERVED_BY", name))
                                        .build());
                        out.onCompleted();
                    }
                };
        return UnixSockets.serve(dir.resolve(socket), group, plugin);
    }
}
