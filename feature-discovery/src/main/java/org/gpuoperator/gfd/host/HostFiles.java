package org.gpuoperator.gfd.host;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.gpuoperator.node.inventory.Gpu;

/**
 * The two host files GFD reads besides the GPU source, both read-only and under the host root: the
 * DMI product name (for {@code gpu.machine}) and each GPU's PCI class in sysfs (for {@code
 * gpu.mode}).
 */
public final class HostFiles {

    private final Path hostRoot;

    public HostFiles(Path hostRoot) {
        this.hostRoot = hostRoot;
    }

    /**
     * {@code path} as seen from inside the container: absolute paths are taken relative to the host
     * root.
     */
    public Path onHost(String path) {
        String relative = path.startsWith("/") ? path.substring(1) : path;
        return relative.isEmpty() ? hostRoot : hostRoot.resolve(relative);
    }

    /** The trimmed content of the machine type file, or empty when it is missing or unreadable. */
    public Optional<String> machineType(String machineTypeFile) {
        if (machineTypeFile == null || machineTypeFile.isEmpty()) {
            return Optional.empty();
        }
        try {
            return Optional.of(
                    Files.readString(onHost(machineTypeFile), StandardCharsets.UTF_8).strip());
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /**
     * The PCI class of every GPU from {@code /sys/bus/pci/devices/<domain:bus:dev.fn>/class}, e.g.
     * {@code 0x030200}; empty when any of them cannot be read (then the mode is not known, and not
     * labelled).
     */
    public List<String> pciClasses(List<Gpu> gpus) {
        List<String> classes = new ArrayList<>();
        for (Gpu g : gpus) {
            Path f = onHost("/sys/bus/pci/devices/" + sysfsBusId(g.pciBusId()) + "/class");
            try {
                classes.add(
                        Files.readString(f, StandardCharsets.US_ASCII)
                                .strip()
                                .toLowerCase(Locale.ROOT));
            } catch (IOException e) {
                return List.of();
            }
        }
        return classes;
    }

    /**
     * NVML writes an 8-digit domain ({@code 00000000:17:00.0}); sysfs uses 4 digits, lower case.
     */
    static String sysfsBusId(String nvmlBusId) {
        String id = nvmlBusId.toLowerCase(Locale.ROOT);
        int colon = id.indexOf(':');
        if (colon > 4) {
            id = id.substring(colon - 4);
        }
        return id;
    }
}
