package org.gpuoperator.gfd.config;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import java.util.regex.Pattern;
import org.gpuoperator.gfd.labels.MigStrategy;
import org.gpuoperator.gfd.labels.Sharing;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.error.YAMLException;

/**
 * The parts of the device plugin's config file ({@code version: v1}, YAML or JSON) that feature discovery reads: the
 * MIG strategy, the {@code flags.gfd} settings, {@code flags.useNodeFeatureAPI} and the {@code sharing} section. The
 * same file configures the device plugin, so sharing labels always agree with what the plugin advertises.
 *
 * <p>Validation follows the device plugin: a resource needs a name and at least 2 replicas; the {@code nvidia.com/}
 * prefix is added to bare names; {@code rename} and {@code devices} are ignored as upstream ignores them.
 */
public record DevicePluginConfig(
        Optional<MigStrategy> migStrategy,
        Optional<Boolean> useNodeFeatureApi,
        Optional<Boolean> oneshot,
        Optional<Boolean> noTimestamp,
        Optional<SleepInterval> sleepInterval,
        Optional<String> outputFile,
        Optional<String> machineTypeFile,
        Sharing sharing) {

    public static final DevicePluginConfig EMPTY = new DevicePluginConfig(Optional.empty(), Optional.empty(),
            Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(), Optional.empty(), Sharing.NONE);

    private static final Pattern DNS_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9.]*[a-z0-9])?");
    private static final Set<String> TOP_KEYS = Set.of("version", "flags", "resources", "sharing", "imex");
    private static final Set<String> SHARING_KEYS = Set.of("timeSlicing", "mps");
    private static final Set<String> REPLICATED_KEYS = Set.of("renameByDefault", "failRequestsGreaterThanOne",
            "resources");

    /** Reads and validates {@code file}; unknown keys at the levels GFD reads are reported to {@code warnings}. */
    public static DevicePluginConfig load(Path file, Consumer<String> warnings) {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new ConfigFileException(file, "cannot read: " + e.getMessage());
        }
        return parse(file, text, warnings);
    }

    /** Parses {@code text}; {@code file} names the source in errors. */
    public static DevicePluginConfig parse(Path file, String text, Consumer<String> warnings) {
        Object root;
        try {
            root = new Yaml(new SafeConstructor(new LoaderOptions())).load(text);
        } catch (YAMLException e) {
            throw new ConfigFileException(file, "not valid YAML/JSON: " + e.getMessage().replace('\n', ' '));
        }
        if (root == null) {
            return EMPTY;
        }
        Fields top = new Fields(file, "", asMap(file, "(document)", root));
        top.warnUnknown(TOP_KEYS, warnings);
        Optional<String> version = top.string("version");
        if (version.isPresent() && !version.get().equals("v1")) {
            throw new ConfigFileException(file, "field version: unknown version '" + version.get() + "', expected v1");
        }
        Fields flags = top.object("flags");
        Fields gfd = flags.object("gfd");
        Optional<MigStrategy> mig = flags.string("migStrategy")
                .map(v -> wrap(file, () -> MigStrategy.parse(v, "field flags.migStrategy")));
        Optional<SleepInterval> sleep = gfd.string("sleepInterval")
                .map(v -> wrap(file, () -> SleepInterval.parse(v, "field flags.gfd.sleepInterval")));
        if (top.has("resources")) {
            warnings.accept(file + ": field resources is ignored (custom resource names are not supported, as upstream)");
        }
        return new DevicePluginConfig(mig, flags.bool("useNodeFeatureAPI"), gfd.bool("oneshot"),
                gfd.bool("noTimestamp"), sleep, gfd.string("outputFile"), gfd.string("machineTypeFile"),
                sharing(file, top.object("sharing"), warnings));
    }

    /** MPS wins when it replicates anything, then time-slicing; the active section's replicas are kept. */
    private static Sharing sharing(Path file, Fields sharing, Consumer<String> warnings) {
        sharing.warnUnknown(SHARING_KEYS, warnings);
        Optional<Replicated> timeSlicing = sharing.has("timeSlicing")
                ? Optional.of(replicated(file, sharing.object("timeSlicing"), warnings)) : Optional.empty();
        Optional<Replicated> mps = sharing.has("mps")
                ? Optional.of(replicated(file, sharing.object("mps"), warnings)) : Optional.empty();
        Sharing.Strategy strategy = mps.filter(Replicated::replicates).isPresent() ? Sharing.Strategy.MPS
                : timeSlicing.filter(Replicated::replicates).isPresent() ? Sharing.Strategy.TIME_SLICING
                : Sharing.Strategy.NONE;
        // As upstream: the MPS section is the active one whenever it is present.
        Replicated active = mps.or(() -> timeSlicing).orElse(new Replicated(false, Map.of()));
        return new Sharing(strategy, active.renameByDefault(), active.replicas());
    }

    private record Replicated(boolean renameByDefault, Map<String, Integer> replicas) {
        boolean replicates() {
            return replicas.values().stream().anyMatch(n -> n > 1);
        }
    }

    private static Replicated replicated(Path file, Fields section, Consumer<String> warnings) {
        section.warnUnknown(REPLICATED_KEYS, warnings);
        List<Object> resources = section.list("resources");
        if (resources.isEmpty()) {
            throw new ConfigFileException(file, "field " + section.path("resources") + ": no resources specified");
        }
        Map<String, Integer> replicas = new LinkedHashMap<>();
        for (int i = 0; i < resources.size(); i++) {
            String at = section.path("resources") + "[" + i + "]";
            Fields r = new Fields(file, at, asMap(file, at, resources.get(i)));
            String name = r.string("name").filter(s -> !s.isBlank())
                    .orElseThrow(() -> new ConfigFileException(file, "field " + at + ".name: no resource name specified"));
            String qualified = qualify(file, at + ".name", name);
            int n = r.integer("replicas")
                    .orElseThrow(() -> new ConfigFileException(file, "field " + at + ".replicas: no replicas specified"));
            if (n < 2) {
                throw new ConfigFileException(file, "field " + at + ".replicas: number of replicas must be >= 2, got " + n);
            }
            if (r.has("devices") && !"all".equals(String.valueOf(r.raw("devices")))) {
                warnings.accept(file + ": field " + at + ".devices is ignored; all devices are shared (as upstream)");
            }
            if (replicas.put(qualified, n) != null) {
                throw new ConfigFileException(file, "field " + at + ".name: resource " + qualified + " listed twice");
            }
        }
        return new Replicated(section.bool("renameByDefault").orElse(false), replicas);
    }

    /** Adds the {@code nvidia.com/} prefix to a bare name and checks the result is a valid resource name. */
    private static String qualify(Path file, String at, String name) {
        String qualified = name.contains("/") ? name : "nvidia.com/" + name;
        String local = qualified.substring(qualified.indexOf('/') + 1);
        if (!qualified.startsWith("nvidia.com/") || qualified.length() > 63 || !DNS_LABEL.matcher(local).matches()) {
            throw new ConfigFileException(file, "field " + at + ": invalid resource name '" + name
                    + "' (expected nvidia.com/<name>, at most 63 characters, lower-case DNS subdomain characters)");
        }
        return qualified;
    }

    private static <T> T wrap(Path file, java.util.function.Supplier<T> parse) {
        try {
            return parse.get();
        } catch (IllegalArgumentException e) {
            throw new ConfigFileException(file, e.getMessage());
        }
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> asMap(Path file, String at, Object value) {
        if (value instanceof Map<?, ?> m) {
            return (Map<String, Object>) m;
        }
        throw new ConfigFileException(file, "field " + at + ": expected an object, got " + describe(value));
    }

    private static String describe(Object v) {
        return v == null ? "nothing" : v instanceof List<?> ? "a list" : "'" + v + "'";
    }

    /** Typed access to one object of the document, with its path for errors. */
    private record Fields(Path file, String prefix, Map<String, Object> map) {

        String path(String key) {
            return prefix.isEmpty() ? key : prefix + "." + key;
        }

        boolean has(String key) {
            return map.get(key) != null;
        }

        Object raw(String key) {
            return map.get(key);
        }

        Fields object(String key) {
            Object v = map.get(key);
            return new Fields(file, path(key), v == null ? Map.of() : asMap(file, path(key), v));
        }

        Optional<String> string(String key) {
            Object v = map.get(key);
            if (v == null) {
                return Optional.empty();
            }
            if (v instanceof Map || v instanceof List) {
                throw new ConfigFileException(file, "field " + path(key) + ": expected a string, got " + describe(v));
            }
            return Optional.of(String.valueOf(v));
        }

        Optional<Boolean> bool(String key) {
            Object v = map.get(key);
            if (v == null) {
                return Optional.empty();
            }
            if (v instanceof Boolean b) {
                return Optional.of(b);
            }
            throw new ConfigFileException(file, "field " + path(key) + ": expected true or false, got " + describe(v));
        }

        Optional<Integer> integer(String key) {
            Object v = map.get(key);
            if (v == null) {
                return Optional.empty();
            }
            if (v instanceof Integer i) {
                return Optional.of(i);
            }
            throw new ConfigFileException(file, "field " + path(key) + ": expected an integer, got " + describe(v));
        }

        List<Object> list(String key) {
            Object v = map.get(key);
            if (v == null) {
                return List.of();
            }
            if (v instanceof List<?> l) {
                return new ArrayList<>(l);
            }
            throw new ConfigFileException(file, "field " + path(key) + ": expected a list, got " + describe(v));
        }

        void warnUnknown(Set<String> known, Consumer<String> warnings) {
            for (String k : map.keySet()) {
                if (!known.contains(k)) {
                    warnings.accept(file + ": field " + path(k) + " is not a known field here and is ignored");
                }
            }
        }
    }
}
