package org.gpuoperator.e2e.node;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The kubelet's device manager as the pod runner sees it: a pod whose containers ask for extended
 * resources is admitted (devices chosen and allocated by their plugin) before any of its containers
 * is created, and its devices are released when the pod is torn down.
 */
public interface DeviceAdmission {

    /** The prefix of the resources this admission handles (the device plugins' resources). */
    String PREFIX = "nvidia.com/";

    /** A bind mount a device plugin asks for. */
    record HostMount(String containerPath, String hostPath, boolean readOnly) {}

    /** A device node a device plugin asks for. */
    record HostDevice(String containerPath, String hostPath, String permissions) {}

    /**
     * What one container got at admission: the plugin's ContainerAllocateResponse, all resources
     * merged.
     */
    record ContainerDevices(
            Map<String, String> envs,
            List<HostMount> mounts,
            List<HostDevice> devices,
            Map<String, String> annotations) {
        public static final ContainerDevices NONE =
                new ContainerDevices(Map.of(), List.of(), List.of(), Map.of());

        public ContainerDevices {
            envs =
                    java.util.Collections.unmodifiableMap(
                            new java.util.LinkedHashMap<>(envs)); // order kept
            mounts = List.copyOf(mounts);
            devices = List.copyOf(devices);
            annotations =
                    java.util.Collections.unmodifiableMap(
                            new java.util.LinkedHashMap<>(annotations));
        }
    }

    /** The kubelet's admission failure: the pod fails with {@link #REASON} and this message. */
    final class Rejected extends Exception {
        public static final String REASON = "UnexpectedAdmissionError";

        public Rejected(String message) {
            super(message);
        }
    }

    /**
     * Admits {@code pod}: for each container asking for {@link #PREFIX} resources, what its devices
     * add to it (a container that asks for none is absent). Admitting a pod that holds devices
     * already returns what it holds.
     */
    Map<String, ContainerDevices> admit(Pod pod) throws Rejected;

    /** The pod's devices are free again (nothing happens for a pod that holds none). */
    void release(String namespace, String pod);

    /** No device manager: pods asking for devices are rejected. */
    DeviceAdmission NONE =
            new DeviceAdmission() {
                @Override
                public Map<String, ContainerDevices> admit(Pod pod) throws Rejected {
                    for (Container c : PodToCri.allContainers(pod)) {
                        if (!deviceRequests(c).isEmpty()) {
                            throw new Rejected(
                                    "the node has no device manager for "
                                            + deviceRequests(c).keySet());
                        }
                    }
                    return Map.of();
                }

                @Override
                public void release(String namespace, String pod) {}
            };

    /**
     * What a container asks of {@link #PREFIX} resources: its requests, and its limits where no
     * request is given (for extended resources a limit is the request). Sorted by resource name.
     */
    static Map<String, Integer> deviceRequests(Container c) {
        Map<String, Integer> out = new TreeMap<>();
        if (c.getResources() == null) {
            return out;
        }
        addCounts(out, c.getResources().getLimits());
        addCounts(
                out,
                c.getResources()
                        .getRequests()); // equal to the limit where both are given (API validation)
        out.values().removeIf(v -> v == 0);
        return out;
    }

    /**
     * The sum over all of a pod's containers, init containers included: each container gets devices
     * of its own here (the kubelet lets main containers reuse an init container's; no pod of ours
     * asks for devices in one).
     */
    static Map<String, Integer> deviceRequests(Pod pod) {
        Map<String, Integer> sum = new TreeMap<>();
        for (Container c : PodToCri.allContainers(pod)) {
            deviceRequests(c).forEach((k, v) -> sum.merge(k, v, Integer::sum));
        }
        return sum;
    }

    private static void addCounts(Map<String, Integer> out, Map<String, Quantity> quantities) {
        if (quantities == null) {
            return;
        }
        quantities.forEach(
                (k, q) -> {
                    if (k.startsWith(PREFIX)) {
                        out.put(k, Quantity.getAmountInBytes(q).intValueExact());
                    }
                });
    }
}
