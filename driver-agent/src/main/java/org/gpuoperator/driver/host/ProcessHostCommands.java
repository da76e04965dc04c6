package org.gpuoperator.driver.host;

import java.io.File;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * Runs host commands as real processes. Output goes to temporary files rather than pipes: a command
 * that daemonizes (nvidia-persistenced) leaves a child holding its output, and a pipe reader would
 * wait for that child forever. A command past its timeout is killed with all its descendants.
 */
public final class ProcessHostCommands implements HostCommands {

    /** Output kept per stream; the tail is what matters for errors. */
    static final int MAX_OUTPUT_BYTES = 256 * 1024;

    private static final Duration KILL_WAIT = Duration.ofSeconds(5);

    @Override
    public CommandResult run(List<String> argv, Duration timeout) {
        if (argv.isEmpty()) {
            throw new IllegalArgumentException("empty command line");
        }
        long start = System.nanoTime();
        Path out = null;
        Path err = null;
        Process process = null;
        try {
            out = Files.createTempFile("driver-agent-cmd-", ".out");
            err = Files.createTempFile("driver-agent-cmd-", ".err");
            ProcessBuilder pb =
                    new ProcessBuilder(argv)
                            .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")))
                            .redirectOutput(out.toFile())
                            .redirectError(err.toFile());
            // Stable, parseable messages from the tools whatever the container's locale.
            pb.environment().put("LC_ALL", "C");
            try {
                process = pb.start();
            } catch (IOException e) {
                return new CommandResult(
                        argv,
                        CommandResult.NOT_STARTED,
                        "",
                        "cannot run " + argv.getFirst() + ": " + e.getMessage(),
                        false,
                        Duration.ofNanos(System.nanoTime() - start));
            }
            boolean finished = process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
            if (!finished) {
                process.descendants().forEach(ProcessHandle::destroyForcibly);
                process.destroyForcibly();
                process.waitFor(KILL_WAIT.toMillis(), TimeUnit.MILLISECONDS);
            }
            return new CommandResult(
                    argv,
                    finished ? process.exitValue() : -1,
                    tail(out),
                    tail(err),
                    !finished,
                    Duration.ofNanos(System.nanoTime() - start));
        } catch (InterruptedException e) {
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
            Thread.currentThread().interrupt();
            return new CommandResult(
                    argv,
                    -1,
                    "",
                    "interrupted while waiting for the command",
                    true,
                    Duration.ofNanos(System.nanoTime() - start));
        } catch (IOException e) {
            return new CommandResult(
                    argv,
                    CommandResult.NOT_STARTED,
                    "",
                    "cannot capture output: " + e.getMessage(),
                    false,
                    Duration.ofNanos(System.nanoTime() - start));
        } finally {
            deleteQuietly(out);
            deleteQuietly(err);
        }
    }

    private static String tail(Path file) throws IOException {
        try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "r")) {
            long len = raf.length();
            long from = Math.max(0, len - MAX_OUTPUT_BYTES);
            byte[] buf = new byte[(int) (len - from)];
            raf.seek(from);
            raf.readFully(buf);
            return new String(buf, StandardCharsets.UTF_8);
        }
    }

    private static void deleteQuietly(Path p) {
        if (p != null) {
            try {
                Files.deleteIfExists(p);
            } catch (IOException ignored) {
                // a temp file left behind is harmless
            }
        }
    }
}
