package org.gpuoperator.api.validation;

/** How bad a {@link ValidationProblem} is. */
public enum Severity {
    /** The policy cannot be applied as written. */
    ERROR,
    /**
     * The policy can be applied, but part of it is ignored (unknown, deprecated or not
     * implemented).
     */
    WARNING
}
