package org.gpuoperator.node.deviceconfig;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * Which named config of the mounted ConfigMap a node runs: the value of its label {@value #LABEL},
 * else the policy's default ({@code devicePlugin.config.default}, env {@code DEFAULT_CONFIG}), else
 * none (upstream operator's {@code FALLBACK_STRATEGIES=empty}). Pure, apart from {@link
 * #available(Path)} which lists the directory.
 */
public final class ConfigSelection {

    /** The node label that names a config; upstream's. */
    public static final String LABEL = "nvidia.com/device-plugin.config";

    /** Where the ConfigMap is mounted in both agents' pods; upstream's. */
    public static final String MOUNT_DIR = "/available-configs";

    /** A ConfigMap key (a file name in the mounted volume). */
    private static final Pattern KEY = Pattern.compile("[-._a-zA-Z0-9]+");

    /**
     * The chosen config.
     *
     * @param name the ConfigMap key, or null for none
     * @param file the file of that key, or null for none
     * @param fromLabel whether the node label chose it (else the default)
     */
    public record Choice(String name, Path file, boolean fromLabel) {
        public static final Choice NONE = new Choice(null, null, false);

        public boolean none() {
            return name == null;
        }

        /** For messages and the node annotation. */
        public String describe() {
            return none() ? "(none)" : name;
        }
    }

    private final Path dir;
    private final String defaultName;

    /**
     * @param dir where the ConfigMap is mounted (one file per key)
     * @param defaultName {@code devicePlugin.config.default}, or null/blank for none
     */
    public ConfigSelection(Path dir, String defaultName) {
        this.dir = dir;
        this.defaultName = defaultName == null || defaultName.isBlank() ? null : defaultName.trim();
    }

    public Path dir() {
        return dir;
    }

    /**
     * The config the label value selects among {@code available} keys.
     *
     * @param labelValue the node's {@value #LABEL} value, or null when absent (blank counts as
     *     absent)
     * @throws ConfigException naming the config and the keys there are, when the name is not one
     */
    public Choice select(String labelValue, Set<String> available) {
        boolean fromLabel = labelValue != null && !labelValue.isBlank();
        String name = fromLabel ? labelValue.trim() : defaultName;
        if (name == null) {
            return Choice.NONE;
        }
        if (!KEY.matcher(name).matches() || name.startsWith("..") || !available.contains(name)) {
            throw new ConfigException(
                    "config '"
                            + name
                            + "' ("
                            + (fromLabel ? "node label " + LABEL : "devicePlugin.config.default")
                            + ") is not a key of the config ConfigMap mounted at "
                            + dir
                            + "; keys: "
                            + (available.isEmpty()
                                    ? "none"
                                    : String.join(", ", new TreeSet<>(available))));
        }
        return new Choice(name, dir.resolve(name), fromLabel);
    }

    /**
     * Selects and validates: the chosen file must parse and pass every check of {@link ConfigFile}.
     *
     * @throws ConfigException naming the config and what is wrong with it
     */
    public Choice selectValid(String labelValue) {
        Choice choice = select(labelValue, available(dir));
        if (!choice.none()) {
            try {
                ConfigFile.read(choice.file());
            } catch (ConfigException e) {
                throw new ConfigException("config '" + choice.name() + "': " + e.getMessage());
            }
        }
        return choice;
    }

    /**
     * The ConfigMap's keys: the directory's entries, less the kubelet's own ({@code ..data} and the
     * timestamped directories it swaps in).
     */
    public static Set<String> available(Path dir) {
        Set<String> keys = new TreeSet<>();
        if (!Files.isDirectory(dir)) {
            return keys;
        }
        try (Stream<Path> entries = Files.list(dir)) {
            entries.map(p -> p.getFileName().toString())
                    .filter(n -> !n.startsWith(".."))
                    .forEach(keys::add);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return keys;
    }
}
