package org.gpuoperator.toolkit.install;

/**
 * The real NVIDIA container runtime's own config, written to {@code <install
 * dir>/.config/nvidia-container-runtime/config.toml} (the wrappers set {@code XDG_CONFIG_HOME} to
 * {@code <install dir>/.config}): the driver root from driver-ready, the installed helper programs,
 * and the host's ldconfig. Upstream's keys and defaults.
 *
 * @param installDir host path of the install dir
 * @param driverRoot host path of the driver root ({@code /} for a host driver, {@code
 *     /run/nvidia/driver} for the driver container)
 * @param ldconfig host path of ldconfig ({@code @} = a path on the host, as upstream writes it)
 * @param modes the runtime's mode and CDI annotation prefixes
 */
public record NvidiaRuntimeConfig(
        String installDir, String driverRoot, String ldconfig, Modes modes) {

    /**
     * {@code [nvidia-container-runtime] mode} and {@code modes.cdi.annotation-prefixes}, from the
     * operator's {@code NVIDIA_CONTAINER_RUNTIME_MODE} and {@code
     * NVIDIA_CONTAINER_RUNTIME_MODES_CDI_ANNOTATION_PREFIXES} (upstream's names).
     *
     * @param mode {@code auto} (CDI when CDI devices are asked for, legacy otherwise), {@code cdi}
     *     or {@code legacy}
     * @param annotationPrefixes container annotations with these prefixes name CDI devices
     * @param defaultKind {@code modes.cdi.default-kind}: the kind a bare device name in {@code
     *     NVIDIA_VISIBLE_DEVICES} resolves in ({@code
     *     NVIDIA_CONTAINER_RUNTIME_MODES_CDI_DEFAULT_KIND})
     */
    public record Modes(
            String mode, java.util.List<String> annotationPrefixes, String defaultKind) {
        public static final java.util.List<String> MODES =
                java.util.List.of("auto", "cdi", "legacy");

        /** Upstream's default kind. */
        public static final String GPU_KIND = "nvidia.com/gpu";

        /** A CDI kind: {@code vendor/class}. */
        private static final java.util.regex.Pattern KIND =
                java.util.regex.Pattern.compile(
                        "[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?/[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?");

        public static final Modes DEFAULTS = new Modes("auto", java.util.List.of("cdi.k8s.io/"));

        public Modes(String mode, java.util.List<String> annotationPrefixes) {
            this(mode, annotationPrefixes, GPU_KIND);
        }

        public Modes {
            if (defaultKind == null || !KIND.matcher(defaultKind).matches()) {
                throw new IllegalArgumentException(
                        "CDI default kind must be vendor/class (e.g. nvidia.com/gpu), got '"
                                + defaultKind
                                + "'");
            }
            if (!MODES.contains(mode)) {
                throw new IllegalArgumentException(
                        "runtime mode must be one of " + MODES + ", got '" + mode + "'");
            }
            annotationPrefixes = java.util.List.copyOf(annotationPrefixes);
            if (annotationPrefixes.isEmpty()
                    || annotationPrefixes.stream().anyMatch(p -> !p.endsWith("/"))) {
                throw new IllegalArgumentException(
                        "CDI annotation prefixes must each end with '/', got "
                                + annotationPrefixes);
            }
        }
    }

    public NvidiaRuntimeConfig(String installDir, String driverRoot, String ldconfig) {
        this(installDir, driverRoot, ldconfig, Modes.DEFAULTS);
    }

    public String render() {
        return "# nvidia-container-runtime config written by toolkit-agent for driver root "
                + driverRoot
                + " (rewritten on install)\n\n"
                + "[nvidia-container-cli]\n"
                + "root = "
                + quote(driverRoot)
                + "\n"
                + "path = "
                + quote(installDir + "/nvidia-container-cli")
                + "\n"
                + "environment = []\n"
                + "ldconfig = "
                + quote("@" + ldconfig)
                + "\n"
                + "load-kmods = true\n\n"
                + "[nvidia-container-runtime]\n"
                + "mode = "
                + quote(modes.mode())
                + "\n"
                + "runtimes = [\"runc\", \"crun\"]\n\n"
                + "[nvidia-container-runtime.modes.cdi]\n"
                + "default-kind = "
                + quote(modes.defaultKind())
                + "\n"
                + "annotation-prefixes = ["
                + String.join(
                        ", ",
                        modes.annotationPrefixes().stream()
                                .map(NvidiaRuntimeConfig::quote)
                                .toList())
                + "]\n\n"
                + "[nvidia-container-runtime-hook]\n"
                + "path = "
                + quote(installDir + "/nvidia-container-runtime-hook")
                + "\n"
                + "skip-mode-detection = true\n\n"
                + "[nvidia-ctk]\n"
                + "path = "
                + quote(installDir + "/nvidia-ctk")
                + "\n";
    }

    private static String quote(String s) {
        return "\"" + s.replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
    }
}
