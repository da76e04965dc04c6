package org.gpuoperator.exporter.counters;

/** A counters file cannot be used; the message names the file and line. */
public class CountersFileException extends RuntimeException {
    public CountersFileException(String message) {
        super(message);
    }
}
