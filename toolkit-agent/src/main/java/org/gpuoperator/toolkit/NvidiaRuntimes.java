package org.gpuoperator.toolkit;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The runtimes we register and the binaries they run, as paths on the host.
 *
 * @param installDir host path of the installed toolkit, e.g. {@code /usr/local/nvidia/toolkit}
 * @param cdi CDI on: the runtime's CRI CDI keys and annotations, the CDI specs (the three runtimes
 *     are registered either way, as upstream)
 * @param setAsDefault make {@code nvidia} the runtime's default
 * @param name the handler name ({@code nvidia}, or the policy's RuntimeClass name); the CDI and
 *     legacy runtimes are {@code <name>-cdi} and {@code <name>-legacy}, as upstream
 */
public record NvidiaRuntimes(String installDir, boolean cdi, boolean setAsDefault, String name) {

    public static final String NVIDIA = "nvidia";
    public static final String NVIDIA_CDI = "nvidia-cdi";
    public static final String NVIDIA_LEGACY = "nvidia-legacy";
    public static final List<String> ALL_NAMES = List.of(NVIDIA, NVIDIA_CDI, NVIDIA_LEGACY);
    public static final String BINARY = "nvidia-container-runtime";

    /** A handler name containerd, CRI-O, Docker and a RuntimeClass all accept (a DNS label). */
    private static final java.util.regex.Pattern NAME =
            java.util.regex.Pattern.compile("[a-z0-9]([-a-z0-9]{0,52}[a-z0-9])?");

    public NvidiaRuntimes(String installDir, boolean cdi, boolean setAsDefault) {
        this(installDir, cdi, setAsDefault, NVIDIA);
    }

    public NvidiaRuntimes {
        if (name == null || !NAME.matcher(name).matches()) {
            throw new IllegalArgumentException(
                    "runtime name must be a DNS label (lower-case letters, digits, '-'), got '"
                            + name
                            + "'");
        }
        if (!installDir.startsWith("/")) {
            throw new IllegalArgumentException(
                    "install dir must be an absolute host path, got '" + installDir + "'");
        }
        installDir =
                installDir.length() > 1 && installDir.endsWith("/")
                        ? installDir.substring(0, installDir.length() - 1)
                        : installDir;
    }

    /** Runtime name → binary, in the order they are written; all three always, as upstream. */
    public Map<String, String> binaries() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put(name, installDir + "/" + BINARY);
        m.put(name + "-cdi", installDir + "/" + BINARY + ".cdi");
        m.put(name + "-legacy", installDir + "/" + BINARY + ".legacy");
        return m;
    }

    public String binary() {
        return binaries().get(name);
    }

    /**
     * Every name we may have registered: ours, and the defaults (a previous run with another name).
     */
    public List<String> allNames() {
        List<String> all =
                new java.util.ArrayList<>(List.of(name, name + "-cdi", name + "-legacy"));
        ALL_NAMES.stream().filter(n -> !all.contains(n)).forEach(all::add);
        return List.copyOf(all);
    }

    public boolean isOurs(String runtimeName) {
        return allNames().contains(runtimeName);
    }
}
