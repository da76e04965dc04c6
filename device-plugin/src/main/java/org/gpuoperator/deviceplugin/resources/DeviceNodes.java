package org.gpuoperator.deviceplugin.resources;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.gpuoperator.node.inventory.Gpu;

/**
 * Device nodes on the host: the MIG capability nodes of a MIG device and which of the driver's
 * control nodes exist. Read once when the resources are planned, so that Allocate stays free of
 * I/O.
 */
public final class DeviceNodes {

    /** Always passed with {@code passDeviceSpecs}. */
    public static final String CONTROL = "/dev/nvidiactl";

    /** Passed with {@code passDeviceSpecs} when present on the host. */
    public static final List<String> OPTIONAL_CONTROL =
            List.of("/dev/nvidia-uvm", "/dev/nvidia-uvm-tools", "/dev/nvidia-modeset");

    private final Path hostRoot;
    private final String devRoot;

    /**
     * @param hostRoot where the host's / is mounted
     * @param devRoot the host directory that holds {@code dev/} (the driver's dev root, usually /)
     */
    public DeviceNodes(Path hostRoot, String devRoot) {
        this.hostRoot = hostRoot;
        this.devRoot = devRoot;
    }

    /**
     * The control nodes that exist: {@code /dev/nvidiactl} always, the optional ones when the host
     * has them.
     */
    public List<String> controlNodes() {
        List<String> out = new ArrayList<>();
        out.add(CONTROL);
        for (String p : OPTIONAL_CONTROL) {
            if (Files.exists(onHost(p))) {
                out.add(p);
            }
        }
        return out;
    }

    /**
     * The capability nodes that grant access to one MIG device: from {@code
     * /proc/driver/nvidia/capabilities/gpu<minor>/mig/gi<g>/access} and {@code .../ci<c>/access}
     * ({@code DeviceFileMinor: N} -> {@code /dev/nvidia-caps/nvidia-capN}). Empty where the host
     * has no such files.
     */
    public List<String> migCapabilityNodes(Gpu parent, Gpu.MigDevice mig) {
        Path gi =
                hostRoot.resolve(
                        "proc/driver/nvidia/capabilities/gpu"
                                + parent.minorNumber()
                                + "/mig/gi"
                                + mig.gpuInstanceId());
        List<String> out = new ArrayList<>();
        capNode(gi.resolve("access")).ifPresent(out::add);
        capNode(gi.resolve("ci" + mig.computeInstanceId()).resolve("access")).ifPresent(out::add);
        return out;
    }

    private Path onHost(String devicePath) {
        String root = devRoot.endsWith("/") ? devRoot : devRoot + "/";
        return hostRoot.resolve((root + devicePath.substring(1)).substring(1));
    }

    static java.util.Optional<String> capNode(Path accessFile) {
        try {
            for (String line : Files.readAllLines(accessFile)) {
                if (line.startsWith("DeviceFileMinor:")) {
                    return java.util.Optional.of(
                            "/dev/nvidia-caps/nvidia-cap"
                                    + Integer.parseInt(
                                            line.substring("DeviceFileMinor:".length()).trim()));
                }
            }
        } catch (IOException | NumberFormatException absent) {
            // no MIG capability files (simulated node, or an older driver): the parent node is all
            // we can pass
        }
        return java.util.Optional.empty();
    }
}
