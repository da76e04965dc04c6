package org.gpuoperator.migmanager.config;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/**
 * A mig-parted config file, version {@code v1}: named MIG configs, each a list of {@link
 * MigConfigEntry entries}. The same files NVIDIA's {@code nvidia-mig-parted} and the upstream
 * operator's {@code default-mig-parted-config} ConfigMap hold.
 *
 * <p>Stricter than upstream where upstream is silent: an unknown field anywhere is an error naming
 * it, a malformed {@code device-filter} id is an error (upstream drops it, so the entry matches
 * nothing), and a duplicate config name is an error (upstream keeps the last).
 *
 * @param source the file path or ConfigMap key, for messages
 * @param configs config name → entries, in file order
 */
public record MigConfigFile(String source, Map<String, List<MigConfigEntry>> configs) {

    public static final String VERSION = "v1";

    private static final List<String> TOP_FIELDS = List.of("version", "mig-configs");
    private static final List<String> ENTRY_FIELDS =
            List.of("device-filter", "devices", "mig-enabled", "mig-devices");

    /**
     * {@code [<c>c.]<g>g.<memory>gb}, then attributes after {@code +} or {@code -} ({@code
     * 1g.10gb+me}, {@code 1g.24gb-me}, {@code 1g.24gb+me.all}): the names NVML's profiles get.
     * Whether a GPU offers one is the planner's question.
     */
    private static final Pattern PROFILE =
            Pattern.compile(
                    "([1-9][0-9]*c\\.)?[1-9][0-9]*g\\.[1-9][0-9]*gb([+-][A-Za-z][A-Za-z0-9.,+-]*)?");

    public MigConfigFile {
        Map<String, List<MigConfigEntry>> copy = new LinkedHashMap<>();
        configs.forEach((name, entries) -> copy.put(name, List.copyOf(entries)));
        configs = Collections.unmodifiableMap(copy);
    }

    /** The config names, in file order. */
    public Set<String> names() {
        return configs.keySet();
    }

    /** The entries of config {@code name}, if the file has it. */
    public Optional<List<MigConfigEntry>> config(String name) {
        return Optional.ofNullable(configs.get(name));
    }

    /** Reads and parses {@code file}; errors name the file. */
    public static MigConfigFile read(Path file) {
        String text;
        try {
            text = Files.readString(file);
        } catch (NoSuchFileException e) {
            throw new MigConfigException(file + ": config file does not exist");
        } catch (IOException e) {
            throw new MigConfigException(file + ": cannot read config file: " + e.getMessage());
        }
        return parse(text, file.toString());
    }

    /**
     * Parses the text of a config file (YAML, or JSON as YAML); {@code source} names it in errors.
     *
     * @throws MigConfigException naming the source, the config and the field
     */
    public static MigConfigFile parse(String text, String source) {
        LoaderOptions options = new LoaderOptions();
        // two configs of one name are a mistake (upstream keeps the last one silently)
        options.setAllowDuplicateKeys(false);
        Object doc;
        try {
            doc = new Yaml(new SafeConstructor(options)).load(text);
        } catch (RuntimeException e) {
            // snakeyaml's message gives the line and column
            throw new MigConfigException(
                    source + ": not valid YAML: " + e.getMessage().replace('\n', ' '));
        }
        return new Reader(source).file(doc);
    }

    /** The state of one parse: the source, for messages. */
    private record Reader(String source) {

        MigConfigException error(String path, String message) {
            return new MigConfigException(
                    source + ": " + (path.isEmpty() ? "" : path + ": ") + message);
        }

        MigConfigFile file(Object doc) {
            if (doc == null) {
                throw error("", "empty config (expected version: v1 and mig-configs)");
            }
            Map<?, ?> top = map(doc, "");
            unknownFields(top, "", TOP_FIELDS);
            if (!top.containsKey("version")) {
                throw error("version", "missing (expected " + VERSION + ")");
            }
            Object version = top.get("version");
            if (!VERSION.equals(version)) {
                throw error("version", "unknown version " + describe(version) + " (expected v1)");
            }
            Object configs = top.get("mig-configs");
            if (configs == null || configs instanceof Map<?, ?> m && m.isEmpty()) {
                throw error("mig-configs", "at least one named config is required");
            }
            Map<String, List<MigConfigEntry>> out = new LinkedHashMap<>();
            for (var e : map(configs, "mig-configs").entrySet()) {
                // YAML reads unquoted on, off, yes, no, 1 as booleans and numbers
                if (!(e.getKey() instanceof String name)) {
                    throw error(
                            "mig-configs",
                            "config name "
                                    + e.getKey()
                                    + " is read as a "
                                    + (e.getKey() instanceof Boolean ? "boolean" : "number")
                                    + " (quote it)");
                }
                String path = "mig-configs." + name;
                if (name.isBlank()) {
                    throw error("mig-configs", "a config name must not be empty");
                }
                if (!(e.getValue() instanceof List<?> list)) {
                    throw error(
                            path,
                            "must be a list of entries (devices, mig-enabled, ...), got "
                                    + describe(e.getValue()));
                }
                if (list.isEmpty()) {
                    throw error(path, "at least one entry is required");
                }
                List<MigConfigEntry> entries = new ArrayList<>();
                for (int i = 0; i < list.size(); i++) {
                    entries.add(entry(list.get(i), path + "[" + i + "]"));
                }
                out.put(name, entries);
            }
            return new MigConfigFile(source, out);
        }

        MigConfigEntry entry(Object value, String path) {
            Map<?, ?> map = map(value, path);
            unknownFields(map, path, ENTRY_FIELDS);
            for (String required : List.of("devices", "mig-enabled")) {
                if (map.get(required) == null) {
                    throw error(path + "." + required, "required");
                }
            }
            MigConfigEntry.Devices devices = devices(map.get("devices"), path + ".devices");
            List<String> filter = deviceFilter(map.get("device-filter"), path + ".device-filter");
            if (!(map.get("mig-enabled") instanceof Boolean enabled)) {
                throw error(
                        path + ".mig-enabled",
                        "must be true or false, got " + describe(map.get("mig-enabled")));
            }
            String devicesPath = path + ".mig-devices";
            Object migDevices = map.get("mig-devices");
            if (enabled && migDevices == null) {
                throw error(
                        devicesPath,
                        "required when mig-enabled is true ({} for MIG mode on with no devices)");
            }
            Map<String, Integer> counts =
                    migDevices == null ? Map.of() : migDevices(migDevices, devicesPath);
            if (!enabled && !counts.isEmpty()) {
                throw error(devicesPath, "must be empty when mig-enabled is false");
            }
            return new MigConfigEntry(devices, filter, enabled, counts);
        }

        MigConfigEntry.Devices devices(Object value, String path) {
            if ("all".equals(value)) {
                return MigConfigEntry.Devices.ALL;
            }
            if (!(value instanceof List<?> list)) {
                throw error(path, "must be 'all' or a list of GPU indices, got " + describe(value));
            }
            if (list.isEmpty()) {
                throw error(path, "must name at least one GPU index (or be 'all')");
            }
            List<Integer> indices = new ArrayList<>();
            for (int i = 0; i < list.size(); i++) {
                Object index = list.get(i);
                if (!(index instanceof Integer n) || n < 0) {
                    throw error(
                            path + "[" + i + "]",
                            "must be a GPU index (0 or more), got " + describe(index));
                }
                if (indices.contains(n)) {
                    throw error(path, "GPU " + n + " is listed twice");
                }
                indices.add(n);
            }
            return new MigConfigEntry.Indices(indices);
        }

        List<String> deviceFilter(Object value, String path) {
            if (value == null) {
                return List.of();
            }
            if (value instanceof List<?> list) {
                List<String> ids = new ArrayList<>();
                for (int i = 0; i < list.size(); i++) {
                    ids.add(deviceId(list.get(i), path + "[" + i + "]"));
                }
                return ids;
            }
            return List.of(deviceId(value, path));
        }

        String deviceId(Object value, String path) {
            // unquoted, YAML reads 0x20B010DE as a number: take it as the id it spells
            if (value instanceof Integer || value instanceof Long) {
                long id = ((Number) value).longValue();
                if (id >= 0 && id <= 0xFFFF_FFFFL) {
                    return PciDeviceId.of(id);
                }
            }
            if (value instanceof String s && PciDeviceId.valid(s)) {
                return PciDeviceId.normalize(s);
            }
            String hint =
                    value instanceof String s && s.contains(":")
                            ? " (subsystem ids, 0xDDDDVVVV:0xSSSSVVVV, are not supported)"
                            : "";
            throw error(
                    path,
                    "must be a PCI device id 0xDDDDVVVV (device, then vendor: 0x20B010DE), got "
                            + describe(value)
                            + hint);
        }

        Map<String, Integer> migDevices(Object value, String path) {
            Map<String, Integer> counts = new LinkedHashMap<>();
            for (var e : map(value, path).entrySet()) {
                String profile = String.valueOf(e.getKey());
                if (!PROFILE.matcher(profile).matches()) {
                    throw error(
                            path,
                            "'"
                                    + profile
                                    + "' is not a MIG profile name ([<c>c.]<g>g.<memory>gb, as"
                                    + " 1g.5gb)");
                }
                if (!(e.getValue() instanceof Integer count) || count < 0) {
                    throw error(
                            path,
                            "count of '"
                                    + profile
                                    + "' must be a whole number, 0 or more, got "
                                    + describe(e.getValue()));
                }
                counts.put(profile, count);
            }
            if (!counts.isEmpty() && counts.values().stream().allMatch(c -> c == 0)) {
                throw error(
                        path,
                        "all counts are 0 (write mig-devices: {} for MIG mode on with no"
                                + " devices)");
            }
            return counts;
        }

        Map<?, ?> map(Object value, String path) {
            if (value instanceof Map<?, ?> m) {
                return m;
            }
            throw error(path, "must be a map, got " + describe(value));
        }

        void unknownFields(Map<?, ?> map, String path, List<String> known) {
            List<String> unknown =
                    map.keySet().stream()
                            .map(String::valueOf)
                            .filter(k -> !known.contains(k))
                            .toList();
            if (!unknown.isEmpty()) {
                throw error(
                        path,
                        (unknown.size() == 1 ? "unknown field " : "unknown fields ")
                                + unknown.stream()
                                        .map(k -> "'" + k + "'")
                                        .collect(Collectors.joining(", "))
                                + " (expected "
                                + String.join(", ", known)
                                + ")");
            }
        }
    }

    /** A value as a message shows it: strings quoted, collections by kind. */
    static String describe(Object value) {
        return switch (value) {
            case null -> "nothing";
            case String s -> "'" + s + "'";
            case Map<?, ?> m -> "a map";
            case List<?> l -> "a list";
            default -> String.valueOf(value);
        };
    }
}
