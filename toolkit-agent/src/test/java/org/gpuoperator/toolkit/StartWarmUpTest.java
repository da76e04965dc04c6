package org.gpuoperator.toolkit;

import static org.assertj.core.api.Assertions.assertThat;

import io.grpc.Server;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.grpc.stub.StreamObserver;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.gpuoperator.kubelet.UnixSockets;
import org.gpuoperator.kubelet.cri.v1.RuntimeServiceGrpc;
import org.gpuoperator.kubelet.cri.v1.StatusRequest;
import org.gpuoperator.kubelet.cri.v1.StatusResponse;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StartWarmUpTest {

    @TempDir Path dir;

    /** A CRI runtime that records each Status call. */
    private static final class Runtime extends RuntimeServiceGrpc.RuntimeServiceImplBase {
        final List<StatusRequest> calls = new CopyOnWriteArrayList<>();

        @Override
        public void status(StatusRequest request, StreamObserver<StatusResponse> out) {
            calls.add(request);
            out.onNext(StatusResponse.newBuilder().putInfo("config", "{}").build());
            out.onCompleted();
        }
    }

    private void serving(Runtime runtime, Path socket, Runnable during) throws Exception {
        EventLoopGroup group = UnixSockets.eventLoops("test-cri", 1);
        Server server = UnixSockets.serve(socket, group, runtime);
        try {
            during.run();
        } finally {
            server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
            group.shutdownGracefully(0, 0, TimeUnit.SECONDS).await(5, TimeUnit.SECONDS);
        }
    }

    @Test
    void callsNothingOnTheRuntimesSocket() throws Exception {
        // the runtime may be restarting, or not the one the toolkit's config is for yet
        Path socket = dir.resolve("containerd.sock");
        Runtime runtime = new Runtime();
        serving(
                runtime,
                socket,
                () -> StartWarmUp.run(new StartWarmUp.Needs(true, true, true, socket)));
        assertThat(runtime.calls).isEmpty();
    }

    @Test
    void noSocketOrNoCheckIsNoError() {
        StartWarmUp.run(new StartWarmUp.Needs(true, true, true, dir.resolve("missing.sock")));
        StartWarmUp.run(new StartWarmUp.Needs(false, false, false, null));
        // a path the kernel cannot connect to: the check reports it, the warm-up does not throw
        StartWarmUp.run(
                new StartWarmUp.Needs(false, false, false, dir.resolve("x".repeat(120) + ".sock")));
    }

    @Test
    void theThreadEndsByItself() throws Exception {
        Thread t =
                StartWarmUp.start(
                        new StartWarmUp.Needs(true, true, true, dir.resolve("containerd.sock")));
        t.join(TimeUnit.SECONDS.toMillis(30));
        assertThat(t.isAlive()).isFalse();
        assertThat(t.isDaemon()).isTrue();
    }
}
