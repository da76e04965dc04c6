package org.gpuoperator.deviceplugin.config;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * One setting that can come from the command line, the environment or the config file, with the names upstream
 * users know for each. The value is resolved in that order of precedence by {@link PluginConfig#resolve}.
 */
public enum Flag {
    MIG_STRATEGY("--mig-strategy", "MIG_STRATEGY", "flags.migStrategy", Kind.MIG_STRATEGY, MigStrategy.NONE),
    FAIL_ON_INIT_ERROR("--fail-on-init-error", "FAIL_ON_INIT_ERROR", "flags.failOnInitError", Kind.BOOL, true),
    DRIVER_ROOT("--driver-root", "NVIDIA_DRIVER_ROOT", "flags.nvidiaDriverRoot", Kind.PATH, "/"),
    /** Defaults to the driver root when unset anywhere. */
    DEV_ROOT("--dev-root", "NVIDIA_DEV_ROOT", "flags.nvidiaDevRoot", Kind.PATH, null),
    GDRCOPY_ENABLED("--gdrcopy-enabled", "GDRCOPY_ENABLED", "flags.gdrcopyEnabled", Kind.BOOL, false),
    GDS_ENABLED("--gds-enabled", "GDS_ENABLED", "flags.gdsEnabled", Kind.BOOL, false),
    MOFED_ENABLED("--mofed-enabled", "MOFED_ENABLED", "flags.mofedEnabled", Kind.BOOL, false),
    PASS_DEVICE_SPECS("--pass-device-specs", "PASS_DEVICE_SPECS", "flags.plugin.passDeviceSpecs", Kind.BOOL, false),
    DEVICE_LIST_STRATEGY("--device-list-strategy", "DEVICE_LIST_STRATEGY", "flags.plugin.deviceListStrategy",
            Kind.LIST_STRATEGY, List.of(DeviceListStrategy.ENVVAR)),
    DEVICE_ID_STRATEGY("--device-id-strategy", "DEVICE_ID_STRATEGY", "flags.plugin.deviceIDStrategy",
            Kind.ID_STRATEGY, DeviceIdStrategy.UUID),
    CDI_ANNOTATION_PREFIX("--cdi-annotation-prefix", "CDI_ANNOTATION_PREFIX", "flags.plugin.cdiAnnotationPrefix",
            Kind.STRING, "cdi.k8s.io/"),
    SHARED_DEVICES_ALLOCATION_POLICY("--shared-devices-allocation-policy", "SHARED_DEVICES_ALLOCATION_POLICY",
            "flags.plugin.sharedDevicesAllocationPolicy", Kind.POLICY, AllocationPolicy.DISTRIBUTED);

    enum Kind { BOOL, STRING, PATH, MIG_STRATEGY, LIST_STRATEGY, ID_STRATEGY, POLICY }

    private final String cliName;
    private final String envName;
    private final String filePath;
    private final Kind kind;
    private final Object defaultValue;

    Flag(String cliName, String envName, String filePath, Kind kind, Object defaultValue) {
        this.cliName = cliName;
        this.envName = envName;
        this.filePath = filePath;
        this.kind = kind;
        this.defaultValue = defaultValue;
    }

    public String cliName() {
        return cliName;
    }

    public String envName() {
        return envName;
    }

    /** Dotted path of the field in a v1 config file. */
    public String filePath() {
        return filePath;
    }

    Object defaultValue() {
        return defaultValue;
    }

    /**
     * Parses a raw value (a string from the command line or the environment, or a YAML scalar or list from the
     * file). {@code where} names the source in the error: the flag, the variable or the file field.
     */
    Object parse(Object raw, String where) {
        return switch (kind) {
            case BOOL -> parseBool(raw, where);
            case STRING -> nonEmptyString(raw, where);
            case PATH -> {
                String s = nonEmptyString(raw, where);
                if (!s.startsWith("/")) {
                    throw new ConfigException(where + ": must be an absolute path, got '" + s + "'");
                }
                yield s;
            }
            case MIG_STRATEGY -> oneOf(raw, where, MigStrategy.values(), MigStrategy::value);
            case ID_STRATEGY -> oneOf(raw, where, DeviceIdStrategy.values(), DeviceIdStrategy::value);
            case POLICY -> oneOf(raw, where, AllocationPolicy.values(), AllocationPolicy::value);
            case LIST_STRATEGY -> parseStrategies(raw, where);
        };
    }

    static boolean parseBool(Object raw, String where) {
        if (raw instanceof Boolean b) {
            return b;
        }
        if (raw instanceof String s) {
            switch (s.trim().toLowerCase(Locale.ROOT)) {
                case "true", "1", "yes" -> {
                    return true;
                }
                case "false", "0", "no" -> {
                    return false;
                }
                default -> { }
            }
        }
        throw new ConfigException(where + ": expected true or false, got " + describe(raw));
    }

    private static String nonEmptyString(Object raw, String where) {
        if (raw instanceof String s && !s.isBlank()) {
            return s.trim();
        }
        throw new ConfigException(where + ": expected a non-empty string, got " + describe(raw));
    }

    private static <E> E oneOf(Object raw, String where, E[] values, java.util.function.Function<E, String> name) {
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
        throw new ConfigException(where + ": expected one of " + String.join(", ", names) + ", got " + describe(raw));
    }

    private static List<DeviceListStrategy> parseStrategies(Object raw, String where) {
        List<String> items = new ArrayList<>();
        if (raw instanceof String s) {
            for (String part : s.split(",")) {
                items.add(part.trim());
            }
        } else if (raw instanceof List<?> list) {
            for (Object o : list) {
                if (!(o instanceof String str)) {
                    throw new ConfigException(where + ": expected strategy names, got " + describe(o));
                }
                items.add(str.trim());
            }
        } else {
            throw new ConfigException(where + ": expected a strategy name or a list of them, got " + describe(raw));
        }
        List<DeviceListStrategy> out = new ArrayList<>();
        for (String item : items) {
            DeviceListStrategy d = DeviceListStrategy.parse(item);
            if (d == null) {
                throw new ConfigException(where + ": unknown device list strategy '" + item
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

    static String describe(Object raw) {
        if (raw == null) {
            return "nothing";
        }
        if (raw instanceof String s) {
            return "'" + s + "'";
        }
        return raw.toString() + " (" + raw.getClass().getSimpleName().toLowerCase(Locale.ROOT) + ")";
    }
}
