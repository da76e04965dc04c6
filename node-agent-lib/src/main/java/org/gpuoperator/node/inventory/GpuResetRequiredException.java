package org.gpuoperator.node.inventory;

/**
 * A change the GPU accepted but that takes effect only after a GPU reset or a node reboot (a MIG
 * mode change left pending). The MIG manager reports it as state {@code rebooting} when it may ask
 * for a reboot, as {@code failed} otherwise.
 */
public class GpuResetRequiredException extends GpuSourceException {

    public GpuResetRequiredException(String message) {
        super(message);
    }
}
