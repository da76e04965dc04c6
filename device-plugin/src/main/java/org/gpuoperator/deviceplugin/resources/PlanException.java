package org.gpuoperator.deviceplugin.resources;

/** The node's GPUs do not fit the configured MIG strategy or sharing. */
public final class PlanException extends RuntimeException {

    public PlanException(String message) {
        super(message);
    }
}
