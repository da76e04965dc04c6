package org.gpuoperator.kubelet.cri;

import com.google.protobuf.InvalidProtocolBufferException;
import io.grpc.ManagedChannel;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.gpuoperator.kubelet.UnixSockets;
import org.gpuoperator.kubelet.cri.v1.ContainerConfig;
import org.gpuoperator.kubelet.cri.v1.ContainerFilter;
import org.gpuoperator.kubelet.cri.v1.ContainerStatus;
import org.gpuoperator.kubelet.cri.v1.ContainerStatusRequest;
import org.gpuoperator.kubelet.cri.v1.CreateContainerRequest;
import org.gpuoperator.kubelet.cri.v1.ExecSyncRequest;
import org.gpuoperator.kubelet.cri.v1.ExecSyncResponse;
import org.gpuoperator.kubelet.cri.v1.Image;
import org.gpuoperator.kubelet.cri.v1.ImageServiceGrpc;
import org.gpuoperator.kubelet.cri.v1.ImageSpec;
import org.gpuoperator.kubelet.cri.v1.ImageStatusRequest;
import org.gpuoperator.kubelet.cri.v1.ListContainersRequest;
import org.gpuoperator.kubelet.cri.v1.ListImagesRequest;
import org.gpuoperator.kubelet.cri.v1.ListPodSandboxRequest;
import org.gpuoperator.kubelet.cri.v1.PodSandbox;
import org.gpuoperator.kubelet.cri.v1.PodSandboxConfig;
import org.gpuoperator.kubelet.cri.v1.PodSandboxFilter;
import org.gpuoperator.kubelet.cri.v1.PodSandboxStatus;
import org.gpuoperator.kubelet.cri.v1.PodSandboxStatusRequest;
import org.gpuoperator.kubelet.cri.v1.RemoveContainerRequest;
import org.gpuoperator.kubelet.cri.v1.RemovePodSandboxRequest;
import org.gpuoperator.kubelet.cri.v1.RunPodSandboxRequest;
import org.gpuoperator.kubelet.cri.v1.RuntimeServiceGrpc;
import org.gpuoperator.kubelet.cri.v1.StartContainerRequest;
import org.gpuoperator.kubelet.cri.v1.StatusRequest;
import org.gpuoperator.kubelet.cri.v1.StatusResponse;
import org.gpuoperator.kubelet.cri.v1.StopContainerRequest;
import org.gpuoperator.kubelet.cri.v1.StopPodSandboxRequest;
import org.gpuoperator.kubelet.cri.v1.VersionRequest;
import org.gpuoperator.kubelet.cri.v1.VersionResponse;

/**
 * The kubelet's end of CRI {@code runtime.v1} on a runtime's unix socket ({@code unix://} target,
 * netty epoll). Every call is blocking and carries a deadline ({@link #deadline}, or the call's own
 * where it waits on purpose, such as StopContainer's grace period), so one stuck runtime call never
 * stalls a caller for longer than that.
 *
 * <p>Thread-safe; one channel per client. {@link #stub()} and {@link #images()} give the raw stubs
 * for calls not wrapped here.
 */
public final class CriClient implements AutoCloseable {

    public static final Duration DEFAULT_DEADLINE = Duration.ofSeconds(10);

    /**
     * RunPodSandbox sets up networking (CNI) and may start the sandbox image: slower than other
     * calls.
     */
    private static final Duration SANDBOX_DEADLINE = Duration.ofSeconds(60);

    private final Path socket;
    private final EventLoopGroup group;
    private final ManagedChannel channel;
    private final Duration deadline;

    public CriClient(Path socket) {
        this(socket, DEFAULT_DEADLINE);
    }

    public CriClient(Path socket, Duration deadline) {
        this.socket = socket;
        this.deadline = deadline;
        this.group = UnixSockets.eventLoops("cri-client", 1);
        try {
            this.channel = UnixSockets.dial(socket, group);
        } catch (RuntimeException e) {
            group.shutdownGracefully(0, 0, TimeUnit.SECONDS);
            throw e;
        }
    }

    /**
     * The one-time work of a process's first CRI client and call, done on the calling thread for an
     * agent to run on a second one before its first check: netty's epoll transport and its native
     * library, gRPC's channel and its registries, and CRI's messages read from bytes as an answer
     * is. Connects nothing (gRPC dials at the first call) and closes what it built.
     *
     * @param info the canned answer's {@code info} (e.g. a {@code config} document the caller then
     *     reads as it reads the runtime's)
     * @return the canned {@code Status} answer, read back from its bytes
     */
    public static StatusResponse warmUp(Path socket, Map<String, String> info) {
        try (CriClient ignored = new CriClient(socket)) {
            byte[] answer = StatusResponse.newBuilder().putAllInfo(info).build().toByteArray();
            return StatusResponse.parseFrom(answer);
        } catch (InvalidProtocolBufferException e) {
            throw new IllegalStateException("a canned Status answer does not read back", e);
        }
    }

    public Path socket() {
        return socket;
    }

    public Duration deadline() {
        return deadline;
    }

    /** RuntimeService with the default deadline. */
    public RuntimeServiceGrpc.RuntimeServiceBlockingStub stub() {
        return stub(deadline);
    }

    public RuntimeServiceGrpc.RuntimeServiceBlockingStub stub(Duration callDeadline) {
        return RuntimeServiceGrpc.newBlockingStub(channel)
                .withDeadlineAfter(callDeadline.toMillis(), TimeUnit.MILLISECONDS);
    }

    /**
     * ImageService with the default deadline (containerd serves both services on the same socket).
     */
    public ImageServiceGrpc.ImageServiceBlockingStub images() {
        return ImageServiceGrpc.newBlockingStub(channel)
                .withDeadlineAfter(deadline.toMillis(), TimeUnit.MILLISECONDS);
    }

    public VersionResponse version() {
        return stub().version(VersionRequest.newBuilder().setVersion("v1").build());
    }

    /**
     * Runtime status with {@code info} (verbose): containerd puts its effective CRI config under
     * "config".
     */
    public StatusResponse status() {
        return stub().status(StatusRequest.newBuilder().setVerbose(true).build());
    }

    public String runPodSandbox(PodSandboxConfig config, String runtimeHandler) {
        return stub(SANDBOX_DEADLINE)
                .runPodSandbox(
                        RunPodSandboxRequest.newBuilder()
                                .setConfig(config)
                                .setRuntimeHandler(runtimeHandler)
                                .build())
                .getPodSandboxId();
    }

    public void stopPodSandbox(String id) {
        stub(SANDBOX_DEADLINE)
                .stopPodSandbox(StopPodSandboxRequest.newBuilder().setPodSandboxId(id).build());
    }

    public void removePodSandbox(String id) {
        stub(SANDBOX_DEADLINE)
                .removePodSandbox(RemovePodSandboxRequest.newBuilder().setPodSandboxId(id).build());
    }

    public PodSandboxStatus podSandboxStatus(String id) {
        return stub().podSandboxStatus(
                        PodSandboxStatusRequest.newBuilder().setPodSandboxId(id).build())
                .getStatus();
    }

    public List<PodSandbox> listPodSandbox(PodSandboxFilter filter) {
        return stub().listPodSandbox(ListPodSandboxRequest.newBuilder().setFilter(filter).build())
                .getItemsList();
    }

    /**
     * The deadline of CreateContainer: the kubelet's {@code --runtime-request-timeout} (2 min).
     * Creating the first container of an image unpacks its layers, which on a busy machine takes
     * longer than the other calls' deadline; a create cut short may still go through in containerd.
     */
    public static final Duration CREATE_DEADLINE = Duration.ofMinutes(2);

    public String createContainer(
            String sandboxId, ContainerConfig config, PodSandboxConfig sandboxConfig) {
        return stub(CREATE_DEADLINE)
                .createContainer(
                        CreateContainerRequest.newBuilder()
                                .setPodSandboxId(sandboxId)
                                .setConfig(config)
                                .setSandboxConfig(sandboxConfig)
                                .build())
                .getContainerId();
    }

    public void startContainer(String id) {
        stub().startContainer(StartContainerRequest.newBuilder().setContainerId(id).build());
    }

    /**
     * Stop signal, then SIGKILL after {@code grace}; the call's deadline allows for the whole grace
     * period.
     */
    public void stopContainer(String id, Duration grace) {
        stub(deadline.plus(grace))
                .stopContainer(
                        StopContainerRequest.newBuilder()
                                .setContainerId(id)
                                .setTimeout(grace.toSeconds())
                                .build());
    }

    public void removeContainer(String id) {
        stub().removeContainer(RemoveContainerRequest.newBuilder().setContainerId(id).build());
    }

    public ContainerStatus containerStatus(String id) {
        return stub().containerStatus(
                        ContainerStatusRequest.newBuilder().setContainerId(id).build())
                .getStatus();
    }

    public List<org.gpuoperator.kubelet.cri.v1.Container> listContainers(ContainerFilter filter) {
        return listContainers(filter, deadline);
    }

    /** As {@link #listContainers(ContainerFilter)}, with its own deadline. */
    public List<org.gpuoperator.kubelet.cri.v1.Container> listContainers(
            ContainerFilter filter, Duration callDeadline) {
        return stub(callDeadline)
                .listContainers(ListContainersRequest.newBuilder().setFilter(filter).build())
                .getContainersList();
    }

    /**
     * Runs {@code cmd} in the container and waits at most {@code timeout} for it (the runtime
     * enforces it too).
     */
    public ExecSyncResponse execSync(String containerId, List<String> cmd, Duration timeout) {
        long seconds = Math.max(1, timeout.toSeconds());
        return stub(deadline.plus(Duration.ofSeconds(seconds)))
                .execSync(
                        ExecSyncRequest.newBuilder()
                                .setContainerId(containerId)
                                .addAllCmd(cmd)
                                .setTimeout(seconds)
                                .build());
    }

    /** The image if the runtime has it locally; never pulls. */
    public Optional<Image> imageStatus(String image) {
        var r =
                images().imageStatus(
                                ImageStatusRequest.newBuilder()
                                        .setImage(ImageSpec.newBuilder().setImage(image))
                                        .build());
        return r.hasImage() ? Optional.of(r.getImage()) : Optional.empty();
    }

    public List<Image> listImages() {
        return images().listImages(ListImagesRequest.getDefaultInstance()).getImagesList();
    }

    @Override
    public void close() {
        channel.shutdownNow();
        try {
            channel.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    }
}
