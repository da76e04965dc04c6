package org.gpuoperator.driver.host;

import java.util.List;

/**
 * A host command failed. The message holds what an admin needs without digging: the command line,
 * the exit code (or the timeout) and the last lines it wrote to stderr.
 */
public class CommandFailedException extends RuntimeException {

    /** How many stderr lines the message keeps. */
    public static final int STDERR_LINES = 5;

    private final transient CommandResult result;

    public CommandFailedException(CommandResult result) {
        super(describe(result));
        this.result = result;
    }

    public CommandResult result() {
        return result;
    }

    static String describe(CommandResult r) {
        StringBuilder sb = new StringBuilder();
        if (r.timedOut()) {
            sb.append("command timed out after ")
                    .append(r.elapsed().toMillis())
                    .append(" ms and was killed: ");
        } else if (r.exitCode() == CommandResult.NOT_STARTED) {
            sb.append("command could not be run (exit 127): ");
        } else {
            sb.append("command failed with exit code ").append(r.exitCode()).append(": ");
        }
        sb.append(r.commandLine());
        List<String> tail = r.lastErrorLines(STDERR_LINES);
        if (!tail.isEmpty()) {
            sb.append("; last output: ").append(String.join(" | ", tail));
        }
        return sb.toString();
    }
}
