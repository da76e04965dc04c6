package org.gpuoperator.validator.toolkit;

import io.grpc.StatusRuntimeException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.gpuoperator.kubelet.cri.CriClient;
import org.gpuoperator.kubelet.cri.v1.ContainerConfig;
import org.gpuoperator.kubelet.cri.v1.ContainerMetadata;
import org.gpuoperator.kubelet.cri.v1.ContainerState;
import org.gpuoperator.kubelet.cri.v1.ContainerStatus;
import org.gpuoperator.kubelet.cri.v1.ImageSpec;
import org.gpuoperator.kubelet.cri.v1.KeyValue;
import org.gpuoperator.kubelet.cri.v1.LinuxPodSandboxConfig;
import org.gpuoperator.kubelet.cri.v1.LinuxSandboxSecurityContext;
import org.gpuoperator.kubelet.cri.v1.NamespaceMode;
import org.gpuoperator.kubelet.cri.v1.NamespaceOption;
import org.gpuoperator.kubelet.cri.v1.PodSandboxConfig;
import org.gpuoperator.kubelet.cri.v1.PodSandboxMetadata;
import org.gpuoperator.kubelet.cri.v1.StatusResponse;
import org.gpuoperator.validator.report.CheckResult;

/**
 * The toolkit layer, through the runtime's CRI socket: {@code Status} answers, the runtime is ready
 * and lists the handler, and a container (host network, no GPU request, {@code
 * NVIDIA_VISIBLE_DEVICES=all}) run under that handler exits 0.
 */
public final class ToolkitCheck {

    /**
     * @param socket the runtime's CRI socket
     * @param handler the runtime handler the toolkit registered ({@code nvidia})
     * @param image the workload image, already on the node (the validator's own)
     * @param args the workload container's arguments (its image's entrypoint stays)
     * @param timeout how long the container may run
     */
    public record Settings(
            Path socket,
            String handler,
            String image,
            List<String> args,
            String nodeName,
            Duration timeout) {}

    public static final List<String> WORKLOAD_ARGS = List.of("workload", "toolkit");

    private final Settings settings;

    public ToolkitCheck(Settings settings) {
        this.settings = settings;
    }

    /**
     * Starts, on a daemon thread, the one-time work of the check's first client and {@code Status}
     * answer ({@link CriClient#warmUp}, then the answer's config read as {@link #run} reads it),
     * for the validator's start: its first round reaches this check after the driver's (~75 ms of
     * CPU on its main thread otherwise, by async-profiler). Calls nothing on the socket; the
     * returned thread ends by itself.
     */
    public static Thread warmUp(Path socket) {
        return Thread.ofPlatform()
                .daemon()
                .name("cri-warm-up")
                .start(
                        () -> {
                            try {
                                RuntimeHandlers.names(
                                        CriClient.warmUp(socket, WARM_UP_INFO).getInfoMap());
                            } catch (RuntimeException e) {
                                // the check itself says what is wrong, if anything is
                            }
                        });
    }

    /** A canned answer's config with one handler, in containerd's shape. */
    static final Map<String, String> WARM_UP_INFO =
            Map.of("config", "{\"containerd\":{\"runtimes\":{\"warm-up\":{\"options\":{}}}}}");

    public CheckResult run() {
        try (CriClient cri = new CriClient(settings.socket())) {
            return run(cri);
        } catch (StatusRuntimeException e) {
            return CheckResult.failed(
                    "runtime at " + settings.socket() + " does not answer: " + describe(e));
        } catch (RuntimeException e) {
            return CheckResult.failed("runtime at " + settings.socket() + ": " + e.getMessage());
        }
    }

    private CheckResult run(CriClient cri) {
        StatusResponse status = cri.status();
        var notReady = RuntimeHandlers.notReady(status);
        if (notReady.isPresent()) {
            return CheckResult.failed(notReady.get());
        }
        List<String> handlers = RuntimeHandlers.names(status.getInfoMap());
        if (!handlers.contains(settings.handler())) {
            return CheckResult.failed(
                    "runtime handler \""
                            + settings.handler()
                            + "\" is not registered with the runtime at "
                            + settings.socket()
                            + " (registered: "
                            + (handlers.isEmpty() ? "none" : String.join(", ", handlers))
                            + ")");
        }
        if (cri.imageStatus(settings.image()).isEmpty()) {
            return CheckResult.failed("workload image " + settings.image() + " is not on the node");
        }
        return runContainer(cri);
    }

    private CheckResult runContainer(CriClient cri) {
        String name = "nvidia-toolkit-validator-" + settings.nodeName();
        PodSandboxConfig sandbox =
                PodSandboxConfig.newBuilder()
                        .setMetadata(
                                PodSandboxMetadata.newBuilder()
                                        .setName(name)
                                        .setUid(UUID.randomUUID().toString())
                                        .setNamespace("nvidia-validator"))
                        .setLinux(
                                LinuxPodSandboxConfig.newBuilder()
                                        .setSecurityContext(
                                                LinuxSandboxSecurityContext.newBuilder()
                                                        .setNamespaceOptions(
                                                                NamespaceOption.newBuilder()
                                                                        .setNetwork(
                                                                                NamespaceMode
                                                                                        .NODE))))
                        .build();
        String sandboxId;
        try {
            sandboxId = cri.runPodSandbox(sandbox, settings.handler());
        } catch (StatusRuntimeException e) {
            return CheckResult.failed(
                    "cannot start a sandbox under handler \""
                            + settings.handler()
                            + "\": "
                            + describe(e));
        }
        try {
            ContainerConfig container =
                    ContainerConfig.newBuilder()
                            .setMetadata(
                                    ContainerMetadata.newBuilder().setName("toolkit-validation"))
                            .setImage(ImageSpec.newBuilder().setImage(settings.image()))
                            .addAllArgs(settings.args())
                            .addEnvs(
                                    KeyValue.newBuilder()
                                            .setKey("NVIDIA_VISIBLE_DEVICES")
                                            .setValue("all"))
                            .build();
            String id = cri.createContainer(sandboxId, container, sandbox);
            cri.startContainer(id);
            long deadline = System.nanoTime() + settings.timeout().toNanos();
            while (true) {
                ContainerStatus s = cri.containerStatus(id);
                if (s.getState() == ContainerState.CONTAINER_EXITED) {
                    if (s.getExitCode() == 0) {
                        return CheckResult.ready();
                    }
                    return CheckResult.failed(
                            ("container under handler \""
                                            + settings.handler()
                                            + "\" exited "
                                            + s.getExitCode()
                                            + ": "
                                            + s.getReason()
                                            + " "
                                            + s.getMessage())
                                    .strip());
                }
                if (System.nanoTime() - deadline > 0) {
                    return CheckResult.failed(
                            "container under handler \""
                                    + settings.handler()
                                    + "\" still runs after "
                                    + settings.timeout().toSeconds()
                                    + "s");
                }
                Thread.sleep(200);
            }
        } catch (StatusRuntimeException e) {
            return CheckResult.failed(
                    "cannot run a container under handler \""
                            + settings.handler()
                            + "\": "
                            + describe(e));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return CheckResult.waiting("interrupted");
        } finally {
            try {
                cri.stopPodSandbox(sandboxId);
                cri.removePodSandbox(sandboxId);
            } catch (StatusRuntimeException ignored) {
                // best effort: the next run uses a fresh sandbox
            }
        }
    }

    private static String describe(StatusRuntimeException e) {
        var s = e.getStatus();
        String d = s.getDescription() == null ? s.getCode().toString() : s.getDescription();
        // "io exception" alone does not say what went wrong: the cause does (no such socket, ...)
        Throwable cause = s.getCause();
        return cause == null || cause.getMessage() == null ? d : d + ": " + cause.getMessage();
    }
}
