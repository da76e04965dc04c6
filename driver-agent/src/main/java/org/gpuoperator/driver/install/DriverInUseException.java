package org.gpuoperator.driver.install;

import java.util.List;
import org.gpuoperator.driver.host.GpuHolders;

/**
 * The nvidia modules cannot be unloaded because processes hold the GPUs; the agent retries instead
 * of exiting.
 */
public final class DriverInUseException extends DriverStepException {

    private final transient List<GpuHolders.Holder> holders;

    public DriverInUseException(String what, List<GpuHolders.Holder> holders, String detail) {
        super(
                Step.UNLOAD,
                "driver is in use, cannot "
                        + what
                        + ": "
                        + (holders.isEmpty() ? detail : "held by " + GpuHolders.describe(holders))
                        + "; stop these GPU workloads (or drain the node) and the agent continues by itself");
        this.holders = List.copyOf(holders);
    }

    public List<GpuHolders.Holder> holders() {
        return holders;
    }
}
