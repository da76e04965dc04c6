package org.gpuoperator.kubelet.cri;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.Attributes;
import io.grpc.Server;
import io.grpc.ServerTransportFilter;
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
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
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
    final AtomicInteger connections = new AtomicInteger();

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
                        .addTransportFilter(
                                new ServerTransportFilter() {
                                    @Override
                                    public Attributes transportReady(Attributes attributes) {
                                        connections.incrementAndGet();
                                        return attributes;
                                    }
                                })
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
    void theWarmUpReadsItsCannedAnswerBackAndConnectsNothing() {
        Path socket = dir.resolve("cri.sock");
        StatusResponse canned = CriClient.warmUp(socket, Map.of("config", "{\"a\":1}"));
        assertThat(canned.getInfoMap()).containsExactly(Map.entry("config", "{\"a\":1}"));
        assertThat(connections).as("no connection to the runtime").hasValue(0);
        // a socket nobody listens on is no error either: nothing dials it
        assertThat(CriClient.warmUp(dir.resolve("none.sock"), Map.of()).getInfoMap()).isEmpty();
        try (CriClient cri = new CriClient(socket)) {
            assertThat(cri.version().getRuntimeName()).isEqualTo("fake");
        }
        assertThat(connections).as("a real call connects").hasValue(1);
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
