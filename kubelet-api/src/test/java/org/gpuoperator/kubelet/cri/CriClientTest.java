package org.gpuoperator.kubelet.cri;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.Server;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.grpc.netty.NettyServerBuilder;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.grpc.netty.shaded.io.netty.channel.epoll.EpollServerDomainSocketChannel;
import io.grpc.netty.shaded.io.netty.channel.unix.DomainSocketAddress;
import io.grpc.stub.StreamObserver;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.gpuoperator.kubelet.UnixSockets;
import org.gpuoperator.kubelet.cri.v1.Image;
import org.gpuoperator.kubelet.cri.v1.ImageServiceGrpc;
import org.gpuoperator.kubelet.cri.v1.ImageStatusRequest;
import org.gpuoperator.kubelet.cri.v1.ImageStatusResponse;
import org.gpuoperator.kubelet.cri.v1.RuntimeServiceGrpc;
import org.gpuoperator.kubelet.cri.v1.StatusRequest;
import org.gpuoperator.kubelet.cri.v1.StatusResponse;
import org.gpuoperator.kubelet.cri.v1.VersionRequest;
import org.gpuoperator.kubelet.cri.v1.VersionResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The client against a fake runtime on a unix socket: the wire names, deadlines, and the socket
 * path limit.
 */
class CriClientTest {

    Path dir;
    Server server;
    EventLoopGroup group;

    @BeforeEach
    void serve() throws Exception {
        dir = Files.createTempDirectory(Path.of("/tmp"), "cric-");
        group = UnixSockets.eventLoops("fake-cri", 1);
        server =
                NettyServerBuilder.forAddress(
                                new DomainSocketAddress(dir.resolve("cri.sock").toString()))
                        .channelType(EpollServerDomainSocketChannel.class)
                        .bossEventLoopGroup(group)
                        .workerEventLoopGroup(group)
                        .addService(
                                new RuntimeServiceGrpc.RuntimeServiceImplBase() {
                                    @Override
                                    public void version(
                                            VersionRequest request,
                                            StreamObserver<VersionResponse> out) {
                                        out.onNext(
                                                VersionResponse.newBuilder()
                                                        .setVersion(request.getVersion())
                                                        .setRuntimeName("fake")
                                                        .setRuntimeApiVersion("v1")
                                                        .build());
                                        out.onCompleted();
                                    }

                                    @Override
                                    public void status(
                                            StatusRequest request,
                                            StreamObserver<StatusResponse> out) {
                                        // never answers: the client's deadline must end the call
                                    }
                                })
                        .addService(
                                new ImageServiceGrpc.ImageServiceImplBase() {
                                    @Override
                                    public void imageStatus(
                                            ImageStatusRequest request,
                                            StreamObserver<ImageStatusResponse> out) {
                                        ImageStatusResponse.Builder r =
                                                ImageStatusResponse.newBuilder();
                                        if (request.getImage().getImage().equals("present:1")) {
                                            r.setImage(
                                                    Image.newBuilder()
                                                            .setId("sha256:abc")
                                                            .addRepoTags("present:1"));
                                        }
                                        out.onNext(r.build());
                                        out.onCompleted();
                                    }
                                })
                        .build()
                        .start();
    }

    @AfterEach
    void stop() throws Exception {
        server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
        Files.deleteIfExists(dir.resolve("cri.sock"));
        Files.deleteIfExists(dir);
    }

    @Test
    void callsGoToRuntimeV1OverTheUnixSocket() {
        try (CriClient cri = new CriClient(dir.resolve("cri.sock"))) {
            VersionResponse v = cri.version();
            assertThat(v.getVersion()).isEqualTo("v1");
            assertThat(v.getRuntimeName()).isEqualTo("fake");
            assertThat(cri.imageStatus("present:1")).map(Image::getId).contains("sha256:abc");
            assertThat(cri.imageStatus("absent:1")).isEmpty();
        }
    }

    @Test
    void aCallTheRuntimeNeverAnswersEndsAtTheDeadline() {
        try (CriClient cri = new CriClient(dir.resolve("cri.sock"), Duration.ofMillis(300))) {
            long start = System.nanoTime();
            assertThatThrownBy(cri::status)
                    .isInstanceOf(StatusRuntimeException.class)
                    .extracting(e -> ((StatusRuntimeException) e).getStatus().getCode())
                    .isEqualTo(Status.Code.DEADLINE_EXCEEDED);
            assertThat(Duration.ofNanos(System.nanoTime() - start))
                    .isLessThan(Duration.ofSeconds(5));
        }
    }

    @Test
    void aSocketPathTheKernelCannotBindIsRefusedWithItsLength() {
        Path tooLong = Path.of("/tmp/" + "x".repeat(120) + "/cri.sock");
        assertThatThrownBy(() -> new CriClient(tooLong))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("longer than 107 bytes");
        assertThat(UnixSockets.target(Path.of("/run/containerd/containerd.sock")))
                .isEqualTo("unix:///run/containerd/containerd.sock");
    }
}
