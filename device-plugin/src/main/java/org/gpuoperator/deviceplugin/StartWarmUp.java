package org.gpuoperator.deviceplugin;

import io.grpc.ManagedChannel;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.gpuoperator.kubelet.UnixSockets;
import org.gpuoperator.kubelet.deviceplugin.v1beta1.DevicePluginGrpc;
import org.gpuoperator.kubelet.deviceplugin.v1beta1.RegisterRequest;
import org.gpuoperator.kubelet.deviceplugin.v1beta1.RegistrationGrpc;

/**
 * Readies, on a second thread while the command line and the config are read, what the plugin's
 * path to ready pays for the first time after them: netty's epoll transport and its native library,
 * a device plugin server (built, never started) and a Register call through gRPC's client (to
 * {@code /dev/null}, which no process can listen on: the call fails at connect). Nothing is bound,
 * dialled with success or written. A warm-up that fails, or has not finished when the agent gets
 * there, changes nothing but the time.
 */
final class StartWarmUp {

    /** Not a socket: a connect to it is refused, always. */
    static final Path NOWHERE = Path.of("/dev/null");

    private StartWarmUp() {}

    /** Starts the warm-up; the returned thread ends by itself. */
    static Thread start() {
        return Thread.ofPlatform().daemon().name("device-plugin-warm-up").start(StartWarmUp::run);
    }

    /**
     * Runs the warm-up; returns how the Register call ended ({@code UNAVAILABLE}: refused at
     * connect), or null when the warm-up failed before it.
     */
    static Status.Code run() {
        EventLoopGroup group = null;
        try {
            group = UnixSockets.eventLoops("device-plugin-warm-up", 1);
            UnixSockets.unstarted(
                    NOWHERE, group, null, new DevicePluginGrpc.DevicePluginImplBase() {});
            ManagedChannel ch = UnixSockets.dial(NOWHERE, group);
            try {
                RegistrationGrpc.newBlockingStub(ch)
                        .withDeadlineAfter(2, TimeUnit.SECONDS)
                        .register(RegisterRequest.getDefaultInstance());
                return Status.Code.OK; // not a socket: never
            } catch (StatusRuntimeException expected) {
                // refused: the client's path up to the connect has run
                return expected.getStatus().getCode();
            } finally {
                ch.shutdownNow();
            }
        } catch (RuntimeException e) {
            // the agent's own start says what is wrong, if anything is
            return null;
        } finally {
            if (group != null) {
                group.shutdownGracefully(0, 0, TimeUnit.SECONDS);
            }
        }
    }
}
