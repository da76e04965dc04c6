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
 */
public record NvidiaRuntimeConfig(String installDir, String driverRoot, String ldconfig) {

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
                + "mode = \"auto\"\n"
                + "runtimes = [\"runc\", \"crun\"]\n\n"
                + "[nvidia-container-runtime.modes.cdi]\n"
                + "default-kind = \"nvidia.com/gpu\"\n"
                + "annotation-prefixes = [\"cdi.k8s.io/\"]\n\n"
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
