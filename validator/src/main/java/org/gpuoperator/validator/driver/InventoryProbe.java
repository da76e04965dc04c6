package org.gpuoperator.validator.driver;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.gpuoperator.node.inventory.Gpu;
import org.gpuoperator.node.inventory.GpuInventory;
import org.gpuoperator.node.inventory.GpuSource;
import org.gpuoperator.node.inventory.GpuSourceOptions;

/**
 * The probe through the kit's GPU source: NVML searched under the driver root (or the exact {@code
 * --nvml-library}); the simulated source where the node is simulated, which needs the driver root
 * to exist.
 */
public final class InventoryProbe implements GpuProbe {

    private final GpuSourceOptions options;

    public InventoryProbe(GpuSourceOptions options) {
        this.options = options;
    }

    @Override
    public List<Gpu> gpus(Path driverRoot) {
        GpuSource source = options.source();
        if (source.simulated() && !Files.isDirectory(driverRoot)) {
            throw new IllegalStateException("driver root " + driverRoot + " does not exist");
        }
        Path root = source.simulated() ? options.hostRoot() : driverRoot;
        try (GpuInventory inventory =
                source.open(
                        root,
                        options.nodeName(),
                        options.simulatedProfiles(),
                        options.nvmlLibrary())) {
            return inventory.gpus();
        }
    }
}
