package org.gpuoperator.toolkit.simulated;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads what the runtime needs from an OCI runtime spec ({@code config.json}) and adds the simulated GPU mounts.
 * Every other field keeps its value and order (Jackson tree, exact numbers). Pure (bytes in, bytes out).
 */
public final class OciSpecEdit {

    public static final String NVIDIA_SMI_IN_CONTAINER = "/usr/bin/nvidia-smi";
    public static final String CDI_ANNOTATION_PREFIX = "cdi.k8s.io/";

    private static final ObjectMapper JSON = new ObjectMapper()
            .setNodeFactory(JsonNodeFactory.withExactBigDecimals(true))
            .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS);

    private final ObjectNode spec;

    private OciSpecEdit(ObjectNode spec) {
        this.spec = spec;
    }

    public static OciSpecEdit parse(byte[] configJson) throws RuntimeRefusal {
        try {
            JsonNode n = JSON.readTree(configJson);
            if (!(n instanceof ObjectNode o)) {
                throw RuntimeRefusal.invalid("config.json: not a JSON object");
            }
            return new OciSpecEdit(o);
        } catch (IOException e) {
            throw RuntimeRefusal.invalid("config.json: invalid JSON: " + e.getMessage().lines().findFirst().orElse(""));
        }
    }

    /** {@code process.env}, in order. */
    public List<String> env() {
        List<String> out = new ArrayList<>();
        spec.path("process").path("env").forEach(e -> out.add(e.asText()));
        return out;
    }

    /** CDI device requests: values of {@code cdi.k8s.io/*} annotations, each a comma list of qualified names. */
    public List<String> cdiDevices() {
        List<String> out = new ArrayList<>();
        Map<String, String> annotations = new LinkedHashMap<>();
        spec.path("annotations").properties().forEach(e -> annotations.put(e.getKey(), e.getValue().asText()));
        annotations.forEach((k, v) -> {
            if (k.startsWith(CDI_ANNOTATION_PREFIX)) {
                for (String d : v.split(",")) {
                    if (!d.isBlank()) {
                        out.add(d.trim());
                    }
                }
            }
        });
        return out;
    }

    /**
     * Adds read-only bind mounts of the node's simulated nvidia-smi and of the container's GPU description; a mount
     * already at one of those destinations is replaced, so a second edit gives the same spec.
     */
    public OciSpecEdit withGpuMounts(String nvidiaSmiOnNode, String descriptionOnNode) {
        ObjectNode copy = spec.deepCopy();
        JsonNode existing = copy.get("mounts");
        ArrayNode mounts = copy.arrayNode();
        if (existing instanceof ArrayNode a) {
            a.forEach(m -> {
                String dest = m.path("destination").asText();
                if (!dest.equals(NVIDIA_SMI_IN_CONTAINER) && !dest.equals(GpuDescription.CONTAINER_PATH)) {
                    mounts.add(m);
                }
            });
        }
        mounts.add(bindMount(copy, NVIDIA_SMI_IN_CONTAINER, nvidiaSmiOnNode));
        mounts.add(bindMount(copy, GpuDescription.CONTAINER_PATH, descriptionOnNode));
        copy.set("mounts", mounts);
        return new OciSpecEdit(copy);
    }

    private static ObjectNode bindMount(ObjectNode factory, String destination, String source) {
        ObjectNode m = factory.objectNode();
        m.put("destination", destination);
        m.put("type", "bind");
        m.put("source", source);
        ArrayNode o = m.putArray("options");
        for (String opt : List.of("rbind", "ro", "nosuid", "nodev")) {
            o.add(opt);
        }
        return m;
    }

    public byte[] toBytes() {
        try {
            return JSON.writeValueAsBytes(spec);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    ObjectNode tree() {
        return spec;
    }
}
