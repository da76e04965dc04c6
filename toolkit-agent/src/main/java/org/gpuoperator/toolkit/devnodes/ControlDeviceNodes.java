package org.gpuoperator.toolkit.devnodes;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.gpuoperator.node.host.ProcDevices;

/**
 * The control device nodes a loaded NVIDIA driver needs in {@code /dev}, as upstream's toolkit
 * creates them ({@code nvidia-ctk system create-device-nodes --control-devices}): {@code
 * /dev/nvidiactl} and {@code /dev/nvidia-modeset} (the driver's fixed major 195) once the driver is
 * loaded, {@code /dev/nvidia-uvm} and {@code /dev/nvidia-uvm-tools} once {@code nvidia-uvm} is. A
 * host-installed driver loaded without {@code nvidia-modprobe} lacks them, and CUDA then fails.
 * Pure.
 */
public final class ControlDeviceNodes {

    /** The driver's fixed character major ({@code NV_MAJOR_DEVICE_NUMBER}). */
    public static final int NVIDIA_MAJOR = 195;

    /** One character device node. */
    public record Node(String path, int major, int minor) {}

    private ControlDeviceNodes() {}

    /**
     * The nodes the loaded driver calls for.
     *
     * @param procDevices the text of {@code /proc/devices}
     */
    public static List<Node> wanted(String procDevices) {
        Map<String, Integer> majors = ProcDevices.characterMajors(procDevices);
        List<Node> out = new ArrayList<>();
        if (majors.containsValue(NVIDIA_MAJOR)) {
            out.add(new Node("/dev/nvidiactl", NVIDIA_MAJOR, 255));
            out.add(new Node("/dev/nvidia-modeset", NVIDIA_MAJOR, 254));
        }
        Integer uvm = majors.get("nvidia-uvm");
        if (uvm != null) {
            out.add(new Node("/dev/nvidia-uvm", uvm, 0));
            out.add(new Node("/dev/nvidia-uvm-tools", uvm, 1));
        }
        return out;
    }
}
