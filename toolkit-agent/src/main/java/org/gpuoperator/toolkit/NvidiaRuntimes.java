package org.gpuoperator.toolkit;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The runtimes we register and the binaries they run, as paths on the host.
 *
 * @param installDir host path of the installed toolkit, e.g. {@code /usr/local/nvidia/toolkit}
 * @param cdi also register {@code nvidia-cdi} and {@code nvidia-legacy}
 * @param setAsDefault make {@code nvidia} the runtime's default
 */
public record NvidiaRuntimes(String installDir, boolean cdi, boolean setAsDefault) {

    public static final String NVIDIA = "nvidia";
    public static final String NVIDIA_CDI = "nvidia-cdi";
    public static final String NVIDIA_LEGACY = "nvidia-legacy";
    public static final List<String> ALL_NAMES = List.of(NVIDIA, NVIDIA_CDI, NVIDIA_LEGACY);
    public static final String BINARY = "nvidia-container-runtime";

    public NvidiaRuntimes {
        if (!installDir.startsWith("/")) {
            throw new IllegalArgumentException(
                    "install dir must be an absolute host path, got '" + installDir + "'");
        }
        installDir =
                installDir.length() > 1 && installDir.endsWith("/")
                        ? installDir.substring(0, installDir.length() - 1)
                        : installDir;
    }

    /** Runtime name → binary, in the order they are written. */
    public Map<String, String> binaries() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put(NVIDIA, installDir + "/" + BINARY);
        if (cdi) {
            m.put(NVIDIA_CDI, installDir + "/" + BINARY + ".cdi");
            m.put(NVIDIA_LEGACY, installDir + "/" + BINARY + ".legacy");
        }
        return m;
    }

    public String binary() {
        return binaries().get(NVIDIA);
    }

    public boolean isOurs(String runtimeName) {
        return ALL_NAMES.contains(runtimeName);
    }
}
