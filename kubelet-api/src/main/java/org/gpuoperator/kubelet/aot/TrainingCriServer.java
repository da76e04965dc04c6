package org.gpuoperator.kubelet.aot;

import io.grpc.Server;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.netty.shaded.io.netty.channel.EventLoopGroup;
import io.grpc.stub.StreamObserver;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.gpuoperator.kubelet.UnixSockets;
import org.gpuoperator.kubelet.cri.CriClient;
import org.gpuoperator.kubelet.cri.v1.ContainerState;
import org.gpuoperator.kubelet.cri.v1.ContainerStatus;
import org.gpuoperator.kubelet.cri.v1.ContainerStatusRequest;
import org.gpuoperator.kubelet.cri.v1.ContainerStatusResponse;
import org.gpuoperator.kubelet.cri.v1.CreateContainerRequest;
import org.gpuoperator.kubelet.cri.v1.CreateContainerResponse;
import org.gpuoperator.kubelet.cri.v1.Image;
import org.gpuoperator.kubelet.cri.v1.ImageServiceGrpc;
import org.gpuoperator.kubelet.cri.v1.ImageStatusRequest;
import org.gpuoperator.kubelet.cri.v1.ImageStatusResponse;
import org.gpuoperator.kubelet.cri.v1.RemovePodSandboxRequest;
import org.gpuoperator.kubelet.cri.v1.RemovePodSandboxResponse;
import org.gpuoperator.kubelet.cri.v1.RunPodSandboxRequest;
import org.gpuoperator.kubelet.cri.v1.RunPodSandboxResponse;
import org.gpuoperator.kubelet.cri.v1.RuntimeCondition;
import org.gpuoperator.kubelet.cri.v1.RuntimeServiceGrpc;
import org.gpuoperator.kubelet.cri.v1.RuntimeStatus;
import org.gpuoperator.kubelet.cri.v1.StartContainerRequest;
import org.gpuoperator.kubelet.cri.v1.StartContainerResponse;
import org.gpuoperator.kubelet.cri.v1.StatusRequest;
import org.gpuoperator.kubelet.cri.v1.StatusResponse;
import org.gpuoperator.kubelet.cri.v1.StopPodSandboxRequest;
import org.gpuoperator.kubelet.cri.v1.StopPodSandboxResponse;
import org.gpuoperator.kubelet.cri.v1.VersionRequest;
import org.gpuoperator.kubelet.cri.v1.VersionResponse;

/**
 * A stand-in for containerd's CRI socket in an image's AOT training run (images/aot-training.sh),
 * never on a node. toolkit-agent checks through CRI that containerd loaded the runtime it
 * registered ({@code Status} with {@code verbose}: the effective config's runtime handlers); the
 * validator checks the same and runs a container under that handler. A training run without a CRI
 * socket left the gRPC, netty and protobuf classes out of the cache, so every start on a node
 * loaded them from the jars (~1.5 s of toolkit-agent's CPU in a pod, most of its start).
 *
 * <p>It answers {@code Version}; {@code Status}, whose {@code info["config"]} has the one handler
 * it is given, as containerd reports a handler from its config; {@code ImageStatus}, every image
 * being there; and sandboxes and containers that are only ids, a started container having exited 0.
 * Anything else is UNIMPLEMENTED. SIGHUP is ignored: toolkit-agent's {@code --restart-mode signal}
 * sends it to the socket's owner, on which containerd exits and its supervisor starts it again with
 * the new config; the stand-in already answers with that config.
 *
 * <p>Arguments: {@code <socket> <handler name> <handler's BinaryName>}; prints {@code serving} once
 * it has answered a call of its own (so the agent's first call is not also the stand-in's first,
 * slow one, which a runtime written in Go never has); runs until killed.
 */
public final class TrainingCriServer implements AutoCloseable {

    private final EventLoopGroup group;
    private final Server server;

    private TrainingCriServer(EventLoopGroup group, Server server) {
        this.group = group;
        this.server = server;
    }

    /** Serves on {@code socket} (a stale socket file there is replaced). */
    public static TrainingCriServer start(Path socket, String handler, String binaryName)
            throws IOException {
        EventLoopGroup group = UnixSockets.eventLoops("training-cri", 1);
        try {
            return new TrainingCriServer(
                    group,
                    UnixSockets.serve(
                            socket,
                            group,
                            new RuntimeService(handler, binaryName),
                            new ImageService()));
        } catch (IOException | RuntimeException e) {
            group.shutdownGracefully(0, 0, TimeUnit.SECONDS);
            throw e;
        }
    }

    /** The JSON containerd puts under {@code info["config"]}, reduced to runc and the handler. */
    static String config(String handler, String binaryName) {
        return "{\"containerd\":{\"defaultRuntimeName\":\"runc\",\"runtimes\":{"
                + "\"runc\":{\"runtimeType\":\"io.containerd.runc.v2\",\"options\":{}},"
                + json(handler)
                + ":{\"runtimeType\":\"io.containerd.runc.v2\",\"options\":{\"BinaryName\":"
                + json(binaryName)
                + "}}}}}";
    }

    /** {@code s} as a JSON string; the names this stand-in is given need no escapes. */
    private static String json(String s) {
        if (s.chars().anyMatch(c -> c == '"' || c == '\\' || c < 0x20)) {
            throw new IllegalArgumentException(
                    "a name with a quote, backslash or control character: " + s);
        }
        return '"' + s + '"';
    }

    private static final class RuntimeService extends RuntimeServiceGrpc.RuntimeServiceImplBase {
        private final String config;
        private final AtomicLong ids = new AtomicLong();

        /** container id: started (its state: exited 0) or only created */
        private final Map<String, Boolean> started = new ConcurrentHashMap<>();

        RuntimeService(String handler, String binaryName) {
            this.config = config(handler, binaryName);
        }

        @Override
        public void version(VersionRequest request, StreamObserver<VersionResponse> out) {
            out.onNext(
                    VersionResponse.newBuilder()
                            .setVersion("0.1.0")
                            .setRuntimeName("containerd")
                            .setRuntimeVersion("aot-training")
                            .setRuntimeApiVersion("v1")
                            .build());
            out.onCompleted();
        }

        @Override
        public void status(StatusRequest request, StreamObserver<StatusResponse> out) {
            StatusResponse.Builder status =
                    StatusResponse.newBuilder()
                            .setStatus(
                                    RuntimeStatus.newBuilder()
                                            .addConditions(
                                                    RuntimeCondition.newBuilder()
                                                            .setType("RuntimeReady")
                                                            .setStatus(true))
                                            .addConditions(
                                                    RuntimeCondition.newBuilder()
                                                            .setType("NetworkReady")
                                                            .setStatus(true)));
            if (request.getVerbose()) {
                status.putInfo("config", config);
            }
            out.onNext(status.build());
            out.onCompleted();
        }

        @Override
        public void runPodSandbox(
                RunPodSandboxRequest request, StreamObserver<RunPodSandboxResponse> out) {
            out.onNext(
                    RunPodSandboxResponse.newBuilder()
                            .setPodSandboxId("sandbox-" + ids.incrementAndGet())
                            .build());
            out.onCompleted();
        }

        @Override
        public void createContainer(
                CreateContainerRequest request, StreamObserver<CreateContainerResponse> out) {
            String id = "container-" + ids.incrementAndGet();
            started.put(id, false);
            out.onNext(CreateContainerResponse.newBuilder().setContainerId(id).build());
            out.onCompleted();
        }

        @Override
        public void startContainer(
                StartContainerRequest request, StreamObserver<StartContainerResponse> out) {
            if (started.replace(request.getContainerId(), true) == null) {
                out.onError(notFound(request.getContainerId()));
                return;
            }
            out.onNext(StartContainerResponse.getDefaultInstance());
            out.onCompleted();
        }

        @Override
        public void containerStatus(
                ContainerStatusRequest request, StreamObserver<ContainerStatusResponse> out) {
            String id = request.getContainerId();
            Boolean ran = started.get(id);
            if (ran == null) {
                out.onError(notFound(id));
                return;
            }
            out.onNext(
                    ContainerStatusResponse.newBuilder()
                            .setStatus(
                                    ContainerStatus.newBuilder()
                                            .setId(id)
                                            .setState(
                                                    ran
                                                            ? ContainerState.CONTAINER_EXITED
                                                            : ContainerState.CONTAINER_CREATED)
                                            .setExitCode(0)
                                            .setReason(ran ? "Completed" : ""))
                            .build());
            out.onCompleted();
        }

        @Override
        public void stopPodSandbox(
                StopPodSandboxRequest request, StreamObserver<StopPodSandboxResponse> out) {
            out.onNext(StopPodSandboxResponse.getDefaultInstance());
            out.onCompleted();
        }

        @Override
        public void removePodSandbox(
                RemovePodSandboxRequest request, StreamObserver<RemovePodSandboxResponse> out) {
            out.onNext(RemovePodSandboxResponse.getDefaultInstance());
            out.onCompleted();
        }

        private static StatusRuntimeException notFound(String id) {
            return Status.NOT_FOUND
                    .withDescription("container " + id + " not found")
                    .asRuntimeException();
        }
    }

    private static final class ImageService extends ImageServiceGrpc.ImageServiceImplBase {
        @Override
        public void imageStatus(
                ImageStatusRequest request, StreamObserver<ImageStatusResponse> out) {
            String ref = request.getImage().getImage();
            out.onNext(
                    ImageStatusResponse.newBuilder()
                            .setImage(Image.newBuilder().setId("sha256:" + ref).addRepoTags(ref))
                            .build());
            out.onCompleted();
        }
    }

    @Override
    public void close() throws InterruptedException {
        server.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
        group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 3) {
            System.err.println(
                    "usage: TrainingCriServer <socket> <handler name> <handler's BinaryName>");
            System.exit(2);
        }
        // what the agent's signal restart mode sends; containerd's supervisor would restart it
        sun.misc.Signal.handle(new sun.misc.Signal("HUP"), signal -> {});
        Path socket = Path.of(args[0]);
        TrainingCriServer cri = start(socket, args[1], args[2]);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> closeQuietly(cri)));
        try (CriClient self = new CriClient(socket)) {
            self.status();
        }
        System.out.println("serving " + socket);
        cri.server.awaitTermination();
    }

    private static void closeQuietly(TrainingCriServer cri) {
        try {
            cri.close();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
