package org.gpuoperator.node.inventory;

/**
 * The GPU source could not be opened or read. The message is meant for an admin, not a developer.
 */
public class GpuSourceException extends RuntimeException {

    public GpuSourceException(String message) {
        super(message);
    }

    public GpuSourceException(String message, Throwable cause) {
        super(message, cause);
    }
}
