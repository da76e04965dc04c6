package org.gpuoperator.toolkit.simulated;

import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Whether the simulated node has a driver, decided from what driver-agent's simulated mode leaves
 * on the node, in the order the real cli meets the same facts:
 *
 * <ol>
 *   <li>the driver root ({@code nvidia-container-cli.root}, {@code /run/nvidia/driver}): the driver
 *       agent exposes its driver image there (a "bind mount", a symlink in simulation); missing =
 *       no {@code libnvidia-ml.so.1} to load;
 *   <li>the kernel module: {@code <host root>/proc/driver/nvidia/version}, written by the simulated
 *       {@code insmod nvidia} and removed by {@code rmmod} and by a simulated reboot; missing =
 *       NVML's "driver not loaded".
 * </ol>
 */
public final class DriverState {

    public static final String KERNEL_VERSION_FILE = "proc/driver/nvidia/version";

    private DriverState() {}

    public static void check(Path driverRoot, Path hostRoot) throws RuntimeRefusal {
        if (!Files.isDirectory(driverRoot)) {
            throw RuntimeRefusal.noDriverLibrary();
        }
        if (!Files.isRegularFile(hostRoot.resolve(KERNEL_VERSION_FILE))) {
            throw RuntimeRefusal.driverNotLoaded();
        }
    }
}
