package org.gpuoperator.toolkit.simulated;

import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * The simulated runtime's config file, where upstream keeps the runtime's own config: {@code
 * <install dir>/.config/nvidia-container-runtime/config.toml}. Upstream keys where they exist
 * ({@code nvidia-container-cli.root}: the driver root), plus a {@code [simulated]} table with what
 * the toolkit agent knows and the runtime cannot find out on the node.
 *
 * @param driverRoot where the driver is exposed on the node ({@code /run/nvidia/driver} for the
 *     driver container)
 * @param nodeName seeds the simulated GPU UUIDs (same as the device plugin's)
 * @param gpuSource {@code simulated:<profile>}
 * @param hostRoot where the simulated node's host root is (the simulated kernel's {@code
 *     proc/driver/nvidia} lives under it; no mount namespace can bind it at {@code /proc})
 * @param profilesFile extra simulated profiles (YAML), or null
 * @param cdiAnnotationPrefix the annotations whose values are CDI device names (upstream's {@code
 *     nvidia-container-runtime.modes.cdi.annotation-prefixes}; default {@value
 *     #DEFAULT_CDI_ANNOTATION_PREFIX})
 * @param cdiDefaultKind the kind a bare name in {@code NVIDIA_VISIBLE_DEVICES} resolves in under
 *     CDI (upstream's {@code modes.cdi.default-kind}; default {@value #DEFAULT_CDI_KIND})
 */
public record RuntimeConfig(
        String driverRoot,
        String nodeName,
        String gpuSource,
        String hostRoot,
        String profilesFile,
        String cdiAnnotationPrefix,
        String cdiDefaultKind) {

    public static final String DEFAULT_CDI_ANNOTATION_PREFIX = "cdi.k8s.io/";
    public static final String DEFAULT_CDI_KIND = "nvidia.com/gpu";

    public RuntimeConfig {
        cdiAnnotationPrefix =
                cdiAnnotationPrefix == null || cdiAnnotationPrefix.isEmpty()
                        ? DEFAULT_CDI_ANNOTATION_PREFIX
                        : cdiAnnotationPrefix;
        cdiDefaultKind =
                cdiDefaultKind == null || cdiDefaultKind.isEmpty()
                        ? DEFAULT_CDI_KIND
                        : cdiDefaultKind;
    }

    /** With the default CDI kind. */
    public RuntimeConfig(
            String driverRoot,
            String nodeName,
            String gpuSource,
            String hostRoot,
            String profilesFile,
            String cdiAnnotationPrefix) {
        this(driverRoot, nodeName, gpuSource, hostRoot, profilesFile, cdiAnnotationPrefix, null);
    }

    /** With the default CDI annotation prefix. */
    public RuntimeConfig(
            String driverRoot,
            String nodeName,
            String gpuSource,
            String hostRoot,
            String profilesFile) {
        this(driverRoot, nodeName, gpuSource, hostRoot, profilesFile, null, null);
    }

    public static final String RELATIVE_PATH = ".config/nvidia-container-runtime/config.toml";
    public static final String DEFAULT_DRIVER_ROOT = "/run/nvidia/driver";

    public String render() {
        StringBuilder sb = new StringBuilder();
        sb.append(
                "# nvidia-container-runtime config for simulated GPUs, written by toolkit-agent (rewritten on install)\n\n");
        sb.append("[nvidia-container-cli]\n");
        sb.append("root = ").append(quote(driverRoot)).append("\n\n");
        sb.append("[nvidia-container-runtime]\n");
        sb.append("mode = \"legacy\"\n\n");
        sb.append("[nvidia-container-runtime.modes.cdi]\n");
        sb.append("default-kind = ").append(quote(cdiDefaultKind)).append('\n');
        sb.append("annotation-prefixes = [").append(quote(cdiAnnotationPrefix)).append("]\n\n");
        sb.append("[simulated]\n");
        sb.append("node-name = ").append(quote(nodeName)).append('\n');
        sb.append("gpu-source = ").append(quote(gpuSource)).append('\n');
        sb.append("host-root = ").append(quote(hostRoot)).append('\n');
        if (profilesFile != null) {
            sb.append("profiles-file = ").append(quote(profilesFile)).append('\n');
        }
        return sb.toString();
    }

    /**
     * Reads the file {@link #render} writes: {@code [table]} headers and {@code key = "string"}
     * lines (TOML's basic strings with {@code \"} and {@code \\}), comments and blank lines. Not a
     * general TOML parser on purpose: this runs on every GPU container's create, and a full
     * parser's start-up cost (tomlj loads ANTLR) was a third of it.
     */
    public static RuntimeConfig parse(String text, Path file) throws RuntimeRefusal {
        Map<String, String> values = new HashMap<>();
        String table = "";
        int n = 0;
        for (String raw : text.split("\n", -1)) {
            n++;
            String line = raw.strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            if (line.startsWith("[") && line.endsWith("]")) {
                table = line.substring(1, line.length() - 1).strip() + ".";
                continue;
            }
            int eq = line.indexOf('=');
            String value = eq < 0 ? "" : line.substring(eq + 1).strip();
            if (eq > 0 && value.startsWith("[\"") && value.endsWith("\"]")) {
                // a one-string array, as render writes annotation-prefixes; its first string
                String first = value.substring(2, value.length() - 2);
                int end = first.indexOf("\", \"");
                values.put(
                        table + line.substring(0, eq).strip(),
                        unquote(end < 0 ? first : first.substring(0, end)));
                continue;
            }
            if (eq <= 0 || value.length() < 2 || !value.startsWith("\"") || !value.endsWith("\"")) {
                if (eq > 0 && !value.startsWith("\"")) {
                    continue; // a non-string key (e.g. a boolean an admin added): not one of ours
                }
                throw RuntimeRefusal.invalid(file + ":" + n + ": expected key = \"string\"");
            }
            values.put(
                    table + line.substring(0, eq).strip(),
                    unquote(value.substring(1, value.length() - 1)));
        }
        String nodeName = values.get("simulated.node-name");
        String source = values.get("simulated.gpu-source");
        if (nodeName == null || source == null) {
            throw RuntimeRefusal.invalid(
                    file + ": simulated.node-name and simulated.gpu-source are required");
        }
        return new RuntimeConfig(
                values.getOrDefault("nvidia-container-cli.root", DEFAULT_DRIVER_ROOT),
                nodeName,
                source,
                values.getOrDefault("simulated.host-root", "/"),
                values.get("simulated.profiles-file"),
                values.get("nvidia-container-runtime.modes.cdi.annotation-prefixes"),
                values.get("nvidia-container-runtime.modes.cdi.default-kind"));
    }

    private static String unquote(String s) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            sb.append(c == '\\' && i + 1 < s.length() ? s.charAt(++i) : c);
        }
        return sb.toString();
    }

    private static String quote(String s) {
        return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }
}
