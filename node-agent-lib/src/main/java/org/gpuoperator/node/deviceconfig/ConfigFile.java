package org.gpuoperator.node.deviceconfig;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import org.gpuoperator.node.agent.SettingResolver;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/**
 * The device plugin's v1 config file (YAML or JSON), which the device plugin and feature discovery
 * both read: one parser, so both agents accept and refuse the same files. Every value is checked
 * here, whichever agent uses it.
 *
 * <p>Fields upstream files carry for features no agent here implements ({@code resources}, {@code
 * imex}, {@code flags.mpsRoot}, ...) are accepted and listed in {@link #ignored()}. Any other
 * unknown field is an error naming it: upstream's decoder drops it silently, which hides a
 * misplaced setting (upstream issue #1433).
 *
 * @param source the file, for messages
 * @param values the value fields present in the file, checked
 * @param timeSlicing {@code sharing.timeSlicing}, checked
 * @param ignored dotted paths of accepted fields that have no effect
 */
public record ConfigFile(
        String source,
        Map<ConfigField<?>, Object> values,
        TimeSlicing timeSlicing,
        List<String> ignored) {

    public static final String RESOURCE_DOMAIN = "nvidia.com/";

    private static final Pattern NAME_PART = Pattern.compile("[a-z0-9]([-a-z0-9.]*[a-z0-9])?");
    private static final String TIME_SLICING = "sharing.timeSlicing";
    private static final Set<String> SECTIONS =
            Set.of("flags", "flags.plugin", "flags.gfd", "sharing");
    private static final Set<String> IGNORED =
            Set.of(
                    "resources",
                    "imex",
                    "flags.mpsRoot",
                    "flags.deviceDiscoveryStrategy",
                    "flags.kubeletSocket",
                    "flags.plugin.nvidiaCTKPath",
                    "flags.plugin.containerDriverRoot",
                    "flags.plugin.cdiFeatureFlags",
                    "flags.plugin.cdiDisableHooks");
    private static final List<String> RESOURCE_FIELDS =
            List.of("name", "replicas", "rename", "devices");

    /** Every path the file may hold, for unknown-field errors that say what was meant. */
    private static final Set<String> KNOWN = known();

    public ConfigFile {
        values = Map.copyOf(values);
        ignored = List.copyOf(ignored);
    }

    /** No file: no values, no sharing. */
    public static ConfigFile empty() {
        return empty("(no config file)");
    }

    private static ConfigFile empty(String source) {
        return new ConfigFile(source, Map.of(), TimeSlicing.NONE, List.of());
    }

    /** The value of {@code field}, if the file sets it. */
    @SuppressWarnings("unchecked")
    public <T> Optional<T> get(ConfigField<T> field) {
        return Optional.ofNullable((T) values.get(field));
    }

    /**
     * The checked value of the field at the dotted {@code path} ({@code flags.migStrategy}), if the
     * file sets it.
     */
    public Optional<Object> value(String path) {
        return ConfigField.ALL.stream()
                .filter(f -> f.path().equals(path))
                .findFirst()
                .flatMap(this::get);
    }

    /**
     * Flag, then environment, then this file: the one precedence of the agents that read the config
     * file.
     */
    public SettingResolver resolver(Map<String, String> env) {
        return new SettingResolver(env, this::value, source);
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
            // snakeyaml's message gives the line and column
            throw new ConfigException(
                    source + ": not valid YAML or JSON: " + e.getMessage().replace('\n', ' '));
        }
        if (doc == null) {
            return empty(source);
        }
        Reader r = new Reader(source);
        r.section(r.map(doc, "(top level)"), "");
        return new ConfigFile(source, r.values, r.timeSlicing, r.ignored);
    }

    private static Set<String> known() {
        Set<String> known =
                new LinkedHashSet<>(List.of("version", "flags", "resources", "sharing", "imex"));
        ConfigField.ALL.forEach(f -> known.add(f.path()));
        known.addAll(SECTIONS);
        known.addAll(IGNORED);
        known.addAll(
                List.of(
                        TIME_SLICING,
                        "sharing.mps",
                        TIME_SLICING + ".renameByDefault",
                        TIME_SLICING + ".failRequestsGreaterThanOne",
                        TIME_SLICING + ".resources"));
        return known;
    }

    /** The state of one parse. */
    private static final class Reader {
        final String source;
        final Map<ConfigField<?>, Object> values = new HashMap<>();
        final List<String> ignored = new ArrayList<>();
        TimeSlicing timeSlicing = TimeSlicing.NONE;

        Reader(String source) {
            this.source = source;
        }

        String at(String path) {
            return source + ": " + path;
        }

        void section(Map<?, ?> map, String prefix) {
            List<String> children = KNOWN.stream().filter(p -> parent(p).equals(prefix)).toList();
            for (var e : map.entrySet()) {
                String key = String.valueOf(e.getKey());
                String path = prefix.isEmpty() ? key : prefix + "." + key;
                Object value = e.getValue();
                checkKnown(key, path, children);
                if (path.equals("version")) {
                    if (value != null && !"v1".equals(value)) {
                        throw new ConfigException(
                                at(path)
                                        + ": unknown version "
                                        + ConfigField.describe(value)
                                        + " (expected v1)");
                    }
                } else if (path.equals("sharing")) {
                    if (value != null) {
                        sharing(map(value, path));
                    }
                } else if (SECTIONS.contains(path)) {
                    if (value != null) {
                        section(map(value, path), path);
                    }
                } else if (IGNORED.contains(path)) {
                    ignored.add(path);
                } else if (value != null) {
                    ConfigField<?> field =
                            ConfigField.ALL.stream()
                                    .filter(f -> f.path().equals(path))
                                    .findFirst()
                                    .orElseThrow();
                    values.put(field, field.parse(value, at(path)));
                }
            }
        }

        void sharing(Map<?, ?> sharing) {
            List<String> children = List.of(TIME_SLICING, "sharing.mps");
            for (var e : sharing.entrySet()) {
                checkKnown(String.valueOf(e.getKey()), "sharing." + e.getKey(), children);
            }
            // The device plugin here implements time-slicing only; refusing MPS in the one parser
            // keeps feature
            // discovery from labelling a sharing the plugin does not advertise.
            if (sharing.get("mps") != null) {
                throw new ConfigException(
                        at("sharing.mps")
                                + ": MPS sharing is not supported by this device plugin "
                                + "(use sharing.timeSlicing)");
            }
            if (sharing.get("timeSlicing") != null) {
                timeSlicing = timeSlicing(map(sharing.get("timeSlicing"), TIME_SLICING));
            }
        }

        TimeSlicing timeSlicing(Map<?, ?> ts) {
            List<String> children =
                    KNOWN.stream().filter(p -> parent(p).equals(TIME_SLICING)).toList();
            for (Object k : ts.keySet()) {
                checkKnown(String.valueOf(k), TIME_SLICING + "." + k, children);
            }
            boolean rename = flag(ts, TIME_SLICING + ".renameByDefault");
            boolean failGt1 = flag(ts, TIME_SLICING + ".failRequestsGreaterThanOne");
            if (!(ts.get("resources") instanceof List<?> list) || list.isEmpty()) {
                throw new ConfigException(
                        at(TIME_SLICING) + ".resources: required, a non-empty list");
            }
            List<TimeSlicing.SharedResource> out = new ArrayList<>();
            Set<String> names = new HashSet<>();
            Set<String> advertised = new HashSet<>();
            for (int i = 0; i < list.size(); i++) {
                String rAt = TIME_SLICING + ".resources[" + i + "]";
                Map<?, ?> r = map(list.get(i), rAt);
                for (Object k : r.keySet()) {
                    checkKnown(
                            String.valueOf(k),
                            rAt + "." + k,
                            RESOURCE_FIELDS.stream().map(f -> rAt + "." + f).toList());
                }
                String name = resourceName(r.get("name"), at(rAt + ".name"));
                if (!names.add(name)) {
                    throw new ConfigException(
                            at(rAt + ".name") + ": resource " + name + " is listed twice");
                }
                if (!(r.get("replicas") instanceof Integer replicas)) {
                    throw new ConfigException(
                            at(rAt + ".replicas")
                                    + ": required, an integer of at least 2, got "
                                    + ConfigField.describe(r.get("replicas")));
                }
                if (replicas < 2) {
                    throw new ConfigException(
                            at(rAt + ".replicas")
                                    + ": must be at least 2, got "
                                    + replicas
                                    + " (to stop sharing, remove the resource from sharing.timeSlicing)");
                }
                String renamed =
                        r.get("rename") == null
                                ? null
                                : resourceName(r.get("rename"), at(rAt + ".rename"));
                if (r.get("devices") != null && !"all".equals(r.get("devices"))) {
                    // as upstream: every device of the resource is shared
                    ignored.add(rAt + ".devices");
                }
                TimeSlicing.SharedResource shared =
                        new TimeSlicing.SharedResource(name, replicas, renamed);
                out.add(shared);
                String adv = new TimeSlicing(rename, failGt1, List.of()).advertisedName(shared);
                if (!advertised.add(adv)) {
                    throw new ConfigException(
                            at(rAt) + ": advertised name " + adv + " is used twice");
                }
            }
            return new TimeSlicing(rename, failGt1, out);
        }

        boolean flag(Map<?, ?> map, String path) {
            Object raw = map.get(path.substring(path.lastIndexOf('.') + 1));
            return raw != null && ConfigField.bool(raw, at(path));
        }

        /**
         * Refuses a field not in {@code children}, saying where it belongs when it is known
         * elsewhere.
         */
        void checkKnown(String key, String path, List<String> children) {
            if (children.contains(path)) {
                return;
            }
            String hint =
                    KNOWN.stream()
                            .filter(p -> p.endsWith("." + key) || p.equals(key))
                            .findFirst()
                            .map(
                                    p ->
                                            "it belongs under "
                                                    + (parent(p).isEmpty()
                                                            ? "the top level"
                                                            : parent(p)))
                            .or(
                                    () ->
                                            children.stream()
                                                    .filter(c -> c.equalsIgnoreCase(path))
                                                    .findFirst()
                                                    .map(c -> "did you mean " + c + "?"))
                            .orElse(
                                    "expected "
                                            + String.join(
                                                    ", ",
                                                    children.stream()
                                                            .map(ConfigFile::last)
                                                            .toList()));
            throw new ConfigException(at(path) + ": unknown field (" + hint + ")");
        }

        /**
         * A resource name: {@code nvidia.com/} is added when no domain is given; no other domain;
         * 63 characters.
         */
        String resourceName(Object raw, String where) {
            if (!(raw instanceof String s) || s.isBlank()) {
                throw new ConfigException(
                        where
                                + ": required, a resource name like nvidia.com/gpu, got "
                                + ConfigField.describe(raw));
            }
            String full = s.contains("/") ? s.trim() : RESOURCE_DOMAIN + s.trim();
            if (full.length() > 63) {
                throw new ConfigException(where + ": '" + full + "' is longer than 63 characters");
            }
            if (!full.startsWith(RESOURCE_DOMAIN)
                    || !NAME_PART.matcher(full.substring(RESOURCE_DOMAIN.length())).matches()) {
                throw new ConfigException(
                        where
                                + ": '"
                                + full
                                + "' is not a valid resource name "
                                + "(nvidia.com/ then lower-case letters, digits, '-' and '.')");
            }
            return full;
        }

        Map<?, ?> map(Object o, String path) {
            if (o instanceof Map<?, ?> m) {
                return m;
            }
            throw new ConfigException(
                    at(path) + ": expected a map, got " + ConfigField.describe(o));
        }
    }

    private static String parent(String path) {
        int dot = path.lastIndexOf('.');
        return dot < 0 ? "" : path.substring(0, dot);
    }

    private static String last(String path) {
        return path.substring(path.lastIndexOf('.') + 1);
    }
}
