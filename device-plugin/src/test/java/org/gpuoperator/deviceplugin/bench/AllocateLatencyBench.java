package org.gpuoperator.deviceplugin.bench;

import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Iterator;
import java.util.concurrent.TimeUnit;
import org.gpuoperator.kubelet.UnixSockets;
import org.gpuoperator.kubelet.deviceplugin.v1beta1.AllocateRequest;
import org.gpuoperator.kubelet.deviceplugin.v1beta1.ContainerAllocateRequest;
import org.gpuoperator.kubelet.deviceplugin.v1beta1.DevicePluginGrpc;
import org.gpuoperator.kubelet.deviceplugin.v1beta1.Empty;
import org.gpuoperator.kubelet.deviceplugin.v1beta1.ListAndWatchResponse;
import org.gpuoperator.kubelet.deviceplugin.v1beta1.PreStartContainerRequest;

/**
 * Allocate latency against an empty call on the same socket, as the kubelet sees it: a separate
 * process dials the plugin's unix socket and alternates Allocate (one GPU, as at pod admission)
 * with PreStartContainer (an empty request answered with an empty response). Not a unit test; run
 * by {@code device-plugin/bench/run-bench.sh}.
 *
 * <p>Arguments: {@code SOCKET [WARMUP] [ITERATIONS]}.
 */
public final class AllocateLatencyBench {

    public static void main(String[] args) {
        Path socket = Path.of(args[0]);
        int warmup = args.length > 1 ? Integer.parseInt(args[1]) : 20_000;
        int iterations = args.length > 2 ? Integer.parseInt(args[2]) : 50_000;
        EventLoopGroup group = UnixSockets.eventLoops("bench", 1);
        ManagedChannel ch = UnixSockets.dial(socket, group);
        var stub = DevicePluginGrpc.newBlockingStub(ch);
        Iterator<ListAndWatchResponse> watch = stub.listAndWatch(Empty.getDefaultInstance());
        String device = watch.next().getDevices(0).getID();
        AllocateRequest allocate =
                AllocateRequest.newBuilder()
                        .addContainerRequests(
                                ContainerAllocateRequest.newBuilder().addDevicesIds(device))
                        .build();
        PreStartContainerRequest empty = PreStartContainerRequest.getDefaultInstance();
        if (stub.allocate(allocate).getContainerResponses(0).getEnvsCount() == 0) {
            throw new IllegalStateException("Allocate returned no environment");
        }
        for (int i = 0; i < warmup; i++) {
            stub.allocate(allocate);
            stub.preStartContainer(empty);
        }
        long[] alloc = new long[iterations];
        long[] noop = new long[iterations];
        for (int i = 0; i < iterations; i++) {
            // alternate which goes first, so drift and GC land on both alike
            if ((i & 1) == 0) {
                alloc[i] = time(() -> stub.allocate(allocate));
                noop[i] = time(() -> stub.preStartContainer(empty));
            } else {
                noop[i] = time(() -> stub.preStartContainer(empty));
                alloc[i] = time(() -> stub.allocate(allocate));
            }
        }
        Arrays.sort(alloc);
        Arrays.sort(noop);
        System.out.printf(
                "calls per kind: %d (after %d warm-up pairs), socket %s%n",
                iterations, warmup, socket);
        System.out.printf("%-26s %9s %9s %9s%n", "call", "p50 us", "p99 us", "p99.9 us");
        row("Allocate (1 GPU)", alloc);
        row("empty (PreStartContainer)", noop);
        System.out.printf(
                "ratio Allocate/empty: p50 %.2f, p99 %.2f%n",
                (double) pct(alloc, 50) / pct(noop, 50), (double) pct(alloc, 99) / pct(noop, 99));
        ch.shutdownNow();
        try {
            ch.awaitTermination(2, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    }

    private static long time(Runnable call) {
        long t0 = System.nanoTime();
        call.run();
        return System.nanoTime() - t0;
    }

    private static long pct(long[] sorted, double p) {
        return sorted[Math.min(sorted.length - 1, (int) Math.ceil(p / 100 * sorted.length) - 1)];
    }

    private static void row(String name, long[] sorted) {
        System.out.printf(
                "%-26s %9.1f %9.1f %9.1f%n",
                name, pct(sorted, 50) / 1e3, pct(sorted, 99) / 1e3, pct(sorted, 99.9) / 1e3);
    }
}
