package org.gpuoperator.toolkit.simulated;

import java.nio.file.Path;
import org.tomlj.Toml;
import org.tomlj.TomlParseResult;

/**
 * The simulated runtime's config file, where upstream keeps the runtime's own config:
 * {@code <install dir>/.config/nvidia-container-runtime/config.toml}. Upstream keys where they exist
 * ({@code nvidia-container-cli.root}: the driver root), plus a {@code [simulated]} table with what the toolkit agent
 * knows and the runtime cannot find out on the node.
 *
 * @param driverRoot   where the driver is exposed on the node ({@code /run/nvidia/driver} for the driver container)
 * @param nodeName     seeds the simulated GPU UUIDs (same as the device plugin's)
 * @param gpuSource    {@code simulated:<profile>}
 * @param hostRoot     where the simulated node's host root is (the simulated kernel's {@code proc/driver/nvidia}
 *                     lives under it; no mount namespace can bind it at {@code /proc})
 * @param profilesFile extra simulated profiles (YAML), or null
 */
public record RuntimeConfig(String driverRoot, String nodeName, String gpuSource, String hostRoot, String profilesFile) {

    public static final String RELATIVE_PATH = ".config/nvidia-container-runtime/config.toml";
    public static final String DEFAULT_DRIVER_ROOT = "/run/nvidia/driver";

    public String render() {
        StringBuilder sb = new StringBuilder();
        sb.append("# nvidia-container-runtime config for simulated GPUs, written by toolkit-agent (rewritten on install)\n\n");
        sb.append("[nvidia-container-cli]\n");
        sb.append("root = ").append(quote(driverRoot)).append("\n\n");
        sb.append("[nvidia-container-runtime]\n");
        sb.append("mode = \"legacy\"\n\n");
        sb.append("[simulated]\n");
        sb.append("node-name = ").append(quote(nodeName)).append('\n');
        sb.append("gpu-source = ").append(quote(gpuSource)).append('\n');
        sb.append("host-root = ").append(quote(hostRoot)).append('\n');
        if (profilesFile != null) {
            sb.append("profiles-file = ").append(quote(profilesFile)).append('\n');
        }
        return sb.toString();
    }

    public static RuntimeConfig parse(String text, Path file) throws RuntimeRefusal {
        TomlParseResult t = Toml.parse(text);
        if (t.hasErrors()) {
            throw RuntimeRefusal.invalid(file + ": " + t.errors().getFirst().toString());
        }
        String nodeName = t.getString("simulated.node-name");
        String source = t.getString("simulated.gpu-source");
        if (nodeName == null || source == null) {
            throw RuntimeRefusal.invalid(file + ": simulated.node-name and simulated.gpu-source are required");
        }
        String root = t.getString("nvidia-container-cli.root");
        String hostRoot = t.getString("simulated.host-root");
        return new RuntimeConfig(root == null ? DEFAULT_DRIVER_ROOT : root, nodeName, source,
                hostRoot == null ? "/" : hostRoot, t.getString("simulated.profiles-file"));
    }

    private static String quote(String s) {
        return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }
}
