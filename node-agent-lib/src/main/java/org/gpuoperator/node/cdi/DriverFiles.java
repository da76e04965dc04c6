package org.gpuoperator.node.cdi;

import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What {@link DriverDiscovery} found of the driver on a node: the generator's input besides the
 * GPUs. Paths of libraries and binaries are as a container sees them (absolute, without the driver
 * root); the host has them under {@link #root()} ({@link #hostPath(String)}).
 *
 * @param root the driver root on the host ({@code /} for a host driver, {@code /run/nvidia/driver}
 *     for the driver container)
 * @param version the driver version the libraries carry, e.g. {@code 550.54.15}
 * @param libraries the real files (no link on the way), e.g. {@code
 *     /usr/lib/x86_64-linux-gnu/libcuda.so.550.54.15} or, from Debian's packages, {@code
 *     /usr/lib/x86_64-linux-gnu/nvidia/current/libcuda.so.535.261.03}
 * @param binaries e.g. {@code /usr/bin/nvidia-smi}
 * @param deviceNodes the host's {@code /dev/nvidia*} nodes by path, with type and numbers
 * @param migCapMinors the driver's MIG capability minors ({@code gpu0/gi1/access} → 12); empty when
 *     the node has no {@code /proc/driver/nvidia-caps/mig-minors}
 * @param characterMajors the {@code nvidia*} character device majors of {@code /proc/devices}
 * @param sonameLinks the soname links a container gets, link path → target file name, each next to
 *     its library ({@code /usr/lib/x86_64-linux-gnu/libcuda.so.1} → {@code libcuda.so.550.54.15})
 * @param realFiles container path → the real file in the driver root, for a file reached through
 *     links ({@code /usr/bin/nvidia-smi} → {@code /usr/lib/nvidia/current/nvidia-smi} through
 *     Debian's {@code /etc/alternatives}) or mounted elsewhere ({@code
 *     /etc/vulkan/icd.d/nvidia_icd.json} → {@code /usr/share/vulkan/icd.d/nvidia_icd.json}); a path
 *     not here is a real file itself
 * @param firmware the GSP firmware files, e.g. {@code /lib/firmware/nvidia/<version>/gsp_ga10x.bin}
 * @param graphics the graphics files: Vulkan, EGL, OpenCL and X configuration files, X driver
 *     modules (container paths)
 * @param ipc the IPC sockets and the MPS pipe folder that exist, e.g. {@code
 *     /run/nvidia-persistenced/socket}
 * @param dri each GPU's {@code /dev/dri} nodes by PCI bus id ({@link #busId(String)}), as the
 *     host's {@code /dev/dri/by-path} links name them
 */
public record DriverFiles(
        String root,
        String version,
        List<String> libraries,
        List<String> binaries,
        Map<String, CdiSpec.DeviceNode> deviceNodes,
        Map<String, Integer> migCapMinors,
        Map<String, Integer> characterMajors,
        Map<String, String> sonameLinks,
        Map<String, String> realFiles,
        List<String> firmware,
        List<String> graphics,
        List<String> ipc,
        Map<String, List<DriLink>> dri) {

    /** The {@code /proc/devices} name of the MIG capability devices. */
    public static final String CAPS_DEVICE = "nvidia-caps";

    /**
     * One of a GPU's {@code /dev/dri/by-path} links.
     *
     * @param link e.g. {@code /dev/dri/by-path/pci-0000:17:00.0-card}
     * @param target the link's target as written, e.g. {@code ../card1}
     * @param node the device node it leads to, e.g. {@code /dev/dri/card1}
     */
    public record DriLink(String link, String target, String node) {
        public DriLink {
            Objects.requireNonNull(link, "link");
            Objects.requireNonNull(target, "target");
            Objects.requireNonNull(node, "node");
        }
    }

    public DriverFiles {
        Objects.requireNonNull(root, "root");
        Objects.requireNonNull(version, "version");
        libraries = List.copyOf(libraries);
        binaries = List.copyOf(binaries);
        deviceNodes = Map.copyOf(deviceNodes);
        migCapMinors = Map.copyOf(migCapMinors);
        characterMajors = Map.copyOf(characterMajors);
        sonameLinks = Map.copyOf(sonameLinks);
        realFiles = Map.copyOf(realFiles);
        firmware = List.copyOf(firmware);
        graphics = List.copyOf(graphics);
        ipc = List.copyOf(ipc);
        dri = Map.copyOf(dri);
    }

    /** Libraries and binaries only, with their links. */
    public DriverFiles(
            String root,
            String version,
            List<String> libraries,
            List<String> binaries,
            Map<String, CdiSpec.DeviceNode> deviceNodes,
            Map<String, Integer> migCapMinors,
            Map<String, Integer> characterMajors,
            Map<String, String> sonameLinks,
            Map<String, String> realFiles) {
        this(
                root,
                version,
                libraries,
                binaries,
                deviceNodes,
                migCapMinors,
                characterMajors,
                sonameLinks,
                realFiles,
                List.of(),
                List.of(),
                List.of(),
                Map.of());
    }

    /** Without soname links, every file a real one. */
    public DriverFiles(
            String root,
            String version,
            List<String> libraries,
            List<String> binaries,
            Map<String, CdiSpec.DeviceNode> deviceNodes,
            Map<String, Integer> migCapMinors,
            Map<String, Integer> characterMajors) {
        this(
                root,
                version,
                libraries,
                binaries,
                deviceNodes,
                migCapMinors,
                characterMajors,
                Map.of(),
                Map.of());
    }

    /** Without character majors. */
    public DriverFiles(
            String root,
            String version,
            List<String> libraries,
            List<String> binaries,
            Map<String, CdiSpec.DeviceNode> deviceNodes,
            Map<String, Integer> migCapMinors) {
        this(root, version, libraries, binaries, deviceNodes, migCapMinors, Map.of());
    }

    /**
     * The {@code /dev/dri/by-path} form of a PCI bus id: NVML's {@code 00000000:17:00.0} → {@code
     * 0000:17:00.0} (4-digit domain, lower case).
     */
    public static String busId(String pciBusId) {
        String id = pciBusId.toLowerCase(java.util.Locale.ROOT);
        int colon = id.indexOf(':');
        if (colon < 0 || id.indexOf(':', colon + 1) < 0) {
            return id;
        }
        try {
            return "%04x".formatted(Long.parseLong(id.substring(0, colon), 16))
                    + id.substring(colon);
        } catch (NumberFormatException e) {
            return id;
        }
    }

    /**
     * The host's path of a file the container sees at {@code containerPath}: its real file (the end
     * of its links, read in the driver root) under the driver root.
     */
    public String hostPath(String containerPath) {
        String real = realFiles.getOrDefault(containerPath, containerPath);
        return root.equals("/") ? real : root.replaceAll("/+$", "") + real;
    }
}
