package org.gpuoperator.gfd.labels;

/**
 * The node's facts or the config cannot be turned into labels; the message says why, for an admin.
 */
public class LabelException extends RuntimeException {
    public LabelException(String message) {
        super(message);
    }
}
