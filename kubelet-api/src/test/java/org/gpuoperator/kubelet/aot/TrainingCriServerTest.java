package org.gpuoperator.kubelet.aot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.gpuoperator.kubelet.cri.CriClient;
import org.gpuoperator.kubelet.cri.v1.ContainerConfig;
import org.gpuoperator.kubelet.cri.v1.ContainerMetadata;
import org.gpuoperator.kubelet.cri.v1.ContainerState;
import org.gpuoperator.kubelet.cri.v1.ContainerStatus;
import org.gpuoperator.kubelet.cri.v1.ListContainersRequest;
import org.gpuoperator.kubelet.cri.v1.PodSandboxConfig;
import org.gpuoperator.kubelet.cri.v1.PodSandboxMetadata;
import org.gpuoperator.kubelet.cri.v1.StatusRequest;
import org.gpuoperator.kubelet.cri.v1.StatusResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The training's CRI stand-in, through the client the agents use. */
class TrainingCriServerTest {

    Path dir;

    @BeforeEach
    void dir() throws Exception {
        dir = Files.createTempDirectory(Path.of("/tmp"), "tcri-");
    }

    @AfterEach
    void clean() throws Exception {
        try (var files = Files.walk(dir)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }

    @Test
    void aVerboseStatusNamesTheHandlerWithItsBinaryAsContainerdDoes() throws Exception {
        Path socket = dir.resolve("run/containerd/containerd.sock");
        try (TrainingCriServer cri =
                        TrainingCriServer.start(
                                socket,
                                "nvidia",
                                "/usr/local/nvidia/toolkit/nvidia-container-runtime");
                CriClient client = new CriClient(socket)) {
            StatusResponse verbose = client.status();
            assertThat(verbose.getStatus().getConditionsList())
                    .allMatch(c -> c.getStatus())
                    .extracting(c -> c.getType())
                    .containsExactly("RuntimeReady", "NetworkReady");
            assertThat(verbose.getInfoMap().get("config"))
                    .isEqualTo(
                            "{\"containerd\":{\"defaultRuntimeName\":\"runc\",\"runtimes\":{"
                                    + "\"runc\":{\"runtimeType\":\"io.containerd.runc.v2\","
                                    + "\"options\":{}},\"nvidia\":{\"runtimeType\":"
                                    + "\"io.containerd.runc.v2\",\"options\":{\"BinaryName\":"
                                    + "\"/usr/local/nvidia/toolkit/nvidia-container-runtime\"}}}}}");
            assertThat(client.stub().status(StatusRequest.getDefaultInstance()).getInfoMap())
                    .isEmpty();
            assertThat(client.version().getRuntimeApiVersion()).isEqualTo("v1");
            assertThatThrownBy(
                            () ->
                                    client.stub()
                                            .listContainers(
                                                    ListContainersRequest.newBuilder().build()))
                    .isInstanceOfSatisfying(
                            StatusRuntimeException.class,
                            e ->
                                    assertThat(e.getStatus().getCode())
                                            .isEqualTo(Status.Code.UNIMPLEMENTED));
        }
    }

    @Test
    void aNameTheConfigsJsonWouldHaveToEscapeIsRefused() {
        assertThatThrownBy(() -> TrainingCriServer.config("nvidia", "/bin/a\"b"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("/bin/a\"b");
        assertThatThrownBy(() -> TrainingCriServer.config("nv\\idia", "/bin/true"))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void everyImageIsThereAndEveryContainerHasExitedZeroOnceStarted() throws Exception {
        Path socket = dir.resolve("cri.sock");
        try (TrainingCriServer cri = TrainingCriServer.start(socket, "nvidia", "/bin/true");
                CriClient client = new CriClient(socket)) {
            assertThat(client.imageStatus("ghcr.io/x/validator:1"))
                    .hasValueSatisfying(
                            i ->
                                    assertThat(i.getRepoTagsList())
                                            .containsExactly("ghcr.io/x/validator:1"));
            PodSandboxConfig sandbox =
                    PodSandboxConfig.newBuilder()
                            .setMetadata(PodSandboxMetadata.newBuilder().setName("v").setUid("u"))
                            .build();
            String sandboxId = client.runPodSandbox(sandbox, "nvidia");
            String id =
                    client.createContainer(
                            sandboxId,
                            ContainerConfig.newBuilder()
                                    .setMetadata(ContainerMetadata.newBuilder().setName("c"))
                                    .build(),
                            sandbox);
            assertThat(client.containerStatus(id).getState())
                    .isEqualTo(ContainerState.CONTAINER_CREATED);
            client.startContainer(id);
            ContainerStatus exited = client.containerStatus(id);
            assertThat(exited.getState()).isEqualTo(ContainerState.CONTAINER_EXITED);
            assertThat(exited.getExitCode()).isZero();
            client.stopPodSandbox(sandboxId);
            client.removePodSandbox(sandboxId);
            assertThatThrownBy(() -> client.containerStatus("container-0"))
                    .isInstanceOfSatisfying(
                            StatusRuntimeException.class,
                            e ->
                                    assertThat(e.getStatus().getCode())
                                            .isEqualTo(Status.Code.NOT_FOUND));
        }
    }

    @Test
    void theProcessOutlivesTheSighupOfTheAgentsSignalRestartMode() throws Exception {
        Path socket = dir.resolve("containerd.sock");
        String java = ProcessHandle.current().info().command().orElse("java");
        Process server =
                new ProcessBuilder(
                                List.of(
                                        java,
                                        "-cp",
                                        System.getProperty("java.class.path"),
                                        TrainingCriServer.class.getName(),
                                        socket.toString(),
                                        "nvidia",
                                        "/bin/true"))
                        .redirectErrorStream(true)
                        .redirectOutput(dir.resolve("server.log").toFile())
                        .start();
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            Path log = dir.resolve("server.log");
            while (!Files.readString(log).contains("serving ")
                    && server.isAlive()
                    && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            assertThat(Files.readString(log))
                    .as("it says it serves once it has answered its own call")
                    .contains("serving " + socket);
            Process hup = new ProcessBuilder("kill", "-HUP", Long.toString(server.pid())).start();
            assertThat(hup.waitFor()).isZero();
            // a JVM with its default handler would be gone well within this
            assertThat(server.waitFor(1, TimeUnit.SECONDS)).isFalse();
            try (CriClient client = new CriClient(socket)) {
                assertThat(client.status().getInfoMap()).containsKey("config");
            }
        } finally {
            server.destroy();
            server.waitFor(10, TimeUnit.SECONDS);
        }
        assertThat(server.isAlive()).isFalse();
    }
}
