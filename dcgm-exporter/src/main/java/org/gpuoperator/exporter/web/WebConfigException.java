package org.gpuoperator.exporter.web;

/** The web-config file cannot be used; the message names the file and key. */
public class WebConfigException extends RuntimeException {
    public WebConfigException(String message) {
        super(message);
    }
}
