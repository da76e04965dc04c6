package org.gpuoperator.node.cdi;

/** A CDI spec that cannot be read or a device name that does not resolve; the message says why. */
public class CdiException extends Exception {

    public CdiException(String message) {
        super(message);
    }

    public CdiException(String message, Throwable cause) {
        super(message, cause);
    }
}
