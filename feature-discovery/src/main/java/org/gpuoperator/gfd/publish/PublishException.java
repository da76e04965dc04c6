package org.gpuoperator.gfd.publish;

/** The labels could not be published; the message names the object and the reason. */
public class PublishException extends RuntimeException {
    public PublishException(String message) {
        super(message);
    }

    public PublishException(String message, Throwable cause) {
        super(message, cause);
    }
}
