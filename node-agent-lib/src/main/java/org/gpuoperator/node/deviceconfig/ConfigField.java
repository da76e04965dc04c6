package org.gpuoperator.node.deviceconfig;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Function;

/**
 * A field of a v1 config file that holds a value (not a section), and how that value is checked.
 * Agents check the same setting from their command line or environment with {@link #parse}, so a
 * value means the same wherever it is given. Only booleans differ: the file takes YAML booleans, as
 * upstream's decoder does; flag syntax is each agent's.
 *
 * @param <T> the parsed value
 */
public final class ConfigField<T> {

    /**
     * Checks a raw value (a YAML scalar or list, or a string); {@code where} names its source in
     * the error.
     */
    @FunctionalInterface
    private interface Parser<T> {
        T parse(Object raw, String where);
    }

    public static final ConfigField<MigStrategy> MIG_STRATEGY =
            new ConfigField<>(
                    "flags.migStrategy",
                    (raw, where) -> oneOf(raw, where, MigStrategy.values(), MigStrategy::value));
    public static final ConfigField<Boolean> FAIL_ON_INIT_ERROR = bool("flags.failOnInitError");
    public static final ConfigField<String> NVIDIA_DRIVER_ROOT = path("flags.nvidiaDriverRoot");
    public static final ConfigField<String> NVIDIA_DEV_ROOT = path("flags.nvidiaDevRoot");

    /** Host directory of the MPS control daemon's pipes, logs and shm (sharing.mps). */
    public static final ConfigField<String> MPS_ROOT = path("flags.mpsRoot");

    public static final ConfigField<Boolean> GDRCOPY_ENABLED = bool("flags.gdrcopyEnabled");
    public static final ConfigField<Boolean> GDS_ENABLED = bool("flags.gdsEnabled");
    public static final ConfigField<Boolean> MOFED_ENABLED = bool("flags.mofedEnabled");
    public static final ConfigField<Boolean> USE_NODE_FEATURE_API = bool("flags.useNodeFeatureAPI");
    public static final ConfigField<Boolean> PASS_DEVICE_SPECS =
            bool("flags.plugin.passDeviceSpecs");
    public static final ConfigField<List<DeviceListStrategy>> DEVICE_LIST_STRATEGY =
            new ConfigField<>("flags.plugin.deviceListStrategy", ConfigField::strategies);
    public static final ConfigField<DeviceIdStrategy> DEVICE_ID_STRATEGY =
            new ConfigField<>(
                    "flags.plugin.deviceIDStrategy",
                    (raw, where) ->
                            oneOf(raw, where, DeviceIdStrategy.values(), DeviceIdStrategy::value));
    public static final ConfigField<String> CDI_ANNOTATION_PREFIX =
            new ConfigField<>("flags.plugin.cdiAnnotationPrefix", ConfigField::annotationPrefix);
    public static final ConfigField<AllocationPolicy> SHARED_DEVICES_ALLOCATION_POLICY =
            new ConfigField<>(
                    "flags.plugin.sharedDevicesAllocationPolicy",
                    (raw, where) ->
                            oneOf(raw, where, AllocationPolicy.values(), AllocationPolicy::value));
    public static final ConfigField<Boolean> GFD_ONESHOT = bool("flags.gfd.oneshot");
    public static final ConfigField<Boolean> GFD_NO_TIMESTAMP = bool("flags.gfd.noTimestamp");
    public static final ConfigField<SleepInterval> GFD_SLEEP_INTERVAL =
            new ConfigField<>(
                    "flags.gfd.sleepInterval",
                    (raw, where) -> SleepInterval.parse(string(raw, where), where));

    /** May be empty: feature discovery then writes to standard output. */
    public static final ConfigField<String> GFD_OUTPUT_FILE =
            new ConfigField<>("flags.gfd.outputFile", ConfigField::string);

    public static final ConfigField<String> GFD_MACHINE_TYPE_FILE =
            new ConfigField<>("flags.gfd.machineTypeFile", ConfigField::string);

    /** Every value field, in upstream's order. */
    public static final List<ConfigField<?>> ALL =
            List.of(
                    MIG_STRATEGY,
                    FAIL_ON_INIT_ERROR,
                    NVIDIA_DRIVER_ROOT,
                    NVIDIA_DEV_ROOT,
                    MPS_ROOT,
                    GDRCOPY_ENABLED,
                    GDS_ENABLED,
                    MOFED_ENABLED,
                    USE_NODE_FEATURE_API,
                    PASS_DEVICE_SPECS,
                    DEVICE_LIST_STRATEGY,
                    DEVICE_ID_STRATEGY,
                    CDI_ANNOTATION_PREFIX,
                    SHARED_DEVICES_ALLOCATION_POLICY,
                    GFD_ONESHOT,
                    GFD_NO_TIMESTAMP,
                    GFD_SLEEP_INTERVAL,
                    GFD_OUTPUT_FILE,
                    GFD_MACHINE_TYPE_FILE);

    private final String path;
    private final Parser<T> parser;
    private final boolean isBoolean;

    private ConfigField(String path, Parser<T> parser) {
        this(path, parser, false);
    }

    private ConfigField(String path, Parser<T> parser, boolean isBoolean) {
        this.path = path;
        this.parser = parser;
        this.isBoolean = isBoolean;
    }

    /** Dotted path of the field in the file, e.g. {@code flags.plugin.deviceIDStrategy}. */
    public String path() {
        return path;
    }

    /**
     * Whether the value is a boolean, whose flag and environment syntax each agent parses itself.
     */
    public boolean isBoolean() {
        return isBoolean;
    }

    /** Checks {@code raw}; the error starts with {@code where}. */
    public T parse(Object raw, String where) {
        return parser.parse(raw, where);
    }

    @Override
    public String toString() {
        return path;
    }

    private static ConfigField<Boolean> bool(String path) {
        return new ConfigField<>(path, ConfigField::bool, true);
    }

    private static ConfigField<String> path(String path) {
        return new ConfigField<>(path, ConfigField::absolutePath);
    }

    static boolean bool(Object raw, String where) {
        if (raw instanceof Boolean b) {
            return b;
        }
        throw new ConfigException(where + ": expected true or false, got " + describe(raw));
    }

    private static String string(Object raw, String where) {
        if (raw instanceof String s) {
            return s.trim();
        }
        throw new ConfigException(where + ": expected a string, got " + describe(raw));
    }

    private static String nonEmptyString(Object raw, String where) {
        if (raw instanceof String s && !s.isBlank()) {
            return s.trim();
        }
        throw new ConfigException(where + ": expected a non-empty string, got " + describe(raw));
    }

    private static String absolutePath(Object raw, String where) {
        String s = nonEmptyString(raw, where);
        if (!s.startsWith("/")) {
            throw new ConfigException(where + ": must be an absolute path, got '" + s + "'");
        }
        return s;
    }

    private static String annotationPrefix(Object raw, String where) {
        String s = nonEmptyString(raw, where);
        if (!s.endsWith("/")) {
            throw new ConfigException(
                    where
                            + ": CDI annotation prefix '"
                            + s
                            + "' must end with '/' (e.g. cdi.k8s.io/)");
        }
        return s;
    }

    private static <E> E oneOf(Object raw, String where, E[] values, Function<E, String> name) {
        if (raw instanceof String s) {
            for (E e : values) {
                if (name.apply(e).equals(s.trim())) {
                    return e;
                }
            }
        }
        List<String> names = new ArrayList<>();
        for (E e : values) {
            names.add(name.apply(e));
        }
        throw new ConfigException(
                where + ": expected one of " + String.join(", ", names) + ", got " + describe(raw));
    }

    /** A comma-separated string (flags, environment) or a list (file), as upstream takes both. */
    private static List<DeviceListStrategy> strategies(Object raw, String where) {
        List<String> items = new ArrayList<>();
        if (raw instanceof String s) {
            for (String part : s.split(",")) {
                items.add(part.trim());
            }
        } else if (raw instanceof List<?> list) {
            for (Object o : list) {
                if (!(o instanceof String str)) {
                    throw new ConfigException(
                            where + ": expected strategy names, got " + describe(o));
                }
                items.add(str.trim());
            }
        } else {
            throw new ConfigException(
                    where + ": expected a strategy name or a list of them, got " + describe(raw));
        }
        List<DeviceListStrategy> out = new ArrayList<>();
        for (String item : items) {
            DeviceListStrategy d = DeviceListStrategy.parse(item);
            if (d == null) {
                throw new ConfigException(
                        where
                                + ": unknown device list strategy '"
                                + item
                                + "' (expected envvar, volume-mounts, cdi-annotations or cdi-cri)");
            }
            if (!out.contains(d)) {
                out.add(d);
            }
        }
        if (out.isEmpty()) {
            throw new ConfigException(where + ": at least one device list strategy is required");
        }
        return List.copyOf(out);
    }

    /** A value as an error shows it: {@code 'text'}, {@code nothing}, or the value and its type. */
    static String describe(Object raw) {
        if (raw == null) {
            return "nothing";
        }
        if (raw instanceof String s) {
            return "'" + s + "'";
        }
        return raw + " (" + raw.getClass().getSimpleName().toLowerCase(Locale.ROOT) + ")";
    }
}
