package org.gpuoperator.gfd.publish;

import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.SortedMap;
import org.gpuoperator.node.agent.AtomicFiles;

/**
 * Writes the labels as an NFD {@code local} source file ({@code features.d}): one {@code key=value}
 * line per label, replaced atomically so NFD never reads half a file. With no path the lines go to
 * standard output (preview).
 */
public final class FeaturesFilePublisher implements LabelPublisher {

    private final Path file;
    private final PrintStream stdout;

    /**
     * @param file the output file, or null for standard output
     */
    public FeaturesFilePublisher(Path file, PrintStream stdout) {
        this.file = file;
        this.stdout = stdout;
    }

    /** The file's content for {@code labels}: sorted {@code key=value} lines. */
    public static String render(SortedMap<String, String> labels) {
        StringBuilder sb = new StringBuilder();
        for (Map.Entry<String, String> e : labels.entrySet()) {
            sb.append(e.getKey()).append('=').append(e.getValue()).append('\n');
        }
        return sb.toString();
    }

    @Override
    public Outcome publish(SortedMap<String, String> labels) {
        String content = render(labels);
        if (file == null) {
            stdout.print(content);
            stdout.flush();
            return new Outcome(true, labels.size(), 0);
        }
        try {
            if (Files.isRegularFile(file)
                    && Files.readString(file, StandardCharsets.UTF_8).equals(content)) {
                return Outcome.UNCHANGED;
            }
            boolean existed = Files.exists(file);
            AtomicFiles.writeString(file, content);
            if (!existed) {
                // A new file gets NFD's expected 0644 rather than the temp file's 0600.
                Files.setPosixFilePermissions(
                        file, java.nio.file.attribute.PosixFilePermissions.fromString("rw-r--r--"));
            }
            return new Outcome(true, labels.size(), 0);
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "cannot write output file " + file + ": " + e.getMessage(), e);
        }
    }

    /** Removes the file so that NFD drops the labels (when a daemon stops, as upstream). */
    public void remove() {
        if (file == null) {
            return;
        }
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "cannot remove output file " + file + ": " + e.getMessage(), e);
        }
    }

    @Override
    public String target() {
        return file == null ? "stdout" : "file:" + file;
    }
}
