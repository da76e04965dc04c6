package org.gpuoperator.migmanager.plan;

/**
 * A named config that cannot be brought to this node's GPUs, with a message naming the source, the
 * config (and entry or field) and the GPU: {@code config.yaml: mig-configs.custom[0].mig-devices:
 * GPU 2 (NVIDIA A100-SXM4-40GB) does not offer profile '1g.10gb' (it offers ...)}.
 */
public class MigPlanException extends RuntimeException {
    public MigPlanException(String message) {
        super(message);
    }
}
