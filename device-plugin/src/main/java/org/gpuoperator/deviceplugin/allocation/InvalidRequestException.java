package org.gpuoperator.deviceplugin.allocation;

/** A request the plugin refuses; answered with gRPC INVALID_ARGUMENT and this message. */
public final class InvalidRequestException extends RuntimeException {

    public InvalidRequestException(String message) {
        super(message);
    }
}
