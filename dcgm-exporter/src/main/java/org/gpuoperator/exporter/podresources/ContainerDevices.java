package org.gpuoperator.exporter.podresources;

import java.util.List;

/**
 * The devices of one resource that the kubelet assigned to one container: one entry of a
 * pod-resources List answer, flattened.
 */
public record ContainerDevices(
        String pod,
        String namespace,
        String container,
        String resourceName,
        List<String> deviceIds) {
    public ContainerDevices {
        deviceIds = List.copyOf(deviceIds);
    }
}
