package org.gpuoperator.controller.matrix;

/**
 * A policy field or node outside the version matrix.
 *
 * @param subject the field path ({@code spec.driver.version}) or {@code node <name>}
 */
public record MatrixWarning(String subject, String message) {
    public String line() {
        return subject + ": " + message;
    }
}
