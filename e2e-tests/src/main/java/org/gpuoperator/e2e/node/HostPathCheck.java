package org.gpuoperator.e2e.node;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The kubelet's hostPath {@code type} check: pure decision from what exists at the path, and its
 * I/O edge.
 */
public final class HostPathCheck {

    public enum Kind {
        MISSING,
        DIRECTORY,
        FILE,
        SOCKET,
        CHAR_DEVICE,
        BLOCK_DEVICE,
        OTHER
    }

    /**
     * What to do before mounting: nothing, create a directory or an empty file, or fail with the
     * kubelet's message.
     */
    public sealed interface Outcome {
        record Mount() implements Outcome {}

        record CreateDirectory() implements Outcome {}

        record CreateFile() implements Outcome {}

        record Fail(String message) implements Outcome {}
    }

    private HostPathCheck() {}

    /**
     * @param type the volume's {@code hostPath.type} ("" or null: no check)
     * @param specPath the path as the pod spec names it (the kubelet's messages use it)
     * @param existing what is at that path on the node
     */
    public static Outcome decide(String type, String specPath, Kind existing) {
        String t = type == null ? "" : type;
        return switch (t) {
            case "" -> new Outcome.Mount();
            case "DirectoryOrCreate" ->
                    existing == Kind.MISSING
                            ? new Outcome.CreateDirectory()
                            : existing == Kind.DIRECTORY
                                    ? new Outcome.Mount()
                                    : fail(specPath, "is not a directory");
            case "Directory" ->
                    existing == Kind.DIRECTORY
                            ? new Outcome.Mount()
                            : fail(specPath, "is not a directory");
            case "FileOrCreate" ->
                    existing == Kind.MISSING
                            ? new Outcome.CreateFile()
                            : existing == Kind.FILE
                                    ? new Outcome.Mount()
                                    : fail(specPath, "is not a file");
            case "File" ->
                    existing == Kind.FILE ? new Outcome.Mount() : fail(specPath, "is not a file");
            case "Socket" ->
                    existing == Kind.SOCKET
                            ? new Outcome.Mount()
                            : fail(specPath, "is not a socket file");
            case "CharDevice" ->
                    existing == Kind.CHAR_DEVICE
                            ? new Outcome.Mount()
                            : fail(specPath, "is not a character device");
            case "BlockDevice" ->
                    existing == Kind.BLOCK_DEVICE
                            ? new Outcome.Mount()
                            : fail(specPath, "is not a block device");
            default -> new Outcome.Fail("hostPath type " + t + " is not supported");
        };
    }

    private static Outcome fail(String path, String what) {
        return new Outcome.Fail("hostPath type check failed: " + path + " " + what);
    }

    /** What is at {@code path} (following symlinks, as the kubelet's stat does). */
    public static Kind kindOf(Path path) {
        try {
            if (!Files.exists(path)) {
                return Kind.MISSING;
            }
            if (Files.isDirectory(path)) {
                return Kind.DIRECTORY;
            }
            if (Files.isRegularFile(path)) {
                return Kind.FILE;
            }
            int mode = (Integer) Files.getAttribute(path, "unix:mode");
            return switch (mode & 0170000) {
                case 0140000 -> Kind.SOCKET;
                case 0020000 -> Kind.CHAR_DEVICE;
                case 0060000 -> Kind.BLOCK_DEVICE;
                default -> Kind.OTHER;
            };
        } catch (IOException | UnsupportedOperationException e) {
            return Kind.OTHER;
        }
    }

    /**
     * Applies an outcome at {@code path}; returns the failure message, or null when the path can be
     * mounted.
     */
    public static String apply(Outcome outcome, Path path) throws IOException {
        switch (outcome) {
            case Outcome.Fail f -> {
                return f.message();
            }
            case Outcome.CreateDirectory c -> Files.createDirectories(path);
            case Outcome.CreateFile c -> {
                Files.createDirectories(path.getParent());
                Files.createFile(path);
            }
            case Outcome.Mount m -> {}
        }
        return null;
    }
}
