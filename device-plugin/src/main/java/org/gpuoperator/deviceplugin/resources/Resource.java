package org.gpuoperator.deviceplugin.resources;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.gpuoperator.deviceplugin.mps.MpsShare;

/**
 * One extended resource served on its own socket and registered on its own, e.g. {@code
 * nvidia.com/gpu} on {@code nvidia-gpu.sock} or {@code nvidia.com/mig-1g.5gb} on {@code
 * nvidia-mig-1g.5gb.sock}.
 *
 * @param name the resource name
 * @param devices the advertised devices, in a stable order
 * @param replicas how many times each physical device is advertised (1: not shared)
 * @param failRequestsGreaterThanOne refuse requests for more than one replica of a shared resource
 * @param mps the MPS limits when the replicas share through MPS, else null
 */
public record Resource(
        String name,
        List<PluginDevice> devices,
        int replicas,
        boolean failRequestsGreaterThanOne,
        MpsShare mps) {

    public Resource {
        devices = List.copyOf(devices);
    }

    /** A resource not shared through MPS. */
    public Resource(
            String name,
            List<PluginDevice> devices,
            int replicas,
            boolean failRequestsGreaterThanOne) {
        this(name, devices, replicas, failRequestsGreaterThanOne, null);
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
