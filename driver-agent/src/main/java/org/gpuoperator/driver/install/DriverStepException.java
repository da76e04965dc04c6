package org.gpuoperator.driver.install;

/**
 * One step of making the driver usable failed; the message says which, why, and what would fix it.
 */
public class DriverStepException extends RuntimeException {

    /** The steps, in the order the agent runs them. */
    public enum Step {
        DETECT,
        KERNEL,
        SELECT,
        BUILD,
        UNLOAD,
        LOAD,
        DEVICES,
        PERSISTENCED,
        EXPOSE,
        VERIFY
    }

    private final Step step;

    public DriverStepException(Step step, String message) {
        super(message);
        this.step = step;
    }

    public DriverStepException(Step step, String message, Throwable cause) {
        super(message, cause);
        this.step = step;
    }

    public Step step() {
        return step;
    }
}
