package org.gpuoperator.deviceplugin.mps;

import java.io.IOException;
import java.util.List;
import org.gpuoperator.node.inventory.Gpu;

/**
 * The edge to CUDA's MPS control daemon: start one for a shared resource, send it commands, set a
 * GPU's compute mode. {@link NvidiaMpsControl} runs NVIDIA's {@code nvidia-cuda-mps-control};
 * {@link SimulatedMpsControl} serves simulated GPUs with the same files and lifecycle.
 */
public interface MpsControl {

    /** Upstream's health check of a running daemon, which the device plugin repeats. */
    String HEALTH_COMMAND = "get_default_active_thread_percentage";

    /** A started control daemon. */
    interface Daemon extends AutoCloseable {
        /** Asks it to quit and waits a little for it. Idempotent. */
        @Override
        void close();
    }

    /**
     * Starts the control daemon of {@code paths.resource()} for {@code gpus}, with its pipe and log
     * directories created.
     */
    Daemon start(MpsPaths paths, List<Gpu> gpus) throws IOException;

    /**
     * Sends one command to the daemon of {@code paths} and returns its reply (trimmed).
     *
     * @throws IOException when no daemon answers, naming the socket
     */
    String send(MpsPaths paths, String command) throws IOException;

    /**
     * Puts {@code gpu} into EXCLUSIVE_PROCESS compute mode, which MPS needs, or back into DEFAULT
     * when its daemon stops: left exclusive, the GPU would refuse a second process under
     * time-slicing.
     */
    void computeMode(Gpu gpu, boolean exclusiveProcess) throws IOException;

    /** The control of this GPU source: simulated GPUs get the simulated daemon. */
    static MpsControl forSource(boolean simulated) {
        return simulated ? new SimulatedMpsControl() : new NvidiaMpsControl();
    }
}
