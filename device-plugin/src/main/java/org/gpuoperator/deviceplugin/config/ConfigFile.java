package org.gpuoperator.deviceplugin.config;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/**
 * A v1 config file as upstream's device plugin reads it (YAML or JSON). Fields this plugin does not act on but that
 * upstream files carry (GFD settings, {@code resources}, IMEX) are accepted and reported in {@link #ignored()};
 * anything else is an error naming the field, so a misplaced setting (e.g. {@code renameByDefault} under
 * {@code flags}) is not silently dropped.
 *
 * @param source      the file, for messages
 * @param flags       raw flag values found in the file (parsed later, so that precedence applies first)
 * @param timeSlicing {@code sharing.timeSlicing}, validated
 * @param ignored     dotted paths of accepted fields that have no effect here
 */
public record ConfigFile(String source, Map<Flag, Object> flags, TimeSlicing timeSlicing, List<String> ignored) {

    public static final String RESOURCE_DOMAIN = "nvidia.com/";

    private static final Pattern NAME_PART = Pattern.compile("[a-z0-9]([-a-z0-9.]*[a-z0-9])?");
    private static final Set<String> TOP = Set.of("version", "flags", "resources", "sharing", "imex");
    private static final Set<String> FLAGS_IGNORED = Set.of("mpsRoot", "useNodeFeatureAPI", "deviceDiscoveryStrategy",
            "gfd", "kubeletSocket");
    private static final Set<String> PLUGIN_IGNORED = Set.of("nvidiaCTKPath", "containerDriverRoot", "cdiFeatureFlags",
            "cdiDisableHooks");

    public ConfigFile {
        flags = Map.copyOf(flags);
        ignored = List.copyOf(ignored);
    }

    /** No file: no values, no sharing. */
    public static ConfigFile empty() {
        return new ConfigFile("(no config file)", Map.of(), TimeSlicing.NONE, List.of());
    }

    public static ConfigFile read(Path file) {
        String text;
        try {
            text = Files.readString(file);
        } catch (NoSuchFileException e) {
            throw new ConfigException(file + ": config file does not exist");
        } catch (IOException e) {
            throw new ConfigException(file + ": cannot read config file: " + e.getMessage());
        }
        return parse(text, file.toString());
    }

    /** Parses the text of a config file; {@code source} names it in errors. */
    public static ConfigFile parse(String text, String source) {
        Object doc;
        try {
            doc = new Yaml(new SafeConstructor(new LoaderOptions())).load(text);
        } catch (RuntimeException e) {
            throw new ConfigException(source + ": not valid YAML or JSON: " + e.getMessage().replace('\n', ' '));
        }
        if (doc == null) {
            return new ConfigFile(source, Map.of(), TimeSlicing.NONE, List.of());
        }
        Map<?, ?> root = map(doc, source, "(top level)");
        String at = source + ": ";
        List<String> ignored = new ArrayList<>();
        for (Object k : root.keySet()) {
            if (!TOP.contains(String.valueOf(k))) {
                throw new ConfigException(at + k + ": unknown field (expected version, flags, sharing, resources, imex)");
            }
        }
        Object version = root.get("version");
        if (version != null && !"v1".equals(version)) {
            throw new ConfigException(at + "version: unknown version " + Flag.describe(version) + " (expected v1)");
        }
        Map<Flag, Object> flags = new EnumMap<>(Flag.class);
        if (root.get("flags") != null) {
            readFlags(map(root.get("flags"), source, "flags"), source, flags, ignored);
        }
        if (root.containsKey("resources")) {
            ignored.add("resources");
        }
        if (root.containsKey("imex")) {
            ignored.add("imex");
        }
        TimeSlicing ts = TimeSlicing.NONE;
        if (root.get("sharing") != null) {
            ts = readSharing(map(root.get("sharing"), source, "sharing"), source);
        }
        return new ConfigFile(source, flags, ts, ignored);
    }

    private static void readFlags(Map<?, ?> section, String source, Map<Flag, Object> out, List<String> ignored) {
        String at = source + ": ";
        for (var e : section.entrySet()) {
            String key = String.valueOf(e.getKey());
            if (key.equals("plugin")) {
                if (e.getValue() == null) {
                    continue;
                }
                for (var p : map(e.getValue(), source, "flags.plugin").entrySet()) {
                    String pk = String.valueOf(p.getKey());
                    if (PLUGIN_IGNORED.contains(pk)) {
                        ignored.add("flags.plugin." + pk);
                        continue;
                    }
                    Flag f = byPath("flags.plugin." + pk);
                    if (f == null) {
                        throw new ConfigException(at + "flags.plugin." + pk + ": unknown field");
                    }
                    putFlag(out, f, p.getValue());
                }
                continue;
            }
            if (FLAGS_IGNORED.contains(key)) {
                ignored.add("flags." + key);
                continue;
            }
            Flag f = byPath("flags." + key);
            if (f == null) {
                String hint = key.equals("renameByDefault") || key.equals("failRequestsGreaterThanOne")
                        ? " (it belongs under sharing.timeSlicing)" : "";
                throw new ConfigException(at + "flags." + key + ": unknown field" + hint);
            }
            putFlag(out, f, e.getValue());
        }
    }

    private static void putFlag(Map<Flag, Object> out, Flag f, Object value) {
        if (value != null) {
            out.put(f, value);
        }
    }

    private static Flag byPath(String path) {
        for (Flag f : Flag.values()) {
            if (f.filePath().equals(path)) {
                return f;
            }
        }
        return null;
    }

    private static TimeSlicing readSharing(Map<?, ?> sharing, String source) {
        String at = source + ": ";
        for (Object k : sharing.keySet()) {
            String key = String.valueOf(k);
            if (key.equals("mps")) {
                Object mps = sharing.get(k);
                if (mps instanceof Map<?, ?> m && m.get("resources") instanceof List<?> l && !l.isEmpty()) {
                    throw new ConfigException(at + "sharing.mps: MPS sharing is not supported by this device plugin "
                            + "(use sharing.timeSlicing)");
                }
            } else if (!key.equals("timeSlicing")) {
                throw new ConfigException(at + "sharing." + key + ": unknown field (expected timeSlicing)");
            }
        }
        if (sharing.get("timeSlicing") == null) {
            return TimeSlicing.NONE;
        }
        Map<?, ?> ts = map(sharing.get("timeSlicing"), source, "sharing.timeSlicing");
        String tsAt = "sharing.timeSlicing";
        for (Object k : ts.keySet()) {
            String key = String.valueOf(k);
            if (!Set.of("renameByDefault", "failRequestsGreaterThanOne", "resources").contains(key)) {
                throw new ConfigException(at + tsAt + "." + key + ": unknown field");
            }
        }
        boolean rename = ts.get("renameByDefault") != null
                && Flag.parseBool(ts.get("renameByDefault"), at + tsAt + ".renameByDefault");
        boolean failGt1 = ts.get("failRequestsGreaterThanOne") != null
                && Flag.parseBool(ts.get("failRequestsGreaterThanOne"),
                        at + tsAt + ".failRequestsGreaterThanOne");
        if (!(ts.get("resources") instanceof List<?> list) || list.isEmpty()) {
            throw new ConfigException(at + tsAt + ".resources: required, a non-empty list");
        }
        List<TimeSlicing.SharedResource> out = new ArrayList<>();
        Set<String> names = new HashSet<>();
        Set<String> advertised = new HashSet<>();
        for (int i = 0; i < list.size(); i++) {
            String rAt = tsAt + ".resources[" + i + "]";
            Map<?, ?> r = map(list.get(i), source, rAt);
            for (Object k : r.keySet()) {
                if (!Set.of("name", "replicas", "rename", "devices").contains(String.valueOf(k))) {
                    throw new ConfigException(at + rAt + "." + k + ": unknown field");
                }
            }
            String name = resourceName(r.get("name"), at + rAt + ".name");
            if (!names.add(name)) {
                throw new ConfigException(at + rAt + ".name: resource " + name + " is listed twice");
            }
            if (!(r.get("replicas") instanceof Integer replicas)) {
                throw new ConfigException(at + rAt + ".replicas: required, an integer of at least 2, got "
                        + Flag.describe(r.get("replicas")));
            }
            if (replicas < 2) {
                throw new ConfigException(at + rAt + ".replicas: must be at least 2, got " + replicas
                        + " (to stop sharing, remove the resource from sharing.timeSlicing)");
            }
            String renamed = r.get("rename") == null ? null : resourceName(r.get("rename"), at + rAt + ".rename");
            TimeSlicing.SharedResource shared = new TimeSlicing.SharedResource(name, replicas, renamed);
            out.add(shared);
            String adv = new TimeSlicing(rename, failGt1, List.of()).advertisedName(shared);
            if (!advertised.add(adv)) {
                throw new ConfigException(at + rAt + ": advertised name " + adv + " is used twice");
            }
        }
        return new TimeSlicing(rename, failGt1, out);
    }

    /** A resource name: {@code nvidia.com/} is added when no domain is given; at most 63 characters. */
    static String resourceName(Object raw, String where) {
        if (!(raw instanceof String s) || s.isBlank()) {
            throw new ConfigException(where + ": required, a resource name like nvidia.com/gpu, got " + Flag.describe(raw));
        }
        String full = s.contains("/") ? s.trim() : RESOURCE_DOMAIN + s.trim();
        String part = full.substring(full.indexOf('/') + 1);
        if (full.length() > 63) {
            throw new ConfigException(where + ": '" + full + "' is longer than 63 characters");
        }
        if (!NAME_PART.matcher(part).matches()) {
            throw new ConfigException(where + ": '" + full + "' is not a valid resource name "
                    + "(lower-case letters, digits, '-' and '.' after the domain)");
        }
        return full;
    }

    private static Map<?, ?> map(Object o, String source, String path) {
        if (o instanceof Map<?, ?> m) {
            return m;
        }
        throw new ConfigException(source + ": " + path + ": expected a map, got " + Flag.describe(o));
    }
}
