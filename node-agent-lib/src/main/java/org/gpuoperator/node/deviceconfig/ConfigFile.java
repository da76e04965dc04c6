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
 * imex}, ...) are accepted and listed in {@link #ignored()}. Any other unknown field is an error
 * naming it: upstream's decoder drops it silently, which hides a misplaced setting (upstream issue
 * #1433).
 *
 * @param source the file, for messages
 * @param values the value fields present in the file, checked
 * @param sharing {@code sharing.timeSlicing} or {@code sharing.mps}, checked
 * @param ignored dotted paths of accepted fields that have no effect
 */
public record ConfigFile(
        String source,
        Map<ConfigField<?>, Object> values,
        SharingConfig sharing,
        List<String> ignored) {

    public static final String RESOURCE_DOMAIN = "nvidia.com/";
    private static final String WHOLE_GPU = RESOURCE_DOMAIN + "gpu";

    private static final Pattern NAME_PART = Pattern.compile("[a-z0-9]([-a-z0-9.]*[a-z0-9])?");
    private static final String TIME_SLICING = "sharing.timeSlicing";
    private static final String MPS = "sharing.mps";
    private static final List<String> SHARING_FIELDS =
            List.of("renameByDefault", "failRequestsGreaterThanOne", "resources");
    private static final Set<String> SECTIONS =
            Set.of("flags", "flags.plugin", "flags.gfd", "sharing");
    private static final Set<String> IGNORED =
            Set.of(
                    "resources",
                    "imex",
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
        return new ConfigFile(source, Map.of(), SharingConfig.NONE, List.of());
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
        return new ConfigFile(source, r.values, r.sharing, r.ignored);
    }

    private static Set<String> known() {
        Set<String> known =
                new LinkedHashSet<>(List.of("version", "flags", "resources", "sharing", "imex"));
        ConfigField.ALL.forEach(f -> known.add(f.path()));
        known.addAll(SECTIONS);
        known.addAll(IGNORED);
        for (String section : List.of(TIME_SLICING, MPS)) {
            known.add(section);
            SHARING_FIELDS.forEach(f -> known.add(section + "." + f));
        }
        return known;
    }

    /** The state of one parse. */
    private static final class Reader {
        final String source;
        final Map<ConfigField<?>, Object> values = new HashMap<>();
        final List<String> ignored = new ArrayList<>();
        SharingConfig sharing = SharingConfig.NONE;

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

        void sharing(Map<?, ?> map) {
            List<String> children = List.of(TIME_SLICING, MPS);
            for (var e : map.entrySet()) {
                checkKnown(String.valueOf(e.getKey()), "sharing." + e.getKey(), children);
            }
            Object ts = map.get("timeSlicing");
            Object mps = map.get("mps");
            if (ts != null && mps != null) {
                // as upstream: one strategy for every GPU of the node
                throw new ConfigException(
                        at("sharing")
                                + ": timeSlicing and mps are mutually exclusive (set one of them)");
            }
            if (ts != null) {
                sharing =
                        shared(
                                map(ts, TIME_SLICING),
                                TIME_SLICING,
                                SharingConfig.Strategy.TIME_SLICING);
            } else if (mps != null) {
                sharing = shared(map(mps, MPS), MPS, SharingConfig.Strategy.MPS);
            }
        }

        /**
         * One sharing section. MPS as upstream: {@code failRequestsGreaterThanOne} defaults to
         * true, and only whole GPUs ({@code nvidia.com/gpu}) can be shared.
         */
        SharingConfig shared(Map<?, ?> ts, String section, SharingConfig.Strategy strategy) {
            boolean isMps = strategy == SharingConfig.Strategy.MPS;
            List<String> children = SHARING_FIELDS.stream().map(f -> section + "." + f).toList();
            for (Object k : ts.keySet()) {
                checkKnown(String.valueOf(k), section + "." + k, children);
            }
            boolean rename = flag(ts, section + ".renameByDefault", false);
            boolean failGt1 = flag(ts, section + ".failRequestsGreaterThanOne", isMps);
            if (!(ts.get("resources") instanceof List<?> list) || list.isEmpty()) {
                throw new ConfigException(at(section) + ".resources: required, a non-empty list");
            }
            List<SharingConfig.SharedResource> out = new ArrayList<>();
            Set<String> names = new HashSet<>();
            Set<String> advertised = new HashSet<>();
            for (int i = 0; i < list.size(); i++) {
                String rAt = section + ".resources[" + i + "]";
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
                if (isMps && !name.equals(WHOLE_GPU)) {
                    throw new ConfigException(
                            at(rAt + ".name")
                                    + ": MPS shares whole GPUs only ("
                                    + WHOLE_GPU
                                    + "), got "
                                    + name
                                    + " (share MIG devices with sharing.timeSlicing)");
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
                                    + " (to stop sharing, remove the resource from "
                                    + section
                                    + ")");
                }
                String renamed =
                        r.get("rename") == null
                                ? null
                                : resourceName(r.get("rename"), at(rAt + ".rename"));
                if (r.get("devices") != null && !"all".equals(r.get("devices"))) {
                    // as upstream: every device of the resource is shared
                    ignored.add(rAt + ".devices");
                }
                SharingConfig.SharedResource shared =
                        new SharingConfig.SharedResource(name, replicas, renamed);
                out.add(shared);
                String adv =
                        new SharingConfig(strategy, rename, failGt1, List.of())
                                .advertisedName(shared);
                if (!advertised.add(adv)) {
                    throw new ConfigException(
                            at(rAt) + ": advertised name " + adv + " is used twice");
                }
            }
            return new SharingConfig(strategy, rename, failGt1, out);
        }

        boolean flag(Map<?, ?> map, String path, boolean absent) {
            Object raw = map.get(path.substring(path.lastIndexOf('.') + 1));
            return raw == null ? absent : ConfigField.bool(raw, at(path));
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
