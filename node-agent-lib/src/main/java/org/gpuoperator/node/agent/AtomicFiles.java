package org.gpuoperator.node.agent;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Writes a file so that a reader sees either the old content or the new one, never a part: a temp
 * file in the same directory, fsync, then rename. An existing file's mode and owner carry over to
 * the new one; a new file gets {@code rw-r--r--}, like one made with the usual umask, not the temp
 * file's owner-only mode: agents running as other users read each other's readiness files.
 */
public final class AtomicFiles {

    private static final Set<PosixFilePermission> OWNER_ONLY =
            PosixFilePermissions.fromString("rw-------");

    private AtomicFiles() {}

    public static void write(Path target, byte[] content) throws IOException {
        Path dir = target.toAbsolutePath().getParent();
        Files.createDirectories(dir);
        Path tmp;
        FileChannel created;
        do {
            tmp = dir.resolve(tempName(target));
            created = createNew(tmp);
        } while (created == null);
        try {
            try (FileChannel ch = created) {
                ByteBuffer buf = ByteBuffer.wrap(content);
                while (buf.hasRemaining()) {
                    ch.write(buf);
                }
                ch.force(true);
            }
            copyOwnerAndMode(target, tmp);
            try {
                Files.move(
                        tmp,
                        target,
                        StandardCopyOption.ATOMIC_MOVE,
                        StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(tmp, target, StandardCopyOption.REPLACE_EXISTING);
            }
            fsyncDirectory(dir);
        } finally {
            Files.deleteIfExists(tmp);
        }
    }

    /**
     * {@code .<name>.<random>.tmp}, as {@link Files#createTempFile} would name it, but random from
     * ThreadLocalRandom: createTempFile's SecureRandom costs ~6 ms of an agent's start, and the
     * name needs to be unique, not secret (CREATE_NEW refuses a name that is taken).
     */
    private static String tempName(Path target) {
        return "."
                + target.getFileName()
                + "."
                + Long.toUnsignedString(ThreadLocalRandom.current().nextLong())
                + ".tmp";
    }

    /** The new file, owner-only until it is complete; null when the name is taken. */
    private static FileChannel createNew(Path tmp) throws IOException {
        try {
            return FileChannel.open(
                    tmp,
                    Set.of(StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE),
                    PosixFilePermissions.asFileAttribute(OWNER_ONLY));
        } catch (FileAlreadyExistsException taken) {
            return null;
        }
    }

    public static void writeString(Path target, String content) throws IOException {
        write(target, content.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    private static void copyOwnerAndMode(Path from, Path to) throws IOException {
        if (!Files.exists(from, LinkOption.NOFOLLOW_LINKS)) {
            PosixFileAttributeView dst =
                    Files.getFileAttributeView(to, PosixFileAttributeView.class);
            if (dst != null) {
                dst.setPermissions(PosixFilePermissions.fromString("rw-r--r--"));
            }
            return;
        }
        PosixFileAttributeView src = Files.getFileAttributeView(from, PosixFileAttributeView.class);
        PosixFileAttributeView dst = Files.getFileAttributeView(to, PosixFileAttributeView.class);
        if (src == null || dst == null) {
            return;
        }
        PosixFileAttributes a = src.readAttributes();
        dst.setPermissions(a.permissions());
        try {
            dst.setOwner(a.owner());
            dst.setGroup(a.group());
        } catch (IOException | UnsupportedOperationException notRoot) {
            // Only root can give a file away; a non-root agent keeps its own ownership.
        }
    }

    private static void fsyncDirectory(Path dir) {
        try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
            ch.force(true);
        } catch (IOException ignored) {
            // Some filesystems refuse to open directories; the rename is still atomic.
        }
    }
}
