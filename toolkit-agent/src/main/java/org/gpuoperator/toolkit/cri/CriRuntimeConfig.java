package org.gpuoperator.toolkit.cri;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.Optional;
import org.gpuoperator.kubelet.cri.v1.StatusResponse;

/**
 * What containerd really loaded, read from a verbose CRI {@code Status} (kubelet-api's {@code
 * CriClient.status()}): containerd puts its effective CRI config as JSON under {@code
 * info["config"]}.
 */
public final class CriRuntimeConfig {

    private static final ObjectMapper JSON = new ObjectMapper();

    private CriRuntimeConfig() {}

    /** A runtime handler as the CRI plugin loaded it. */
    public record Handler(
            String runtimeType, Optional<String> binaryName, Optional<Boolean> systemdCgroup) {}

    /**
     * The handler {@code name} from {@code info["config"].containerd.runtimes}, if the runtime has
     * it.
     */
    public static Optional<Handler> handler(StatusResponse status, String name) throws IOException {
        String config = status.getInfoMap().get("config");
        if (config == null) {
            throw new IOException(
                    "CRI Status has no info[\"config\"] (not containerd, or verbose not honoured)");
        }
        JsonNode rt = JSON.readTree(config).path("containerd").path("runtimes").path(name);
        if (rt.isMissingNode()) {
            return Optional.empty();
        }
        JsonNode opts = rt.path("options");
        return Optional.of(
                new Handler(
                        rt.path("runtimeType").asText(""),
                        opts.has("BinaryName")
                                ? Optional.of(opts.get("BinaryName").asText())
                                : Optional.empty(),
                        opts.has("SystemdCgroup")
                                ? Optional.of(opts.get("SystemdCgroup").asBoolean())
                                : Optional.empty()));
    }

    public static String defaultRuntimeName(StatusResponse status) throws IOException {
        return JSON.readTree(status.getInfoMap().getOrDefault("config", "{}"))
                .path("containerd")
                .path("defaultRuntimeName")
                .asText("");
    }
}
