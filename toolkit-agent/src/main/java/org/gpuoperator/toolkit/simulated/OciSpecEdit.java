package org.gpuoperator.toolkit.simulated;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.gpuoperator.node.cdi.CdiSpec;

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
        return cdiDevices(CDI_ANNOTATION_PREFIX);
    }

    /** CDI device requests: values of the annotations whose key starts with {@code prefix}. */
    public List<String> cdiDevices(String prefix) {
        List<String> out = new ArrayList<>();
        if (spec.get("annotations") instanceof Map<?, ?> annotations) {
            annotations.forEach(
                    (k, v) -> {
                        if (k instanceof String key
                                && key.startsWith(prefix)
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

    /**
     * Applies resolved CDI container edits as the CDI library does: env entries (replacing the same
     * key), device nodes ({@code linux.devices}, replacing one at the same path, plus a cgroup
     * allow rule in {@code linux.resources.devices}), mounts (replacing one at the same
     * destination; type {@code bind} when the spec names none). Hooks are not added: see the README
     * (the simulated node has no {@code nvidia-cdi-hook} to run). Every device node must carry its
     * type and numbers (the caller fills them from the host, as CDI does).
     */
    @SuppressWarnings("unchecked")
    public OciSpecEdit withCdiEdits(CdiSpec.ContainerEdits edits) {
        Map<String, Object> copy = new LinkedHashMap<>(spec);

        Map<String, Object> process =
                new LinkedHashMap<>(
                        spec.get("process") instanceof Map<?, ?> p
                                ? (Map<String, Object>) p
                                : Map.of());
        List<Object> env = new ArrayList<>(env());
        for (String e : edits.env()) {
            String key = e.contains("=") ? e.substring(0, e.indexOf('=') + 1) : e + "=";
            env.removeIf(x -> x instanceof String s && (s.startsWith(key) || s.equals(e)));
            env.add(e);
        }
        if (!edits.env().isEmpty()) {
            process.put("env", env);
            copy.put("process", process);
        }

        if (!edits.deviceNodes().isEmpty()) {
            Map<String, Object> linux =
                    new LinkedHashMap<>(
                            spec.get("linux") instanceof Map<?, ?> l
                                    ? (Map<String, Object>) l
                                    : Map.of());
            List<Object> devices = new ArrayList<>();
            if (linux.get("devices") instanceof List<?> existing) {
                devices.addAll(existing);
            }
            Map<String, Object> resources =
                    new LinkedHashMap<>(
                            linux.get("resources") instanceof Map<?, ?> r
                                    ? (Map<String, Object>) r
                                    : Map.of());
            List<Object> rules = new ArrayList<>();
            if (resources.get("devices") instanceof List<?> existing) {
                rules.addAll(existing);
            }
            for (CdiSpec.DeviceNode n : edits.deviceNodes()) {
                if (n.type() == null || n.major() == null || n.minor() == null) {
                    throw new IllegalArgumentException(
                            "CDI device node " + n.path() + " has no type and numbers");
                }
                devices.removeIf(d -> d instanceof Map<?, ?> m && n.path().equals(m.get("path")));
                Map<String, Object> d = new LinkedHashMap<>();
                d.put("path", n.path());
                d.put("type", n.type());
                d.put("major", num(n.major()));
                d.put("minor", num(n.minor()));
                if (n.uid() != null) {
                    d.put("uid", num(n.uid()));
                }
                if (n.gid() != null) {
                    d.put("gid", num(n.gid()));
                }
                devices.add(d);
                Map<String, Object> rule = new LinkedHashMap<>();
                rule.put("allow", true);
                rule.put("type", n.type());
                rule.put("major", num(n.major()));
                rule.put("minor", num(n.minor()));
                rule.put("access", n.permissions() == null ? "rwm" : n.permissions());
                rules.remove(rule); // a second edit gives the same spec
                rules.add(rule);
            }
            linux.put("devices", devices);
            resources.put("devices", rules);
            linux.put("resources", resources);
            copy.put("linux", linux);
        }

        if (!edits.mounts().isEmpty()) {
            List<Object> mounts = new ArrayList<>();
            if (spec.get("mounts") instanceof List<?> existing) {
                mounts.addAll(existing);
            }
            for (CdiSpec.Mount m : edits.mounts()) {
                mounts.removeIf(
                        x ->
                                x instanceof Map<?, ?> mm
                                        && m.containerPath().equals(mm.get("destination")));
                Map<String, Object> om = new LinkedHashMap<>();
                om.put("destination", m.containerPath());
                om.put("type", m.type() == null ? "bind" : m.type());
                om.put("source", m.hostPath());
                om.put("options", List.copyOf(m.options()));
                mounts.add(om);
            }
            copy.put("mounts", mounts);
        }
        return new OciSpecEdit(copy);
    }

    /**
     * Adds CDI hooks to {@code hooks.<hookName>} (after those already there), as the CDI library
     * does; a hook already there is not added again. Kept apart from {@link #withCdiEdits}: the
     * simulated runtime leaves hooks out (its node has no {@code nvidia-cdi-hook}); a real
     * container (toolkit-agent's {@code RealContainerCdiTest}) gets them.
     */
    @SuppressWarnings("unchecked")
    public OciSpecEdit withHooks(List<CdiSpec.Hook> hooks) {
        if (hooks.isEmpty()) {
            return this;
        }
        Map<String, Object> copy = new LinkedHashMap<>(spec);
        Map<String, Object> all =
                new LinkedHashMap<>(
                        spec.get("hooks") instanceof Map<?, ?> h
                                ? (Map<String, Object>) h
                                : Map.of());
        for (CdiSpec.Hook h : hooks) {
            List<Object> point = new ArrayList<>();
            if (all.get(h.hookName()) instanceof List<?> existing) {
                point.addAll(existing);
            }
            Map<String, Object> oh = new LinkedHashMap<>();
            oh.put("path", h.path());
            if (!h.args().isEmpty()) {
                oh.put("args", List.copyOf(h.args()));
            }
            if (!h.env().isEmpty()) {
                oh.put("env", List.copyOf(h.env()));
            }
            if (h.timeout() != null) {
                oh.put("timeout", num(h.timeout()));
            }
            if (!point.contains(oh)) {
                point.add(oh);
            }
            all.put(h.hookName(), point);
        }
        copy.put("hooks", all);
        return new OciSpecEdit(copy);
    }

    private static OciJson.Num num(long v) {
        return new OciJson.Num(Long.toString(v));
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
