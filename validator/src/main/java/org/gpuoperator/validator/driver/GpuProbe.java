package org.gpuoperator.validator.driver;

import java.nio.file.Path;
import java.util.List;
import org.gpuoperator.node.inventory.Gpu;

/** Loads the driver's NVML from a driver root and lists the GPUs it sees. */
public interface GpuProbe {

    /**
     * @param driverRoot the driver root as this process sees it (under the host root)
     * @throws RuntimeException with a one-line message when NVML cannot be loaded or initialised
     */
    List<Gpu> gpus(Path driverRoot);
}
