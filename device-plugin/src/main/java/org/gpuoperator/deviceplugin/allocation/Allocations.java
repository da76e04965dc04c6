package org.gpuoperator.deviceplugin.allocation;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import org.gpuoperator.deviceplugin.config.PluginConfig;
import org.gpuoperator.deviceplugin.mps.MpsPaths;
import org.gpuoperator.deviceplugin.mps.MpsShare;
import org.gpuoperator.deviceplugin.resources.PluginDevice;
import org.gpuoperator.deviceplugin.resources.Resource;
import org.gpuoperator.kubelet.deviceplugin.v1beta1.CDIDevice;
import org.gpuoperator.kubelet.deviceplugin.v1beta1.ContainerAllocateResponse;
import org.gpuoperator.kubelet.deviceplugin.v1beta1.DeviceSpec;
import org.gpuoperator.kubelet.deviceplugin.v1beta1.Mount;
import org.gpuoperator.node.deviceconfig.DeviceListStrategy;

/**
 * What a container gets for the devices the kubelet chose: a pure function of the resource, the
 * IDs, their health and the config. Fast (no I/O), because it runs on the pod admission path.
 */
public final class Allocations {

    public static final String VISIBLE_DEVICES = "NVIDIA_VISIBLE_DEVICES";
    public static final String VOLUME_MOUNT_ROOT = "/var/run/nvidia-container-devices";
    public static final String MPS_PIPE_ENV = "CUDA_MPS_PIPE_DIRECTORY";
    public static final String MPS_LOG_ENV = "CUDA_MPS_LOG_DIRECTORY";
    public static final String MPS_THREADS_ENV = "CUDA_MPS_ACTIVE_THREAD_PERCENTAGE";
    public static final String MPS_PINNED_ENV = "CUDA_MPS_PINNED_DEVICE_MEM_LIMIT";

    private final Resource resource;
    private final Map<String, PluginDevice> byId;
    private final PluginConfig config;
    private final List<String> controlNodes;

    /**
     * @param resource the resource served
     * @param config the effective config
     * @param controlNodes driver control nodes present on the host (passed with passDeviceSpecs)
     */
    public Allocations(Resource resource, PluginConfig config, List<String> controlNodes) {
        this.resource = resource;
        this.byId = resource.byId();
        this.config = config;
        this.controlNodes = List.copyOf(controlNodes);
    }

    /**
     * The response for one container.
     *
     * @throws InvalidRequestException naming the first unknown or unhealthy ID, or an over-sized
     *     shared request
     */
    public ContainerAllocateResponse allocate(List<String> ids, Predicate<PluginDevice> healthy) {
        if (ids.isEmpty()) {
            throw new InvalidRequestException(
                    "invalid allocation request for \"" + resource.name() + "\": no device IDs");
        }
        if (resource.shared() && resource.failRequestsGreaterThanOne() && ids.size() > 1) {
            throw new InvalidRequestException(
                    "invalid allocation request for \""
                            + resource.name()
                            + "\": invalid request: maximum request size for shared resources is 1; found "
                            + ids.size());
        }
        List<PluginDevice> devices = new ArrayList<>(ids.size());
        for (String id : ids) {
            PluginDevice d = byId.get(id);
            if (d == null) {
                throw new InvalidRequestException(
                        "invalid allocation request for \""
                                + resource.name()
                                + "\": unknown device: "
                                + id);
            }
            if (!healthy.test(d)) {
                throw new InvalidRequestException(
                        "invalid allocation request for \""
                                + resource.name()
                                + "\": device "
                                + id
                                + " is unhealthy");
            }
            devices.add(d);
        }
        // replicas of one GPU name the same physical device once
        Set<String> runtimeIds = CdiNames.deviceNames(devices, config.deviceIdStrategy());
        Set<String> paths = new LinkedHashSet<>();
        devices.forEach(d -> paths.addAll(d.paths()));
        ContainerAllocateResponse.Builder r = ContainerAllocateResponse.newBuilder();
        if (config.uses(DeviceListStrategy.ENVVAR)) {
            r.putEnvs(VISIBLE_DEVICES, String.join(",", runtimeIds));
        }
        if (config.uses(DeviceListStrategy.VOLUME_MOUNTS)) {
            r.putEnvs(VISIBLE_DEVICES, VOLUME_MOUNT_ROOT);
            for (String id : runtimeIds) {
                r.addMounts(
                        Mount.newBuilder()
                                .setHostPath("/dev/null")
                                .setContainerPath(VOLUME_MOUNT_ROOT + "/" + id));
            }
        }
        if (config.uses(DeviceListStrategy.CDI_ANNOTATIONS)
                || config.uses(DeviceListStrategy.CDI_CRI)) {
            List<String> names = CdiNames.forDevices(devices, config.deviceIdStrategy());
            if (config.uses(DeviceListStrategy.CDI_ANNOTATIONS)) {
                r.putAnnotations(
                        CdiNames.annotationKey(
                                config.cdiAnnotationPrefix(), resource.name(), runtimeIds),
                        String.join(",", names));
            }
            if (config.uses(DeviceListStrategy.CDI_CRI)) {
                names.forEach(n -> r.addCdiDevices(CDIDevice.newBuilder().setName(n)));
            }
        }
        if (resource.mps() != null) {
            mps(r, devices);
        }
        if (config.gdrcopyEnabled()) {
            r.putEnvs("NVIDIA_GDRCOPY", "enabled");
        }
        if (config.gdsEnabled()) {
            r.putEnvs("NVIDIA_GDS", "enabled");
        }
        if (config.mofedEnabled()) {
            r.putEnvs("NVIDIA_MOFED", "enabled");
        }
        if (config.passDeviceSpecs()) {
            for (String p : controlNodes) {
                r.addDevices(spec(p));
            }
            for (String p : paths) {
                r.addDevices(spec(p));
            }
        }
        return r.build();
    }

    /**
     * An MPS client: the control daemon's pipe and log directories, the shared {@code /dev/shm},
     * and upstream's per-client limits, which CUDA also reads from the client's environment.
     */
    private void mps(ContainerAllocateResponse.Builder r, List<PluginDevice> devices) {
        MpsShare share = resource.mps();
        MpsPaths paths = new MpsPaths(Path.of(config.mpsRoot()), share.resource());
        r.putEnvs(MPS_PIPE_ENV, paths.containerPipe());
        r.putEnvs(MPS_LOG_ENV, paths.containerLog());
        r.putEnvs(MPS_THREADS_ENV, Integer.toString(share.activeThreadPercentage()));
        r.putEnvs(
                MPS_PINNED_ENV,
                share.pinnedLimitEnv(devices.stream().map(PluginDevice::gpuIndex).toList()));
        r.addMounts(mount(paths.pipe().toString(), paths.containerPipe(), false));
        r.addMounts(mount(paths.log().toString(), paths.containerLog(), true));
        r.addMounts(mount(paths.shm().toString(), "/dev/shm", false));
    }

    private static Mount mount(String host, String container, boolean readOnly) {
        return Mount.newBuilder()
                .setHostPath(host)
                .setContainerPath(container)
                .setReadOnly(readOnly)
                .build();
    }

    private DeviceSpec spec(String path) {
        String root = config.devRoot();
        String host = root.equals("/") ? path : root.replaceAll("/+$", "") + path;
        return DeviceSpec.newBuilder()
                .setContainerPath(path)
                .setHostPath(host)
                .setPermissions("rw")
                .build();
    }
}
