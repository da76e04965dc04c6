package org.gpuoperator.e2e.node;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * The process that owns a simulated cluster's work dir or a node network slot: its pid and start
 * time, so that a pid reused by another process does not count as the owner. Kept in the file
 * {@value #FILE} of every work dir; a clean-up at start touches nothing whose owner still runs.
 */
public record RunOwner(long pid, Instant start) {

    public static final String FILE = "owner";

    /** Start times read at different moments may differ by rounding (clock ticks). */
    private static final Duration SAME_START = Duration.ofSeconds(1);

    /** This JVM. */
    public static RunOwner current() {
        ProcessHandle me = ProcessHandle.current();
        return new RunOwner(me.pid(), me.info().startInstant().orElse(Instant.EPOCH));
    }

    /** {@code <pid> <start, epoch milliseconds>}. */
    public String format() {
        return pid + " " + start.toEpochMilli();
    }

    /** The owner a {@link #format()} line names, or empty for anything else. */
    public static Optional<RunOwner> parse(String text) {
        String[] parts = text == null ? new String[0] : text.strip().split("\\s+");
        if (parts.length != 2) {
            return Optional.empty();
        }
        try {
            return Optional.of(
                    new RunOwner(
                            Long.parseLong(parts[0]),
                            Instant.ofEpochMilli(Long.parseLong(parts[1]))));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }

    /** Whether a process with this pid that started at {@code started} is this owner. */
    public boolean is(long otherPid, Instant started) {
        return pid == otherPid
                && started != null
                && Duration.between(start, started).abs().compareTo(SAME_START) <= 0;
    }

    /** Whether the owner still runs on this machine. */
    public boolean alive() {
        return ProcessHandle.of(pid)
                .filter(ProcessHandle::isAlive)
                .flatMap(p -> p.info().startInstant())
                .map(s -> is(pid, s))
                .orElse(false);
    }

    /** Records this JVM as the owner of {@code workDir}. */
    public static void record(Path workDir) throws IOException {
        Files.writeString(workDir.resolve(FILE), current().format() + "\n");
    }

    /** Removes the record: a dir kept on purpose after its run ended belongs to no run. */
    public static void forget(Path workDir) {
        try {
            Files.deleteIfExists(workDir.resolve(FILE));
        } catch (IOException e) {
            // the next clean-up then removes the dir
        }
    }

    /** The owner recorded in {@code workDir}, or empty when none (or not readable). */
    public static Optional<RunOwner> of(Path workDir) {
        try {
            return parse(Files.readString(workDir.resolve(FILE)));
        } catch (IOException e) {
            return Optional.empty();
        }
    }
}
