package org.gpuoperator.deviceplugin.config;

/** The configuration is invalid. The message names the file, flag or environment variable and the field. */
public final class ConfigException extends RuntimeException {

    public ConfigException(String message) {
        super(message);
    }
}
