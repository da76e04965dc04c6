package org.gpuoperator.gfd.config;

import java.nio.file.Path;

/** The config file cannot be used; the message names the file and the field or line. */
public class ConfigFileException extends RuntimeException {
    public ConfigFileException(Path file, String detail) {
        super(file + ": " + detail);
    }
}
