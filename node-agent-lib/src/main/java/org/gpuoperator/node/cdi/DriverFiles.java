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
 *     Debian's {@code /etc/alternatives}); a path not here is a real file itself
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
        Map<String, String> realFiles) {

    /** The {@code /proc/devices} name of the MIG capability devices. */
    public static final String CAPS_DEVICE = "nvidia-caps";

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
     * The host's path of a file the container sees at {@code containerPath}: its real file (the end
     * of its links, read in the driver root) under the driver root.
     */
    public String hostPath(String containerPath) {
        String real = realFiles.getOrDefault(containerPath, containerPath);
        return root.equals("/") ? real : root.replaceAll("/+$", "") + real;
    }
}
