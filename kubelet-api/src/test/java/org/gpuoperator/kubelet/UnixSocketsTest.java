package org.gpuoperator.kubelet;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Server;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.gpuoperator.kubelet.cri.v1.RuntimeServiceGrpc;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class UnixSocketsTest {

    @TempDir Path dir;

    @Test
    void anUnstartedServerTouchesNoFileAndServesOnceStarted() throws Exception {
        Path socket = dir.resolve("plugin.sock");
        Files.writeString(socket, "a file that serve() would replace");
        EventLoopGroup group = UnixSockets.eventLoops("unstarted-test", 1);
        try {
            Server server =
                    UnixSockets.unstarted(
                            socket,
                            group,
                            null,
                            new RuntimeServiceGrpc.RuntimeServiceImplBase() {});
            assertThat(server.isShutdown()).isFalse();
            assertThat(Files.readString(socket)).isEqualTo("a file that serve() would replace");
            assertThat(UnixSockets.isSocket(socket)).isFalse();

            Files.delete(socket);
            server.start();
            try {
                assertThat(UnixSockets.isSocket(socket)).isTrue();
                assertThat(UnixSockets.listening(socket)).isTrue();
            } finally {
                server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
            }
        } finally {
            group.shutdownGracefully(0, 0, TimeUnit.SECONDS).await(5, TimeUnit.SECONDS);
        }
    }
}
