package org.gpuoperator.e2e.node;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.gpuoperator.kubelet.deviceplugin.v1beta1.ContainerAllocateResponse;
import org.gpuoperator.kubelet.deviceplugin.v1beta1.DeviceSpec;
import org.gpuoperator.kubelet.deviceplugin.v1beta1.Mount;

/** Device plugins' Allocate answers to what the runner applies to a container. Pure. */
final class DeviceAdmissions {

    private DeviceAdmissions() {}

    /**
     * One container's answers (one per resource it asked for), merged as the kubelet merges them:
     * envs and annotations by key (a later answer wins), mounts and devices in order.
     */
    static DeviceAdmission.ContainerDevices merge(List<ContainerAllocateResponse> answers) {
        Map<String, String> envs = new LinkedHashMap<>();
        Map<String, String> annotations = new LinkedHashMap<>();
        List<DeviceAdmission.HostMount> mounts = new ArrayList<>();
        List<DeviceAdmission.HostDevice> devices = new ArrayList<>();
        for (ContainerAllocateResponse r : answers) {
            envs.putAll(
                    new java.util.TreeMap<>(
                            r.getEnvsMap())); // proto maps have no order: make it stable
            annotations.putAll(new java.util.TreeMap<>(r.getAnnotationsMap()));
            for (Mount m : r.getMountsList()) {
                mounts.add(
                        new DeviceAdmission.HostMount(
                                m.getContainerPath(), m.getHostPath(), m.getReadOnly()));
            }
            for (DeviceSpec d : r.getDevicesList()) {
                devices.add(
                        new DeviceAdmission.HostDevice(
                                d.getContainerPath(),
                                d.getHostPath(),
                                d.getPermissions().isEmpty() ? "rwm" : d.getPermissions()));
            }
        }
        return new DeviceAdmission.ContainerDevices(envs, mounts, devices, annotations);
    }
}
