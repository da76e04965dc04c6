package org.gpuoperator.toolkit.simulated;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.gpuoperator.node.cdi.CdiSpec;

/**
 * What libnvidia-container mounts for a legacy request ({@code NVIDIA_VISIBLE_DEVICES} ids, no
 * CDI): the loaded driver's libraries from the driver root, at their paths in the container, so
 * that NVML in the container is the node's driver (a GPU operand under the runtime class sees the
 * version it runs on). Pure apart from reading the node's files.
 */
final class LegacyDriverLibraries {

    static final String LIBRARY_DIR = "/usr/lib/x86_64-linux-gnu";

    private static final Pattern LOADED =
            Pattern.compile("Kernel Module(?: for \\S+)?\\s+(\\d+(?:\\.\\d+)+)");

    private LegacyDriverLibraries() {}

    /**
     * @param hostRoot the host's root, with its {@code /proc/driver/nvidia/version}
     * @param driverRootFiles the driver root's files (under the node root)
     * @param driverRoot the driver root as runc sees it (e.g. {@code /run/nvidia/driver})
     * @return read-only bind mounts of the driver root's {@code lib*.so.<loaded version>}; none
     *     when no module is loaded or the root has none of its libraries
     */
    static CdiSpec.ContainerEdits edits(Path hostRoot, Path driverRootFiles, String driverRoot)
            throws IOException {
        Optional<String> version = loadedVersion(hostRoot);
        Path dir = driverRootFiles.resolve(LIBRARY_DIR.substring(1));
        if (version.isEmpty() || !Files.isDirectory(dir)) {
            return CdiSpec.ContainerEdits.EMPTY;
        }
        String suffix = ".so." + version.get();
        String root = driverRoot.replaceAll("/+$", "");
        try (Stream<Path> files = Files.list(dir)) {
            List<CdiSpec.Mount> mounts =
                    files.map(f -> f.getFileName().toString())
                            .filter(n -> n.startsWith("lib") && n.endsWith(suffix))
                            .sorted()
                            .map(
                                    n ->
                                            new CdiSpec.Mount(
                                                    root + LIBRARY_DIR + "/" + n,
                                                    LIBRARY_DIR + "/" + n,
                                                    null,
                                                    List.of("ro", "nosuid", "nodev", "bind")))
                            .toList();
            return new CdiSpec.ContainerEdits(List.of(), List.of(), mounts, List.of(), List.of());
        }
    }

    /** The version in the host's {@code /proc/driver/nvidia/version}, if a module is loaded. */
    static Optional<String> loadedVersion(Path hostRoot) throws IOException {
        Path file = hostRoot.resolve(DriverState.KERNEL_VERSION_FILE);
        if (!Files.isRegularFile(file)) {
            return Optional.empty();
        }
        Matcher m = LOADED.matcher(Files.readString(file));
        return m.find() ? Optional.of(m.group(1)) : Optional.empty();
    }
}
