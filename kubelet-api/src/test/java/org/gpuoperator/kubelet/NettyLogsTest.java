package org.gpuoperator.kubelet;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Server;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.grpc.netty.shaded.io.netty.util.internal.logging.InternalLoggerFactory;
import io.grpc.netty.shaded.io.netty.util.internal.logging.JdkLoggerFactory;
import io.grpc.stub.StreamObserver;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.logging.Handler;
import java.util.logging.Level;
import java.util.logging.LogRecord;
import java.util.logging.Logger;
import org.gpuoperator.kubelet.cri.CriClient;
import org.gpuoperator.kubelet.cri.v1.RuntimeServiceGrpc;
import org.gpuoperator.kubelet.cri.v1.VersionRequest;
import org.gpuoperator.kubelet.cri.v1.VersionResponse;
import org.junit.jupiter.api.Test;

/** netty's SO_KEEPALIVE warning on a unix socket, seen without the setting and not with it. */
class NettyLogsTest {

    @Test
    void theKeepAliveWarningOfEachUnixSocketConnectionStaysOutOfTheLog() throws Exception {
        // netty logs through java.util.logging here (no SLF4J provider on this class path)
        assertThat(InternalLoggerFactory.getDefaultFactory()).isInstanceOf(JdkLoggerFactory.class);
        Path dir = Files.createTempDirectory(Path.of("/tmp"), "nettylogs-");
        Path socket = dir.resolve("cri.sock");
        EventLoopGroup group = UnixSockets.eventLoops("nettylogs", 1);
        Server server =
                UnixSockets.serve(
                        socket,
                        group,
                        new RuntimeServiceGrpc.RuntimeServiceImplBase() {
                            @Override
                            public void version(
                                    VersionRequest request, StreamObserver<VersionResponse> out) {
                                out.onNext(VersionResponse.newBuilder().setVersion("v1").build());
                                out.onCompleted();
                            }
                        });
        Logger bootstrap = Logger.getLogger("io.grpc.netty.shaded.io.netty.bootstrap");
        List<LogRecord> records = new CopyOnWriteArrayList<>();
        Handler capture =
                new Handler() {
                    @Override
                    public void publish(LogRecord r) {
                        records.add(r);
                    }

                    @Override
                    public void flush() {}

                    @Override
                    public void close() {}
                };
        capture.setLevel(Level.ALL);
        bootstrap.addHandler(capture);
        try {
            // the JDK's default level: netty warns at the connect (and at the accept)
            bootstrap.setLevel(null);
            try (CriClient cri = new CriClient(socket)) {
                assertThat(cri.version().getVersion()).isEqualTo("v1");
            }
            assertThat(records)
                    .anySatisfy(r -> assertThat(r.getMessage()).contains("SO_KEEPALIVE"));

            records.clear();
            NettyLogs.quietBootstrap();
            try (CriClient cri = new CriClient(socket)) {
                assertThat(cri.version().getVersion()).isEqualTo("v1");
            }
            assertThat(records).isEmpty();
            assertThat(
                            System.getProperty(
                                    "org.slf4j.simpleLogger.log.io.grpc.netty.shaded.io.netty.bootstrap"))
                    .isEqualTo("error");
        } finally {
            bootstrap.removeHandler(capture);
            NettyLogs.quietBootstrap();
            server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            Files.deleteIfExists(socket);
            Files.deleteIfExists(dir);
        }
    }
}
