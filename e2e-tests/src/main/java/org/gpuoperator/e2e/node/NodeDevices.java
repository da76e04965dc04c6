package org.gpuoperator.e2e.node;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Pod;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.gpuoperator.kubelet.deviceplugin.v1beta1.AllocateResponse;
import org.gpuoperator.kubelet.deviceplugin.v1beta1.ContainerAllocateResponse;
import org.gpuoperator.kubelet.deviceplugin.v1beta1.Device;
import org.gpuoperator.kubelet.emulator.DeviceManagerCheckpoint;
import org.gpuoperator.kubelet.emulator.KubeletEmulator;
import org.gpuoperator.kubelet.emulator.PodResourcesEmulator;

/**
 * One node's kubelet device manager: which container holds which device. Devices are chosen and
 * allocated through the registered plugin (the kubelet-emulator module's {@link KubeletEmulator}:
 * GetPreferredAllocation, Allocate), and every assignment is published on the node's pod-resources
 * endpoint ({@link PodResourcesEmulator}), where the exporter reads it, and in the kubelet's device
 * checkpoint in the device-plugins directory ({@link DeviceManagerCheckpoint}), where the exporter
 * reads the holders' pod UIDs. Thread-safe: the pod runner's workers and scenario code call it.
 */
public final class NodeDevices implements DeviceAdmission {

    private final String name;
    private final KubeletEmulator deviceManager;
    private final PodResourcesEmulator podResources;

    /** ns/name -> what pod-resources lists */
    private final Map<String, PodResourcesEmulator.Pod> workloads = new LinkedHashMap<>();

    /** ns/name -> the pod's entries in the device checkpoint (by pod UID) */
    private final Map<String, List<DeviceManagerCheckpoint.Entry>> checkpointed =
            new LinkedHashMap<>();

    /**
     * ns/name -> what admission gave each container, so that a second admit returns the same answer
     */
    private final Map<String, Map<String, ContainerDevices>> admitted = new LinkedHashMap<>();

    public NodeDevices(
            String name, KubeletEmulator deviceManager, PodResourcesEmulator podResources) {
        this.name = name;
        this.deviceManager = deviceManager;
        this.podResources = podResources;
    }

    /**
     * Gives a pod's container {@code count} devices of {@code resource}, as the kubelet does: picks
     * from the healthy devices no other container holds with the plugin's GetPreferredAllocation,
     * calls Allocate, and records the assignment in pod-resources (which is how the exporter learns
     * who holds which GPU).
     *
     * @throws IllegalStateException fewer free healthy devices than asked (the kubelet's words), or
     *     the plugin refused
     */
    public synchronized SimulatedNode.Allocation allocate(
            String namespace, String pod, String container, String resource, int count) {
        return allocate(namespace, pod, null, container, resource, count);
    }

    /**
     * As {@link #allocate(String, String, String, String, int)}, for the pod with UID {@code
     * podUid}, which the device checkpoint then names (null: left out of it).
     */
    private SimulatedNode.Allocation allocate(
            String namespace,
            String pod,
            String podUid,
            String container,
            String resource,
            int count) {
        List<String> free = new ArrayList<>();
        for (Device d : deviceManager.devices(resource)) {
            if ("Healthy".equals(d.getHealth())
                    && workloads.values().stream().noneMatch(w -> holds(w, d.getID()))) {
                free.add(d.getID());
            }
        }
        if (free.size() < count) {
            throw new IllegalStateException(
                    "requested number of devices unavailable for "
                            + resource
                            + ". Requested: "
                            + count
                            + ", Available: "
                            + free.size());
        }
        List<String> chosen;
        AllocateResponse r;
        try {
            chosen = deviceManager.preferredAllocation(resource, free, List.of(), count);
            r = deviceManager.allocate(resource, chosen);
        } catch (
                RuntimeException
                        e) { // the plugin's gRPC error, or no plugin registered for the resource
            throw new IllegalStateException(
                    "the " + resource + " plugin on node " + name + ": " + e.getMessage(), e);
        }
        String key = namespace + "/" + pod;
        PodResourcesEmulator.Pod before = workloads.get(key);
        List<PodResourcesEmulator.Container> containers =
                new ArrayList<>(before == null ? List.of() : before.containers());
        List<PodResourcesEmulator.Devices> devices = new ArrayList<>();
        containers.removeIf(
                c -> {
                    if (c.name().equals(container)) {
                        devices.addAll(c.devices());
                        return true;
                    }
                    return false;
                });
        devices.add(new PodResourcesEmulator.Devices(resource, chosen));
        containers.add(new PodResourcesEmulator.Container(container, devices));
        workloads.put(key, new PodResourcesEmulator.Pod(pod, namespace, containers));
        podResources.setPods(List.copyOf(workloads.values()));
        if (podUid != null) {
            checkpointed
                    .computeIfAbsent(key, k -> new ArrayList<>())
                    .add(
                            DeviceManagerCheckpoint.Entry.of(
                                    podUid,
                                    container,
                                    resource,
                                    chosen,
                                    deviceManager.devices(resource),
                                    r.getContainerResponses(0)));
            writeCheckpoint();
        }
        return new SimulatedNode.Allocation(
                pod, container, resource, chosen, r.getContainerResponses(0));
    }

    /** The pod ends: its devices are free again and pod-resources no longer lists it. */
    @Override
    public synchronized void release(String namespace, String pod) {
        admitted.remove(namespace + "/" + pod);
        if (workloads.remove(namespace + "/" + pod) != null) {
            podResources.setPods(List.copyOf(workloads.values()));
        }
        if (checkpointed.remove(namespace + "/" + pod) != null) {
            writeCheckpoint();
        }
    }

    /**
     * Writes the checkpoint as the kubelet does after each allocation and release: every pod's
     * entries and each resource's healthy devices.
     *
     * @throws IllegalStateException when it cannot be written (the kubelet then fails the
     *     allocation)
     */
    private void writeCheckpoint() {
        Map<String, List<String>> registered = new TreeMap<>();
        for (String resource : deviceManager.resources()) {
            registered.put(
                    resource,
                    deviceManager.devices(resource).stream()
                            .filter(d -> "Healthy".equals(d.getHealth()))
                            .map(Device::getID)
                            .toList());
        }
        try {
            DeviceManagerCheckpoint.write(
                    deviceManager.directory(),
                    checkpointed.values().stream().flatMap(List::stream).toList(),
                    registered);
        } catch (IOException e) {
            throw new IllegalStateException(
                    "cannot write the device checkpoint of node " + name + ": " + e, e);
        }
    }

    /**
     * The device IDs pod-resources lists for a pod's container, by resource (empty when it holds
     * none).
     */
    public synchronized Map<String, List<String>> assigned(
            String namespace, String pod, String container) {
        Map<String, List<String>> out = new TreeMap<>();
        PodResourcesEmulator.Pod p = workloads.get(namespace + "/" + pod);
        if (p != null) {
            p.containers().stream()
                    .filter(c -> c.name().equals(container))
                    .flatMap(c -> c.devices().stream())
                    .forEach(
                            d ->
                                    out.computeIfAbsent(d.resourceName(), k -> new ArrayList<>())
                                            .addAll(d.deviceIds()));
        }
        return out;
    }

    @Override
    public synchronized Map<String, ContainerDevices> admit(Pod p) throws Rejected {
        String ns = p.getMetadata().getNamespace();
        String podName = p.getMetadata().getName();
        Map<String, ContainerDevices> out = new LinkedHashMap<>();
        if (admitted.containsKey(ns + "/" + podName)) {
            return admitted.get(ns + "/" + podName);
        }
        try {
            for (Container c : PodToCri.allContainers(p)) {
                List<ContainerAllocateResponse> answers = new ArrayList<>();
                for (Map.Entry<String, Integer> ask :
                        DeviceAdmission.deviceRequests(c).entrySet()) {
                    answers.add(
                            allocate(
                                            ns,
                                            podName,
                                            p.getMetadata().getUid(),
                                            c.getName(),
                                            ask.getKey(),
                                            ask.getValue())
                                    .response());
                }
                if (!answers.isEmpty()) {
                    out.put(c.getName(), DeviceAdmissions.merge(answers));
                }
            }
        } catch (IllegalStateException e) {
            release(ns, podName); // all or nothing, as the kubelet
            throw new Rejected(
                    "Allocate failed due to " + e.getMessage() + ", which is unexpected");
        }
        admitted.put(ns + "/" + podName, Map.copyOf(out));
        return out;
    }

    private static boolean holds(PodResourcesEmulator.Pod pod, String deviceId) {
        return pod.containers().stream()
                .flatMap(c -> c.devices().stream())
                .anyMatch(d -> d.deviceIds().contains(deviceId));
    }

    /** What admission gave each container of a pod; empty when it was not admitted with devices. */
    public synchronized Map<String, ContainerDevices> admitted(String namespace, String pod) {
        return admitted.getOrDefault(namespace + "/" + pod, Map.of());
    }
}
