package org.gpuoperator.driver.install;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.gpuoperator.driver.host.LoadedModules;
import org.gpuoperator.driver.host.NvidiaProcFs.KernelGpu;

/**
 * The {@code /dev/nvidia*} character devices a loaded driver needs. Pure: computed from what the
 * kernel reports.
 */
public final class DeviceNodes {

    /** NVIDIA's fixed character major when /proc/devices does not name it. */
    static final int NVIDIA_MAJOR = 195;

    static final int CTL_MINOR = 255;
    static final int MODESET_MINOR = 254;

    /** One device file to create on the host. */
    public record DeviceNode(String hostPath, int major, int minor) {}

    private DeviceNodes() {}

    public static List<DeviceNode> desired(
            List<KernelGpu> gpus, Map<String, Integer> majors, LoadedModules loaded) {
        int nvidia =
                majors.getOrDefault("nvidia-frontend", majors.getOrDefault("nvidia", NVIDIA_MAJOR));
        List<DeviceNode> out = new ArrayList<>();
        out.add(new DeviceNode("/dev/nvidiactl", nvidia, CTL_MINOR));
        for (KernelGpu gpu : gpus) {
            out.add(new DeviceNode("/dev/nvidia" + gpu.minor(), nvidia, gpu.minor()));
        }
        if (loaded.isLoaded(KernelModules.UVM)) {
            Integer uvm = majors.get("nvidia-uvm");
            if (uvm == null) {
                throw new DriverStepException(
                        DriverStepException.Step.DEVICES,
                        "nvidia_uvm is loaded but /proc/devices has no nvidia-uvm entry");
            }
            out.add(new DeviceNode("/dev/nvidia-uvm", uvm, 0));
            out.add(new DeviceNode("/dev/nvidia-uvm-tools", uvm, 1));
        }
        if (loaded.isLoaded(KernelModules.MODESET)) {
            out.add(new DeviceNode("/dev/nvidia-modeset", nvidia, MODESET_MINOR));
        }
        return List.copyOf(out);
    }
}
