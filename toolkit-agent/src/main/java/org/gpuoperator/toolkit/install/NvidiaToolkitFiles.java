package org.gpuoperator.toolkit.install;

import java.util.List;

/**
 * What the image carries in {@code --toolkit-source-dir} for real GPUs, and therefore what the
 * installer requires there: the NVIDIA container runtime's programs and the libnvidia-container
 * libraries that {@code nvidia-container-cli} links against. {@code
 * images/toolkit-agent/Dockerfile} puts exactly these files there (an e2e-tests consistency test
 * compares the two lists).
 */
public final class NvidiaToolkitFiles {

    private NvidiaToolkitFiles() {}

    /** The image's directory, the default of {@code --toolkit-source-dir}. */
    public static final String SOURCE_DIR = "/artifacts/toolkit";

    /**
     * Programs: each is installed as {@code <name>.real} with a {@code <name>} wrapper that points
     * it at the install dir's config and libraries, as upstream's toolkit installs them.
     */
    public static final List<String> PROGRAMS =
            List.of(
                    "nvidia-container-runtime",
                    "nvidia-container-runtime.cdi",
                    "nvidia-container-runtime.legacy",
                    "nvidia-container-runtime-hook",
                    "nvidia-ctk",
                    "nvidia-cdi-hook",
                    "nvidia-container-cli");

    /** Shared libraries, installed as they are, found through the wrappers' LD_LIBRARY_PATH. */
    public static final List<String> LIBRARIES =
            List.of("libnvidia-container.so.1", "libnvidia-container-go.so.1");

    /** Every file the source dir must hold. */
    public static List<String> all() {
        return java.util.stream.Stream.concat(PROGRAMS.stream(), LIBRARIES.stream()).toList();
    }
}
