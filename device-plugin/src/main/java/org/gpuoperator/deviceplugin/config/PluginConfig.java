package org.gpuoperator.deviceplugin.config;

import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.gpuoperator.node.agent.SettingResolver;
import org.gpuoperator.node.deviceconfig.AllocationPolicy;
import org.gpuoperator.node.deviceconfig.ConfigFile;
import org.gpuoperator.node.deviceconfig.DeviceIdStrategy;
import org.gpuoperator.node.deviceconfig.DeviceListStrategy;
import org.gpuoperator.node.deviceconfig.MigStrategy;
import org.gpuoperator.node.deviceconfig.SharingConfig;

/**
 * The effective configuration of the plugin, after precedence: command line, then environment, then
 * file, then the defaults upstream uses.
 */
public record PluginConfig(
        MigStrategy migStrategy,
        boolean failOnInitError,
        String driverRoot,
        String devRoot,
        boolean gdrcopyEnabled,
        boolean gdsEnabled,
        boolean mofedEnabled,
        boolean passDeviceSpecs,
        List<DeviceListStrategy> deviceListStrategies,
        DeviceIdStrategy deviceIdStrategy,
        String cdiAnnotationPrefix,
        AllocationPolicy allocationPolicy,
        String mpsRoot,
        SharingConfig sharing) {

    public PluginConfig {
        deviceListStrategies = List.copyOf(deviceListStrategies);
    }

    /** Upstream's defaults, no sharing. */
    public static PluginConfig defaults() {
        return resolve(Map.of(), Map.of(), ConfigFile.empty());
    }

    /**
     * Resolves every flag with the kit's {@link SettingResolver}: the command line wins over the
     * environment (a blank variable counts as unset), which wins over the file. Errors name the
     * flag, the variable or the file's field.
     *
     * @param cli raw values given on the command line (absent: not given)
     * @param env the process environment (only the variables named by {@link Flag#envName()} are
     *     read)
     * @param file the parsed config file, or {@link ConfigFile#empty()}
     */
    public static PluginConfig resolve(
            Map<Flag, String> cli, Map<String, String> env, ConfigFile file) {
        SettingResolver settings = file.resolver(env);
        Map<Flag, Object> v = new EnumMap<>(Flag.class);
        for (Flag f : Flag.values()) {
            v.put(
                    f,
                    settings.resolve(
                                    f.cliName(), cli.get(f), List.of(f.envName()), f.field().path())
                            .map(s -> s.as(f::parse))
                            .orElse(f.defaultValue()));
        }
        String driverRoot = (String) v.get(Flag.DRIVER_ROOT);
        String devRoot = v.get(Flag.DEV_ROOT) == null ? driverRoot : (String) v.get(Flag.DEV_ROOT);
        @SuppressWarnings("unchecked")
        List<DeviceListStrategy> strategies =
                (List<DeviceListStrategy>) v.get(Flag.DEVICE_LIST_STRATEGY);
        return new PluginConfig(
                (MigStrategy) v.get(Flag.MIG_STRATEGY),
                (boolean) v.get(Flag.FAIL_ON_INIT_ERROR),
                driverRoot,
                devRoot,
                (boolean) v.get(Flag.GDRCOPY_ENABLED),
                (boolean) v.get(Flag.GDS_ENABLED),
                (boolean) v.get(Flag.MOFED_ENABLED),
                (boolean) v.get(Flag.PASS_DEVICE_SPECS),
                strategies,
                (DeviceIdStrategy) v.get(Flag.DEVICE_ID_STRATEGY),
                (String) v.get(Flag.CDI_ANNOTATION_PREFIX),
                (AllocationPolicy) v.get(Flag.SHARED_DEVICES_ALLOCATION_POLICY),
                (String) v.get(Flag.MPS_ROOT),
                file.sharing());
    }

    public boolean uses(DeviceListStrategy s) {
        return deviceListStrategies.contains(s);
    }
}
