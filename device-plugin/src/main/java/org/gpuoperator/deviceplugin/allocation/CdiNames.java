package org.gpuoperator.deviceplugin.allocation;

import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.SequencedSet;
import java.util.UUID;
import org.gpuoperator.deviceplugin.resources.PluginDevice;
import org.gpuoperator.node.deviceconfig.DeviceIdStrategy;

/**
 * The names the {@code cdi-cri} and {@code cdi-annotations} strategies give the runtime: exactly
 * the device names of the toolkit's CDI spec ({@code /var/run/cdi/nvidia.yaml}, kind {@value
 * #KIND}), which lists every GPU by index and by UUID and every MIG device by {@code
 * <gpuIndex>:<slot>} and by MIG UUID (a GPU in MIG mode has no whole-GPU device). Pure functions,
 * so a test can resolve each name against a generated spec.
 */
public final class CdiNames {

    /** The kind of the toolkit's spec. */
    public static final String KIND = "nvidia.com/gpu";

    /** The plugin name in the annotation key, as upstream's device plugin writes it. */
    public static final String PLUGIN_NAME = "nvidia-device-plugin";

    private CdiNames() {}

    /**
     * The spec's name for one device: its UUID ({@code GPU-...}, {@code MIG-...}), or with {@code
     * index} its index ({@code 3}, {@code 3:1}). A replica is named as its physical device.
     */
    public static String deviceName(PluginDevice device, DeviceIdStrategy ids) {
        return ids == DeviceIdStrategy.INDEX ? device.index() : device.uuid();
    }

    /**
     * The device names of the devices, in request order, each physical device once (replicas of one
     * GPU collapse).
     */
    public static SequencedSet<String> deviceNames(
            Collection<PluginDevice> devices, DeviceIdStrategy ids) {
        SequencedSet<String> names = new LinkedHashSet<>();
        devices.forEach(d -> names.add(deviceName(d, ids)));
        return names;
    }

    /**
     * The fully qualified CDI names ({@code nvidia.com/gpu=<device>}) an Allocate response carries
     * for these devices, in {@code cdi_devices} and in the annotation's value alike.
     */
    public static List<String> forDevices(Collection<PluginDevice> devices, DeviceIdStrategy ids) {
        return deviceNames(devices, ids).stream().map(CdiNames::qualified).toList();
    }

    /** {@code nvidia.com/gpu=<device>}. */
    public static String qualified(String deviceName) {
        return KIND + "=" + deviceName;
    }

    /**
     * {@code <prefix>nvidia-device-plugin_<id>}: one key per container, the form the CDI annotation
     * reader of the {@code nvidia} runtime accepts. The ID is derived from the resource and the
     * device names, so a retried Allocate gives the same answer.
     */
    public static String annotationKey(
            String prefix, String resourceName, Collection<String> deviceNames) {
        UUID id =
                UUID.nameUUIDFromBytes(
                        (resourceName + "|" + String.join(",", deviceNames))
                                .getBytes(StandardCharsets.UTF_8));
        return prefix + PLUGIN_NAME + "_" + id;
    }
}
