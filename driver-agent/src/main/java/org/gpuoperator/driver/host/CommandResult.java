package org.gpuoperator.driver.host;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Collectors;

/**
 * What one host command did.
 *
 * @param argv the command line as run
 * @param exitCode its exit status (127 when it could not be started, -1 when killed on timeout)
 * @param stdout standard output (the tail when very long)
 * @param stderr standard error (the tail when very long)
 * @param timedOut whether it ran past its timeout and was killed
 * @param elapsed how long it ran
 */
public record CommandResult(
        List<String> argv,
        int exitCode,
        String stdout,
        String stderr,
        boolean timedOut,
        Duration elapsed) {

    /** Exit status of a command that could not be started, as a shell reports it. */
    public static final int NOT_STARTED = 127;

    public CommandResult {
        argv = List.copyOf(argv);
        stdout = stdout == null ? "" : stdout;
        stderr = stderr == null ? "" : stderr;
        elapsed = elapsed == null ? Duration.ZERO : elapsed;
    }

    public static CommandResult ok(List<String> argv, String stdout) {
        return new CommandResult(argv, 0, stdout, "", false, Duration.ZERO);
    }

    public static CommandResult failed(List<String> argv, int exitCode, String stderr) {
        return new CommandResult(argv, exitCode, "", stderr, false, Duration.ZERO);
    }

    public boolean succeeded() {
        return exitCode == 0 && !timedOut;
    }

    /** The command line as a person would type it (arguments with spaces or quotes are quoted). */
    public String commandLine() {
        return commandLine(argv);
    }

    public static String commandLine(List<String> argv) {
        return argv.stream().map(CommandResult::shellQuote).collect(Collectors.joining(" "));
    }

    /** The last {@code n} non-empty lines of stderr (or of stdout when stderr is empty). */
    public List<String> lastErrorLines(int n) {
        String text = stderr.isBlank() ? stdout : stderr;
        List<String> lines =
                Arrays.stream(text.split("\n"))
                        .map(String::stripTrailing)
                        .filter(l -> !l.isBlank())
                        .toList();
        return lines.subList(Math.max(0, lines.size() - n), lines.size());
    }

    private static String shellQuote(String arg) {
        if (!arg.isEmpty()
                && arg.chars()
                        .allMatch(
                                c ->
                                        Character.isLetterOrDigit(c)
                                                || "-_./=:,+@%".indexOf(c) >= 0)) {
            return arg;
        }
        return "'" + arg.replace("'", "'\\''") + "'";
    }
}
