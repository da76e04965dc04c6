package org.gpuoperator.deviceplugin.resources;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One extended resource served on its own socket and registered on its own, e.g. {@code
 * nvidia.com/gpu} on {@code nvidia-gpu.sock} or {@code nvidia.com/mig-1g.5gb} on {@code
 * nvidia-mig-1g.5gb.sock}.
 *
 * @param name the resource name
 * @param devices the advertised devices, in a stable order
 * @param replicas how many times each physical device is advertised (1: not shared)
 * @param failRequestsGreaterThanOne refuse requests for more than one replica of a shared resource
 */
public record Resource(
        String name, List<PluginDevice> devices, int replicas, boolean failRequestsGreaterThanOne) {

    public Resource {
        devices = List.copyOf(devices);
    }

    /** {@code nvidia-<name after the domain>.sock}, as upstream names its sockets. */
    public String socketName() {
        return socketName(name);
    }

    public static String socketName(String resourceName) {
        return "nvidia-" + resourceName.substring(resourceName.indexOf('/') + 1) + ".sock";
    }

    public boolean shared() {
        return replicas > 1;
    }

    /** Devices by advertised ID. */
    public Map<String, PluginDevice> byId() {
        Map<String, PluginDevice> m = new LinkedHashMap<>();
        devices.forEach(d -> m.put(d.id(), d));
        return m;
    }
}
