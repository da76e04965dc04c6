package org.gpuoperator.e2e.node;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;
import org.gpuoperator.e2e.images.SimulatedRegistry;
import org.gpuoperator.kubelet.cri.CriClient;
import org.gpuoperator.kubelet.deviceplugin.v1beta1.ContainerAllocateResponse;
import org.gpuoperator.kubelet.emulator.KubeletEmulator;
import org.gpuoperator.kubelet.emulator.PodResourcesEmulator;
import org.gpuoperator.node.inventory.simulated.SimulatedFaults;

/**
 * One simulated GPU node: its own host root directory, the kubelet's device manager (the
 * kubelet-emulator module's {@code KubeletEmulator}, real v1beta1 gRPC on {@code
 * <root>/var/lib/kubelet/device-plugins/kubelet.sock}), the kubelet's pod-resources service (that
 * module's {@code PodResourcesEmulator} on {@code
 * <root>/var/lib/kubelet/pod-resources/kubelet.sock}), a private real containerd when one is
 * installed, and the kubelet's pod work ({@link PodRunner}: host processes or, with {@link
 * PodMode.Containers}, real containers through CRI).
 *
 * <p>Not thread-safe except where noted: the cluster drives it from one loop thread; scenario
 * methods ({@link #allocate}, {@link #release}, {@link #faults}) may be called from the test
 * thread.
 */
public final class SimulatedNode implements AutoCloseable {

    public static final String GPU_RESOURCE = "nvidia.com/gpu";

    private final String name;
    private final Path root;
    private final KubernetesClient client;
    private final KubeletEmulator deviceManager;
    private final PodResourcesEmulator podResources;
    private final PrivateContainerd containerd;
    private final PodRunner pods;
    private final CriClient cri;
    private final NodeDevices devices;
    private Map<String, Integer> reportedAllocatable = Map.of();

    private SimulatedNode(
            String name,
            Path root,
            KubernetesClient client,
            KubeletEmulator deviceManager,
            PodResourcesEmulator podResources,
            NodeDevices devices,
            PrivateContainerd containerd,
            PodRunner pods,
            CriClient cri) {
        this.name = name;
        this.devices = devices;
        this.root = root;
        this.client = client;
        this.deviceManager = deviceManager;
        this.podResources = podResources;
        this.containerd = containerd;
        this.pods = pods;
        this.cri = cri;
    }

    /**
     * Creates the node's host root and starts its kubelet-side services; pods run as host
     * processes.
     *
     * @param withContainerd start a private containerd (needs the containerd binary and root)
     */
    public static SimulatedNode start(
            String name,
            Path root,
            KubernetesClient client,
            PodSpecMapping mapping,
            Map<String, String> podEnv,
            boolean withContainerd,
            Consumer<String> events)
            throws IOException, InterruptedException {
        return start(
                name, root, client, mapping, podEnv, withContainerd, PodMode.PROCESSES, events);
    }

    /**
     * Creates the node's host root and starts its kubelet-side services, running pods as {@code
     * mode} says. {@link PodMode.Containers} needs {@code withContainerd}, root, busybox and the
     * CNI plugins; without them the node runs pods as processes and an event says why.
     */
    public static SimulatedNode start(
            String name,
            Path root,
            KubernetesClient client,
            PodSpecMapping mapping,
            Map<String, String> podEnv,
            boolean withContainerd,
            PodMode mode,
            Consumer<String> events)
            throws IOException, InterruptedException {
        for (String dir :
                List.of(
                        "run/nvidia/validations",
                        "var/lib/kubelet/device-plugins",
                        "var/lib/kubelet/pod-resources",
                        "etc",
                        "usr/local/nvidia",
                        "dev",
                        "proc/driver",
                        "var/log",
                        "sys/class/dmi/id")) {
            Files.createDirectories(root.resolve(dir));
        }
        // what a machine tells about itself in /sys (GFD's gpu.machine label); the node's /sys is
        // its own
        Files.writeString(root.resolve("sys/class/dmi/id/product_name"), "Simulated GPU Node\n");
        PodMode.Containers containers = null;
        if (mode instanceof PodMode.Containers c) {
            String why =
                    withContainerd ? PodMode.containersUnavailable() : "the node has no containerd";
            if (why == null) {
                containers = c;
            } else {
                events.accept(name + ": pods run as host processes, not containers: " + why);
            }
        }
        PrivateContainerd containerd = null;
        if (withContainerd) {
            containerd =
                    new PrivateContainerd(root, containers == null ? null : NodeNetwork.allocate());
            containerd.writeInitialConfig();
            if (containers != null) {
                PreloadedImages.seed(containerd.dataRoot(), containers.imageArchives());
            }
            containerd.start();
        }
        KubeletEmulator dm = KubeletEmulator.start(root.resolve("var/lib/kubelet/device-plugins"));
        PodResourcesEmulator pr =
                PodResourcesEmulator.start(
                        root.resolve("var/lib/kubelet/pod-resources/kubelet.sock"));
        NodeDevices devices = new NodeDevices(name, dm, pr);
        if (containers == null) {
            SimulatedKubelet kubelet =
                    new SimulatedKubelet(
                            client,
                            name,
                            root,
                            root.resolve("var/log/pods"),
                            mapping,
                            podEnv,
                            events);
            return new SimulatedNode(
                    name, root, client, dm, pr, devices, containerd, kubelet, null);
        }
        try {
            containerd.awaitCri(java.time.Duration.ofSeconds(30));
        } catch (RuntimeException | InterruptedException e) {
            // nobody else would stop this node's daemon and emulators
            containerd.close();
            dm.close();
            pr.close();
            throw e;
        }
        CriClient cri = new CriClient(containerd.socket());
        CriPodRunner runner =
                new CriPodRunner(
                        client,
                        name,
                        root,
                        cri,
                        new CriPodRunner.Settings(
                                containers.access().orHost(containerd.network().gateway()),
                                containerd.network().gateway(),
                                containers.backoff(),
                                SimulatedRegistry.standard(),
                                java.time.Duration.ofMillis(250)),
                        devices,
                        events);
        events.accept(
                name
                        + ": pods run as containers in "
                        + containerd.socket()
                        + ", pod network "
                        + containerd.network().subnet()
                        + " on "
                        + containerd.network().bridge());
        return new SimulatedNode(name, root, client, dm, pr, devices, containerd, runner, cri);
    }

    public String name() {
        return name;
    }

    /** The node's host root: what the agents see as {@code /} of the host. */
    public Path root() {
        return root;
    }

    /** The private containerd, or null when containerd is not installed. */
    public PrivateContainerd containerd() {
        return containerd;
    }

    public KubeletEmulator deviceManager() {
        return deviceManager;
    }

    public PodResourcesEmulator podResources() {
        return podResources;
    }

    /** Fault injection for this node's simulated GPUs. */
    public SimulatedFaults faults() {
        return new SimulatedFaults(root);
    }

    /**
     * How this node runs its pods: host processes ({@link SimulatedKubelet}) or containers ({@link
     * CriPodRunner}).
     */
    public PodRunner pods() {
        return pods;
    }

    /** The node's address: its bridge gateway where pods run as containers, else loopback. */
    public String address() {
        return containerd != null && containerd.network() != null
                ? containerd.network().gateway()
                : "127.0.0.1";
    }

    /**
     * One pass of the loop: pods and the node's allocatable resources (containerd supervises
     * itself).
     */
    public void sync(List<Pod> podsOnNode) {
        pods.sync(podsOnNode);
        Map<String, Integer> allocatable = new TreeMap<>();
        for (String resource : deviceManager.resources()) {
            allocatable.put(resource, deviceManager.allocatable(resource));
        }
        if (!allocatable.equals(reportedAllocatable)) {
            Map<String, Integer> capacity = new TreeMap<>();
            for (String resource : deviceManager.resources()) {
                capacity.put(resource, deviceManager.capacity(resource));
            }
            try {
                client.nodes()
                        .withName(name)
                        .editStatus(
                                n -> {
                                    Map<String, Quantity> a =
                                            new LinkedHashMap<>(n.getStatus().getAllocatable());
                                    Map<String, Quantity> c =
                                            new LinkedHashMap<>(n.getStatus().getCapacity());
                                    a.keySet()
                                            .removeIf(
                                                    k ->
                                                            k.startsWith("nvidia.com/")
                                                                    && !allocatable.containsKey(k));
                                    c.keySet()
                                            .removeIf(
                                                    k ->
                                                            k.startsWith("nvidia.com/")
                                                                    && !capacity.containsKey(k));
                                    allocatable.forEach(
                                            (k, v) -> a.put(k, new Quantity(String.valueOf(v))));
                                    capacity.forEach(
                                            (k, v) -> c.put(k, new Quantity(String.valueOf(v))));
                                    n.getStatus().setAllocatable(a);
                                    n.getStatus().setCapacity(c);
                                    return n;
                                });
                reportedAllocatable = allocatable;
            } catch (KubernetesClientException e) {
                // the node was deleted; nothing to report
            }
        }
    }

    /** What a container got from the device plugin at admission. */
    public record Allocation(
            String pod,
            String container,
            String resource,
            List<String> deviceIds,
            ContainerAllocateResponse response) {
        /** The envs the plugin sets ({@code NVIDIA_VISIBLE_DEVICES}: what the runtime exposes). */
        public Map<String, String> envs() {
            return Map.copyOf(response.getEnvsMap());
        }
    }

    /**
     * Admits one container's ask for {@code count} devices of {@code resource}; see {@link
     * NodeDevices#allocate}.
     */
    public Allocation allocate(
            String namespace, String pod, String container, String resource, int count) {
        return devices.allocate(namespace, pod, container, resource, count);
    }

    /** The pod ends: its devices are free again and pod-resources no longer lists it. */
    public void release(String namespace, String pod) {
        devices.release(namespace, pod);
    }

    /**
     * The device IDs pod-resources lists for a pod's container, by resource (empty when it holds
     * none).
     */
    public Map<String, List<String>> assigned(String namespace, String pod, String container) {
        return devices.assigned(namespace, pod, container);
    }

    /**
     * What admission gave each container of a pod (container name to envs, mounts, devices,
     * annotations).
     */
    public Map<String, DeviceAdmission.ContainerDevices> admitted(String namespace, String pod) {
        return devices.admitted(namespace, pod);
    }

    /** The kubelet's device admission on this node, as the pod runner uses it. */
    public DeviceAdmission admission() {
        return devices;
    }

    /**
     * Stops the pod processes first (their SIGTERM cleanup may need containerd), then the node
     * services.
     */
    @Override
    public void close() {
        pods.close();
        if (cri != null) {
            cri.close();
        }
        deviceManager.close();
        podResources.close();
        if (containerd != null) {
            containerd.close();
        }
    }
}
