package org.gpuoperator.validator.toolkit;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.gpuoperator.kubelet.cri.v1.RuntimeCondition;
import org.gpuoperator.kubelet.cri.v1.StatusResponse;

/** What a runtime's CRI {@code Status} says about readiness and its handlers. Pure. */
public final class RuntimeHandlers {

    private static final ObjectMapper JSON = new ObjectMapper();

    private RuntimeHandlers() {}

    /**
     * The handler names from the verbose info: containerd's {@code config.containerd.runtimes},
     * CRI-O's {@code config.runtimes}. Empty when the info has none.
     */
    public static List<String> names(Map<String, String> info) {
        String config = info.get("config");
        if (config == null || config.isBlank()) {
            return List.of();
        }
        JsonNode root;
        try {
            root = JSON.readTree(config);
        } catch (java.io.IOException e) {
            return List.of();
        }
        JsonNode runtimes = root.path("containerd").path("runtimes");
        if (!runtimes.isObject()) {
            runtimes = root.path("runtimes");
        }
        List<String> names = new ArrayList<>();
        runtimes.fieldNames().forEachRemaining(names::add);
        return names;
    }

    /** Why the runtime is not ready (its RuntimeReady condition), or empty when it is. */
    public static Optional<String> notReady(StatusResponse status) {
        for (RuntimeCondition c : status.getStatus().getConditionsList()) {
            if (c.getType().equals("RuntimeReady") && !c.getStatus()) {
                return Optional.of(
                        ("runtime not ready: " + c.getReason() + " " + c.getMessage()).strip());
            }
        }
        return Optional.empty();
    }
}
