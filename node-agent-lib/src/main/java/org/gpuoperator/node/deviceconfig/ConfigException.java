package org.gpuoperator.node.deviceconfig;

/**
 * A config value is invalid. The message names where it came from: the file and field, the flag or
 * the environment variable. An {@link IllegalArgumentException}, so agents report it like any other
 * bad argument.
 */
public final class ConfigException extends IllegalArgumentException {

    public ConfigException(String message) {
        super(message);
    }
}
