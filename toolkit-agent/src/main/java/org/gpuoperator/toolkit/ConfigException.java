package org.gpuoperator.toolkit;

/**
 * Bad input or an unsafe result: the message names the file (and line where known); nothing was
 * written.
 */
public class ConfigException extends Exception {
    public ConfigException(String message) {
        super(message);
    }

    public ConfigException(String message, Throwable cause) {
        super(message, cause);
    }
}
