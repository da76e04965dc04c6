package org.gpuoperator.toolkit.simulated;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads what the runtime needs from an OCI runtime spec ({@code config.json}) and adds the
 * simulated GPU mounts. Every other field keeps its value, key order and number text ({@link
 * OciJson}). Pure (bytes in, bytes out).
 */
public final class OciSpecEdit {

    public static final String NVIDIA_SMI_IN_CONTAINER = "/usr/bin/nvidia-smi";

    /** Where the simulated nvidia-smi's interpreter is looked for ({@code #!/bin/sh}). */
    public static final String SHELL_IN_CONTAINER = "/bin/sh";

    public static final String CDI_ANNOTATION_PREFIX = "cdi.k8s.io/";

    private final Map<String, Object> spec;

    private OciSpecEdit(Map<String, Object> spec) {
        this.spec = spec;
    }

    @SuppressWarnings("unchecked")
    public static OciSpecEdit parse(byte[] configJson) throws RuntimeRefusal {
        Object v;
        try {
            v = OciJson.parse(new String(configJson, StandardCharsets.UTF_8));
        } catch (IllegalArgumentException e) {
            throw RuntimeRefusal.invalid("config.json: invalid JSON: " + e.getMessage());
        }
        if (!(v instanceof Map<?, ?> m)) {
            throw RuntimeRefusal.invalid("config.json: not a JSON object");
        }
        return new OciSpecEdit((Map<String, Object>) m);
    }

    /** {@code process.env}, in order. */
    public List<String> env() {
        List<String> out = new ArrayList<>();
        if (spec.get("process") instanceof Map<?, ?> p && p.get("env") instanceof List<?> env) {
            env.forEach(
                    e -> {
                        if (e instanceof String s) {
                            out.add(s);
                        }
                    });
        }
        return out;
    }

    /**
     * CDI device requests: values of {@code cdi.k8s.io/*} annotations, each a comma list of
     * qualified names.
     */
    public List<String> cdiDevices() {
        List<String> out = new ArrayList<>();
        if (spec.get("annotations") instanceof Map<?, ?> annotations) {
            annotations.forEach(
                    (k, v) -> {
                        if (k instanceof String key
                                && key.startsWith(CDI_ANNOTATION_PREFIX)
                                && v instanceof String value) {
                            for (String d : value.split(",")) {
                                if (!d.isBlank()) {
                                    out.add(d.trim());
                                }
                            }
                        }
                    });
        }
        return out;
    }

    /**
     * Adds read-only bind mounts of the node's simulated nvidia-smi and of the container's GPU
     * description; a mount already at one of those destinations is replaced, so a second edit gives
     * the same spec.
     */
    public OciSpecEdit withGpuMounts(String nvidiaSmiOnNode, String descriptionOnNode) {
        Map<String, Object> copy = new LinkedHashMap<>(spec);
        List<Object> mounts = new ArrayList<>();
        if (spec.get("mounts") instanceof List<?> existing) {
            for (Object m : existing) {
                Object dest = m instanceof Map<?, ?> mm ? mm.get("destination") : null;
                if (!NVIDIA_SMI_IN_CONTAINER.equals(dest)
                        && !GpuDescription.CONTAINER_PATH.equals(dest)) {
                    mounts.add(m);
                }
            }
        }
        mounts.add(bindMount(NVIDIA_SMI_IN_CONTAINER, nvidiaSmiOnNode));
        mounts.add(bindMount(GpuDescription.CONTAINER_PATH, descriptionOnNode));
        copy.put("mounts", mounts);
        return new OciSpecEdit(copy);
    }

    /**
     * Adds a read-only bind mount of the node's static busybox at {@code /bin/sh}: the simulated
     * nvidia-smi is a shell script, where the real one is a binary that runs in any image; an image
     * without a shell (a jlinked JDK) still gets a working nvidia-smi this way.
     */
    public OciSpecEdit withShell(String busyboxOnNode) {
        Map<String, Object> copy = new LinkedHashMap<>(spec);
        List<Object> mounts = new ArrayList<>();
        if (spec.get("mounts") instanceof List<?> existing) {
            for (Object m : existing) {
                Object dest = m instanceof Map<?, ?> mm ? mm.get("destination") : null;
                if (!SHELL_IN_CONTAINER.equals(dest)) {
                    mounts.add(m);
                }
            }
        }
        mounts.add(bindMount(SHELL_IN_CONTAINER, busyboxOnNode));
        copy.put("mounts", mounts);
        return new OciSpecEdit(copy);
    }

    /** The container's root file system as the spec names it (relative to the bundle, usually). */
    public String rootPath() {
        return spec.get("root") instanceof Map<?, ?> root && root.get("path") instanceof String p
                ? p
                : "rootfs";
    }

    private static Map<String, Object> bindMount(String destination, String source) {
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("destination", destination);
        m.put("type", "bind");
        m.put("source", source);
        m.put("options", List.of("rbind", "ro", "nosuid", "nodev"));
        return m;
    }

    public byte[] toBytes() {
        return OciJson.write(spec).getBytes(StandardCharsets.UTF_8);
    }
}
