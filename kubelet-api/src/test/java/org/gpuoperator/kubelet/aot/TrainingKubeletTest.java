package org.gpuoperator.kubelet.aot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.ManagedChannel;
import io.grpc.Server;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.grpc.stub.StreamObserver;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.gpuoperator.kubelet.UnixSockets;
import org.gpuoperator.kubelet.deviceplugin.v1beta1.DevicePluginGrpc;
import org.gpuoperator.kubelet.deviceplugin.v1beta1.DevicePluginOptions;
import org.gpuoperator.kubelet.deviceplugin.v1beta1.Empty;
import org.gpuoperator.kubelet.deviceplugin.v1beta1.ListAndWatchResponse;
import org.gpuoperator.kubelet.deviceplugin.v1beta1.RegisterRequest;
import org.gpuoperator.kubelet.deviceplugin.v1beta1.RegistrationGrpc;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The training's kubelet stand-in, as a device plugin meets it. */
class TrainingKubeletTest {

    Path dir;
    EventLoopGroup group;

    @BeforeEach
    void dir() throws Exception {
        dir = Files.createTempDirectory(Path.of("/tmp"), "tkub-");
        group = UnixSockets.eventLoops("test-plugin", 1);
    }

    @AfterEach
    void clean() throws Exception {
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        try (var files = Files.walk(dir)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    /** A plugin that records the calls the kubelet makes to it. */
    static final class RecordingPlugin extends DevicePluginGrpc.DevicePluginImplBase {
        final List<String> calls = new CopyOnWriteArrayList<>();

        @Override
        public void getDevicePluginOptions(Empty request, StreamObserver<DevicePluginOptions> out) {
            calls.add("GetDevicePluginOptions");
            out.onNext(DevicePluginOptions.getDefaultInstance());
            out.onCompleted();
        }

        @Override
        public void listAndWatch(Empty request, StreamObserver<ListAndWatchResponse> out) {
            calls.add("ListAndWatch");
            out.onNext(ListAndWatchResponse.getDefaultInstance());
        }
    }

    private static void register(Path kubeletSocket, EventLoopGroup group, String endpoint) {
        ManagedChannel ch = UnixSockets.dial(kubeletSocket, group);
        try {
            RegistrationGrpc.newBlockingStub(ch)
                    .withDeadlineAfter(20, TimeUnit.SECONDS)
                    .register(
                            RegisterRequest.newBuilder()
                                    .setVersion("v1beta1")
                                    .setEndpoint(endpoint)
                                    .setResourceName("nvidia.com/gpu")
                                    .build());
        } finally {
            ch.shutdownNow();
        }
    }

    @Test
    void aRegisterIsAnsweredAfterTheOptionsAndThePluginIsThenWatched() throws Exception {
        Path socket = dir.resolve("kubelet.sock");
        RecordingPlugin plugin = new RecordingPlugin();
        Server served = UnixSockets.serve(dir.resolve("nvidia-gpu.sock"), group, plugin);
        try (TrainingKubelet kubelet = TrainingKubelet.start(socket)) {
            register(socket, group, "nvidia-gpu.sock");
            assertThat(plugin.calls)
                    .as("the kubelet asks for the options before Register returns")
                    .startsWith("GetDevicePluginOptions");
            assertThat(kubelet.awaitListed("nvidia.com/gpu", 20_000)).isTrue();
            assertThat(plugin.calls).containsExactly("GetDevicePluginOptions", "ListAndWatch");
            assertThat(kubelet.listed()).containsExactly("nvidia.com/gpu");
        } finally {
            served.shutdownNow();
        }
    }

    @Test
    void aRegisterWhoseEndpointNobodyServesFailsAsTheKubeletsDoes() throws Exception {
        Path socket = dir.resolve("kubelet.sock");
        Files.createFile(dir.resolve("nvidia-gpu.sock")); // a file, not a served socket
        try (TrainingKubelet kubelet = TrainingKubelet.start(socket)) {
            assertThatThrownBy(() -> register(socket, group, "nvidia-gpu.sock"))
                    .isInstanceOfSatisfying(
                            StatusRuntimeException.class,
                            e -> {
                                assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNKNOWN);
                                assertThat(e.getStatus().getDescription())
                                        .startsWith("failed to dial device plugin");
                            });
            assertThat(kubelet.listed()).isEmpty();
        }
    }

    @Test
    void itsOwnRegistrationRunsThePathOnceAndLeavesNoSocketBehind() throws Exception {
        Path socket = dir.resolve("kubelet.sock");
        try (TrainingKubelet kubelet = TrainingKubelet.start(socket)) {
            kubelet.registerSelf(socket);
            assertThat(kubelet.listed()).containsExactly(TrainingKubelet.SELF_RESOURCE);
            assertThat(dir.resolve(TrainingKubelet.SELF_ENDPOINT)).doesNotExist();
            assertThat(UnixSockets.isSocket(socket)).isTrue();
        }
    }
}
