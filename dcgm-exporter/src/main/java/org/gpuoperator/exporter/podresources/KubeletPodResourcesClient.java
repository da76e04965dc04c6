package org.gpuoperator.exporter.podresources;

import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.StatusRuntimeException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.logging.Logger;
import org.gpuoperator.kubelet.NettyLogs;
import org.gpuoperator.kubelet.podresources.v1.ContainerResources;
import org.gpuoperator.kubelet.podresources.v1.ListPodResourcesRequest;
import org.gpuoperator.kubelet.podresources.v1.ListPodResourcesResponse;
import org.gpuoperator.kubelet.podresources.v1.PodResources;
import org.gpuoperator.kubelet.podresources.v1.PodResourcesListerGrpc;

/**
 * The kubelet's pod-resources v1 {@code List} over its unix socket. One channel, opened on first
 * use and reused; each call has a short deadline so a hung kubelet cannot hold a scrape.
 */
public final class KubeletPodResourcesClient implements PodResourcesSource {

    /** netty's SO_KEEPALIVE warning at each connect, kept out of the exporter's log. */
    private static final Logger BOOTSTRAP_LOG = NettyLogs.quietBootstrap();

    public static final Path DEFAULT_SOCKET =
            Path.of("/var/lib/kubelet/pod-resources/kubelet.sock");

    private final Path socket;
    private final Duration deadline;
    private ManagedChannel channel;

    public KubeletPodResourcesClient(Path socket, Duration deadline) {
        this.socket = socket;
        this.deadline = deadline;
    }

    public Path socket() {
        return socket;
    }

    /** A file check only: no gRPC class is loaded and nothing is sent. */
    @Override
    public void checkReachable() {
        if (!Files.exists(socket)) {
            throw new PodResourcesUnavailableException(
                    "pod-resources socket " + socket + " does not exist", true);
        }
    }

    @Override
    public synchronized List<ContainerDevices> list() {
        try {
            checkReachable();
        } catch (PodResourcesUnavailableException missing) {
            closeChannel(); // the kubelet may come back on a new socket file: reconnect then
            throw missing;
        }
        if (channel == null) {
            channel =
                    Grpc.newChannelBuilder(
                                    "unix://" + socket.toAbsolutePath(),
                                    InsecureChannelCredentials.create())
                            .build();
        }
        ListPodResourcesResponse response;
        try {
            response =
                    PodResourcesListerGrpc.newBlockingStub(channel)
                            .withDeadlineAfter(deadline.toMillis(), TimeUnit.MILLISECONDS)
                            .list(ListPodResourcesRequest.getDefaultInstance());
        } catch (StatusRuntimeException e) {
            throw new PodResourcesUnavailableException(
                    "pod-resources List on "
                            + socket
                            + " failed: "
                            + e.getStatus().getCode()
                            + " "
                            + e.getStatus().getDescription(),
                    false);
        }
        return flatten(response);
    }

    /** Pure: the wire answer as one entry per (container, resource). */
    static List<ContainerDevices> flatten(ListPodResourcesResponse response) {
        List<ContainerDevices> out = new ArrayList<>();
        for (PodResources pod : response.getPodResourcesList()) {
            for (ContainerResources c : pod.getContainersList()) {
                for (var d : c.getDevicesList()) {
                    out.add(
                            new ContainerDevices(
                                    pod.getName(),
                                    pod.getNamespace(),
                                    c.getName(),
                                    d.getResourceName(),
                                    d.getDeviceIdsList()));
                }
            }
        }
        return out;
    }

    private void closeChannel() {
        if (channel != null) {
            channel.shutdownNow();
            channel = null;
        }
    }

    @Override
    public synchronized void close() {
        closeChannel();
    }
}
