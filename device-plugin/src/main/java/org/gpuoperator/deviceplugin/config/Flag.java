package org.gpuoperator.deviceplugin.config;

import java.util.List;
import java.util.Locale;
import org.gpuoperator.deviceplugin.mps.MpsPaths;
import org.gpuoperator.node.deviceconfig.AllocationPolicy;
import org.gpuoperator.node.deviceconfig.ConfigException;
import org.gpuoperator.node.deviceconfig.ConfigField;
import org.gpuoperator.node.deviceconfig.DeviceIdStrategy;
import org.gpuoperator.node.deviceconfig.DeviceListStrategy;
import org.gpuoperator.node.deviceconfig.MigStrategy;

/**
 * One setting that can come from the command line, the environment or the config file, with the
 * names upstream users know for each. The value is resolved in that order of precedence by {@link
 * PluginConfig#resolve}.
 */
public enum Flag {
    MIG_STRATEGY("--mig-strategy", "MIG_STRATEGY", ConfigField.MIG_STRATEGY, MigStrategy.NONE),
    FAIL_ON_INIT_ERROR(
            "--fail-on-init-error", "FAIL_ON_INIT_ERROR", ConfigField.FAIL_ON_INIT_ERROR, true),
    DRIVER_ROOT("--driver-root", "NVIDIA_DRIVER_ROOT", ConfigField.NVIDIA_DRIVER_ROOT, "/"),
    /** Defaults to the driver root when unset anywhere. */
    DEV_ROOT("--dev-root", "NVIDIA_DEV_ROOT", ConfigField.NVIDIA_DEV_ROOT, null),
    GDRCOPY_ENABLED("--gdrcopy-enabled", "GDRCOPY_ENABLED", ConfigField.GDRCOPY_ENABLED, false),
    GDS_ENABLED("--gds-enabled", "GDS_ENABLED", ConfigField.GDS_ENABLED, false),
    MOFED_ENABLED("--mofed-enabled", "MOFED_ENABLED", ConfigField.MOFED_ENABLED, false),
    PASS_DEVICE_SPECS(
            "--pass-device-specs", "PASS_DEVICE_SPECS", ConfigField.PASS_DEVICE_SPECS, false),
    DEVICE_LIST_STRATEGY(
            "--device-list-strategy",
            "DEVICE_LIST_STRATEGY",
            ConfigField.DEVICE_LIST_STRATEGY,
            List.of(DeviceListStrategy.ENVVAR)),
    DEVICE_ID_STRATEGY(
            "--device-id-strategy",
            "DEVICE_ID_STRATEGY",
            ConfigField.DEVICE_ID_STRATEGY,
            DeviceIdStrategy.UUID),
    CDI_ANNOTATION_PREFIX(
            "--cdi-annotation-prefix",
            "CDI_ANNOTATION_PREFIX",
            ConfigField.CDI_ANNOTATION_PREFIX,
            "cdi.k8s.io/"),
    SHARED_DEVICES_ALLOCATION_POLICY(
            "--shared-devices-allocation-policy",
            "SHARED_DEVICES_ALLOCATION_POLICY",
            ConfigField.SHARED_DEVICES_ALLOCATION_POLICY,
            AllocationPolicy.DISTRIBUTED),
    /** Upstream requires it for MPS; its Helm chart and the operator give this value. */
    MPS_ROOT("--mps-root", "MPS_ROOT", ConfigField.MPS_ROOT, MpsPaths.DEFAULT_ROOT);

    private final String cliName;
    private final String envName;
    private final ConfigField<?> field;
    private final Object defaultValue;

    Flag(String cliName, String envName, ConfigField<?> field, Object defaultValue) {
        this.cliName = cliName;
        this.envName = envName;
        this.field = field;
        this.defaultValue = defaultValue;
    }

    public String cliName() {
        return cliName;
    }

    public String envName() {
        return envName;
    }

    /** The field of a v1 config file that sets it. */
    public ConfigField<?> field() {
        return field;
    }

    Object defaultValue() {
        return defaultValue;
    }

    /**
     * Parses a value from the command line or the environment, checked as the file's value is,
     * except booleans, which take this plugin's flag syntax. {@code where} names the flag or the
     * variable in the error.
     */
    Object parse(String raw, String where) {
        return field.isBoolean() ? parseBool(raw, where) : field.parse(raw, where);
    }

    private static boolean parseBool(String raw, String where) {
        return switch (raw.trim().toLowerCase(Locale.ROOT)) {
            case "true", "1", "yes" -> true;
            case "false", "0", "no" -> false;
            default ->
                    throw new ConfigException(
                            where + ": expected true or false, got '" + raw + "'");
        };
    }
}
