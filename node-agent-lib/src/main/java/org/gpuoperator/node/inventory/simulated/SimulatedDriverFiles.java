package org.gpuoperator.node.inventory.simulated;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Stand-ins for a driver's user-space libraries on a simulated node: empty files with the real
 * names ({@code usr/lib/x86_64-linux-gnu/libcuda.so.<version>}, ...), laid down by the simulated
 * driver (its image root, or a pre-installed host driver) so that CDI spec generation finds and
 * lists them as on a real node.
 */
public final class SimulatedDriverFiles {

    public static final String LIBRARY_DIR = "usr/lib/x86_64-linux-gnu";

    /** The libraries a CUDA container needs first, without their {@code .so.<version>}. */
    public static final List<String> LIBRARIES =
            List.of("libcuda", "libnvidia-ml", "libnvidia-ptxjitcompiler", "libnvidia-nvvm");

    private SimulatedDriverFiles() {}

    /** Relative paths under a driver root, e.g. {@code usr/lib/x86_64-linux-gnu/libcuda.so.1.2}. */
    public static List<String> libraries(String version) {
        return LIBRARIES.stream().map(l -> LIBRARY_DIR + "/" + l + ".so." + version).toList();
    }

    /** Writes the stand-ins under {@code root} (a driver root); leaves existing files alone. */
    public static void layDown(Path root, String version) throws IOException {
        for (String lib : libraries(version)) {
            Path f = root.resolve(lib);
            if (!Files.exists(f)) {
                Files.createDirectories(f.getParent());
                Files.createFile(f);
            }
        }
    }
}
