package org.gpuoperator.api.validation;

import java.util.Collection;
import java.util.Objects;
import org.gpuoperator.api.v1.PolicyWarning;

/**
 * One problem found in a resource.
 *
 * @param path JSON path of the offending field, e.g. {@code
 *     spec.driver.upgradePolicy.maxParallelUpgrades} or {@code spec.driver.env[2].name}; empty when
 *     the whole document is the problem (not YAML, empty)
 * @param message what is wrong, in plain words
 * @param severity ERROR or WARNING
 */
public record ValidationProblem(String path, String message, Severity severity) {
    public ValidationProblem {
        Objects.requireNonNull(path, "path");
        Objects.requireNonNull(message, "message");
        Objects.requireNonNull(severity, "severity");
    }

    public static ValidationProblem error(String path, String message) {
        return new ValidationProblem(path, message, Severity.ERROR);
    }

    public static ValidationProblem warning(String path, String message) {
        return new ValidationProblem(path, message, Severity.WARNING);
    }

    public boolean isError() {
        return severity == Severity.ERROR;
    }

    /** Whether any of the problems is an error. */
    public static boolean anyError(Collection<ValidationProblem> problems) {
        return problems.stream().anyMatch(ValidationProblem::isError);
    }

    /** The form kept in {@code status.warnings}. */
    public PolicyWarning toPolicyWarning() {
        return new PolicyWarning(path, message);
    }

    /**
     * One line, e.g. {@code ERROR spec.mig.strategy: unknown value "auto"; expected one of none,
     * single, mixed}.
     */
    @Override
    public String toString() {
        return path.isEmpty() ? severity + " " + message : severity + " " + path + ": " + message;
    }
}
