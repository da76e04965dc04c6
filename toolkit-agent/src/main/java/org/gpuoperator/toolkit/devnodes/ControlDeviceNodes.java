package org.gpuoperator.toolkit.devnodes;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.gpuoperator.node.host.ProcDevices;

/**
 * The control device nodes a loaded NVIDIA driver needs in {@code /dev}, as upstream's toolkit
 * creates them ({@code nvidia-ctk system create-device-nodes --control-devices}): {@code
 * /dev/nvidiactl} and {@code /dev/nvidia-modeset} (the driver's fixed major 195) once the driver is
 * loaded, {@code /dev/nvidia-uvm} and {@code /dev/nvidia-uvm-tools} once {@code nvidia-uvm} is, and
 * the MIG {@code config} and {@code monitor} capability nodes {@code
 * /dev/nvidia-caps/nvidia-cap<minor>} once {@code nvidia-caps} is (minors from {@code
 * /proc/driver/nvidia-caps/mig-minors}). A host-installed driver loaded without {@code
 * nvidia-modprobe} lacks them, and CUDA (or MIG) then fails. Pure.
 */
public final class ControlDeviceNodes {

    /** The driver's fixed character major ({@code NV_MAJOR_DEVICE_NUMBER}). */
    public static final int NVIDIA_MAJOR = 195;

    /** The mode of a control node. */
    public static final String WORLD_RW = "rw-rw-rw-";

    /**
     * The MIG capabilities made, with the driver's default modes ({@code DeviceFileMode} 256 and
     * 292 in {@code /proc/driver/nvidia/capabilities/mig/*}): who may open the node holds it.
     */
    static final List<Map.Entry<String, String>> MIG_CAPS =
            List.of(Map.entry("config", "r--------"), Map.entry("monitor", "r--r--r--"));

    /** One character device node and the permissions it gets. */
    public record Node(String path, int major, int minor, String permissions) {
        public Node(String path, int major, int minor) {
            this(path, major, minor, WORLD_RW);
        }
    }

    private ControlDeviceNodes() {}

    /**
     * The nodes the loaded driver calls for.
     *
     * @param procDevices the text of {@code /proc/devices}
     */
    public static List<Node> wanted(String procDevices) {
        return wanted(procDevices, "");
    }

    /**
     * The nodes the loaded driver calls for.
     *
     * @param procDevices the text of {@code /proc/devices}
     * @param migMinors the text of {@code /proc/driver/nvidia-caps/mig-minors} ({@code "config 1"},
     *     {@code "monitor 2"}, {@code "gpu0/gi0/access 3"}, ...), empty when absent
     */
    public static List<Node> wanted(String procDevices, String migMinors) {
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
        Integer caps = majors.get("nvidia-caps");
        if (caps != null) {
            Map<String, Integer> minors = migMinors(migMinors);
            for (Map.Entry<String, String> cap : MIG_CAPS) {
                Integer minor = minors.get(cap.getKey());
                if (minor != null) {
                    out.add(
                            new Node(
                                    "/dev/nvidia-caps/nvidia-cap" + minor,
                                    caps,
                                    minor,
                                    cap.getValue()));
                }
            }
        }
        return out;
    }

    /** {@code name minor} lines; others are skipped. */
    static Map<String, Integer> migMinors(String text) {
        Map<String, Integer> out = new java.util.HashMap<>();
        for (String line : text.split("\n")) {
            String[] f = line.strip().split("\\s+");
            if (f.length == 2 && f[1].matches("\\d{1,9}")) {
                out.putIfAbsent(f[0], Integer.parseInt(f[1]));
            }
        }
        return out;
    }
}
