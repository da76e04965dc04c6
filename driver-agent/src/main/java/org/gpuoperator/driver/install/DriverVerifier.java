package org.gpuoperator.driver.install;

import java.util.function.Supplier;
import org.gpuoperator.driver.install.DriverStepException.Step;
import org.gpuoperator.node.inventory.GpuInventory;
import org.gpuoperator.node.inventory.GpuSourceException;

/**
 * The driver counts as usable only when the GPU inventory (NVML) answers with the GPUs the node
 * should have and the same driver version as the loaded kernel module.
 */
public final class DriverVerifier {

    /** What verification saw. */
    public record Verified(int gpus, String driverVersion, String source) {}

    private final Supplier<GpuInventory> inventory;

    public DriverVerifier(Supplier<GpuInventory> inventory) {
        this.inventory = inventory;
    }

    /**
     * @param expectedGpus GPUs that must show up (the kernel's count or the admin's)
     * @param kernelVersion the loaded module's version, checked against NVML's
     */
    public Verified verify(int expectedGpus, String kernelVersion) {
        if (expectedGpus <= 0) {
            throw new DriverStepException(
                    Step.VERIFY,
                    "the nvidia module is loaded but bound no GPU (/proc/driver/nvidia/gpus is empty)");
        }
        try (GpuInventory inv = inventory.get()) {
            int seen = inv.gpus().size();
            String version = inv.node().driverVersion();
            if (seen != expectedGpus) {
                throw new DriverStepException(
                        Step.VERIFY,
                        inv.describe()
                                + " reports "
                                + seen
                                + " GPU(s), expected "
                                + expectedGpus
                                + ": a GPU may have fallen off the bus or failed to initialise (see dmesg)");
            }
            if (kernelVersion != null && !kernelVersion.equals(version)) {
                throw new DriverStepException(
                        Step.VERIFY,
                        "driver/library version mismatch: kernel module "
                                + kernelVersion
                                + ", "
                                + inv.describe()
                                + " "
                                + version);
            }
            return new Verified(seen, version, inv.describe());
        } catch (GpuSourceException e) {
            throw new DriverStepException(
                    Step.VERIFY, "GPU inventory unavailable: " + e.getMessage(), e);
        }
    }
}
