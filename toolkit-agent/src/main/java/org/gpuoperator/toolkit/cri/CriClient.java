package org.gpuoperator.toolkit.cri;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.grpc.Grpc;
import io.grpc.InsecureChannelCredentials;
import io.grpc.ManagedChannel;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.gpuoperator.toolkit.cri.v1.RuntimeServiceGrpc;
import org.gpuoperator.toolkit.cri.v1.StatusRequest;
import org.gpuoperator.toolkit.cri.v1.StatusResponse;

/**
 * CRI {@code runtime.v1.RuntimeService} on the runtime's unix socket: what the runtime really loaded, as kubelet sees
 * it. {@code Status(verbose=true)} carries the effective CRI config as JSON under {@code info["config"]}.
 */
public final class CriClient implements AutoCloseable {

    private static final ObjectMapper JSON = new ObjectMapper();
    private final ManagedChannel channel;

    public CriClient(Path socket) {
        this.channel = Grpc.newChannelBuilder("unix://" + socket.toAbsolutePath(), InsecureChannelCredentials.create()).build();
    }

    public RuntimeServiceGrpc.RuntimeServiceBlockingStub stub() {
        return RuntimeServiceGrpc.newBlockingStub(channel).withDeadlineAfter(10, TimeUnit.SECONDS);
    }

    public StatusResponse status() {
        return stub().status(StatusRequest.newBuilder().setVerbose(true).build());
    }

    /** A runtime handler as the CRI plugin loaded it. */
    public record Handler(String runtimeType, Optional<String> binaryName, Optional<Boolean> systemdCgroup) {}

    /** The handler {@code name} from {@code info["config"].containerd.runtimes}, if the runtime has it. */
    public Optional<Handler> handler(String name) throws IOException {
        return handler(status(), name);
    }

    public static Optional<Handler> handler(StatusResponse status, String name) throws IOException {
        String config = status.getInfoMap().get("config");
        if (config == null) {
            throw new IOException("CRI Status has no info[\"config\"] (not containerd, or verbose not honoured)");
        }
        JsonNode rt = JSON.readTree(config).path("containerd").path("runtimes").path(name);
        if (rt.isMissingNode()) {
            return Optional.empty();
        }
        JsonNode opts = rt.path("options");
        return Optional.of(new Handler(rt.path("runtimeType").asText(""),
                opts.has("BinaryName") ? Optional.of(opts.get("BinaryName").asText()) : Optional.empty(),
                opts.has("SystemdCgroup") ? Optional.of(opts.get("SystemdCgroup").asBoolean()) : Optional.empty()));
    }

    public static String defaultRuntimeName(StatusResponse status) throws IOException {
        return JSON.readTree(status.getInfoMap().getOrDefault("config", "{}")).path("containerd").path("defaultRuntimeName")
                .asText("");
    }

    @Override
    public void close() {
        channel.shutdownNow();
        try {
            channel.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
