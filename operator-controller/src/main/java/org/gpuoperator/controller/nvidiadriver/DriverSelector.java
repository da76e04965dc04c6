package org.gpuoperator.controller.nvidiadriver;

import java.util.Map;
import org.gpuoperator.api.v1alpha1.NVIDIADriver;

/**
 * Which GPU nodes one NVIDIADriver asks for: its nodeSelector, or (default) the GPU nodes no other
 * NVIDIADriver selects. A non-default driver with an empty nodeSelector selects every GPU node, as
 * an empty Kubernetes nodeSelector does. A nodeSelector naming the reserved owner label ({@link
 * DriverPools#OWNER_LABEL}, which the operator writes from this very assignment) is frozen: it
 * selects no node and keeps the nodes it has.
 */
public record DriverSelector(
        String name, boolean isDefault, Map<String, String> nodeSelector, boolean frozen) {

    public DriverSelector {
        nodeSelector = nodeSelector == null ? Map.of() : Map.copyOf(nodeSelector);
    }

    public DriverSelector(String name, boolean isDefault, Map<String, String> nodeSelector) {
        this(
                name,
                isDefault,
                nodeSelector,
                nodeSelector != null && nodeSelector.containsKey(DriverPools.OWNER_LABEL));
    }

    public static DriverSelector of(NVIDIADriver driver) {
        var spec = driver.getSpec();
        return new DriverSelector(
                driver.getMetadata().getName(),
                spec != null && Boolean.TRUE.equals(spec.getDefaultDriver()),
                spec == null ? null : spec.getNodeSelector());
    }

    /** Whether it takes the GPU nodes no other driver selects: default and not frozen. */
    public boolean takesDefault() {
        return isDefault && !frozen;
    }

    /**
     * Whether the node's labels contain the whole nodeSelector (a default or frozen driver selects
     * no node).
     */
    public boolean selects(Map<String, String> labels) {
        if (isDefault || frozen) {
            return false;
        }
        for (Map.Entry<String, String> e : nodeSelector.entrySet()) {
            if (!e.getValue().equals(labels.get(e.getKey()))) {
                return false;
            }
        }
        return true;
    }
}
