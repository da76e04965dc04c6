package org.gpuoperator.toolkit.install;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

/**
 * Copies a file or directory tree so that the target ends up equal to the source, touching only
 * what differs: a file with the same size and modification time is taken as equal (the copy keeps
 * the time), so a second run reads no file contents and writes nothing. Files the source no longer
 * has are removed (a stale jar would stay on the classpath). Each file is replaced by rename, so a
 * runtime starting meanwhile never reads half a jar.
 */
final class PayloadMirror {

    private PayloadMirror() {}

    /**
     * @return the target paths written or removed
     */
    static List<Path> mirror(Path source, Path target) throws IOException {
        List<Path> changed = new ArrayList<>();
        if (!Files.isDirectory(source)) {
            copyFile(source, target, changed);
            return changed;
        }
        Set<Path> wanted = new HashSet<>();
        try (Stream<Path> s = Files.walk(source)) {
            for (Path src : s.toList()) {
                Path rel = source.relativize(src);
                Path dst = target.resolve(rel.toString());
                wanted.add(dst);
                if (Files.isSymbolicLink(src)) {
                    Path link = Files.readSymbolicLink(src);
                    if (!Files.isSymbolicLink(dst) || !Files.readSymbolicLink(dst).equals(link)) {
                        deleteTree(dst);
                        Files.createDirectories(dst.getParent());
                        Files.createSymbolicLink(dst, link);
                        changed.add(dst);
                    }
                } else if (Files.isDirectory(src)) {
                    if (!Files.isDirectory(dst, LinkOption.NOFOLLOW_LINKS)) {
                        deleteTree(dst);
                        Files.createDirectories(dst);
                    }
                } else {
                    copyFile(src, dst, changed);
                }
            }
        }
        try (Stream<Path> s = Files.walk(target)) {
            for (Path extra :
                    s.sorted(Comparator.reverseOrder()).filter(p -> !wanted.contains(p)).toList()) {
                Files.deleteIfExists(extra);
                changed.add(extra);
            }
        }
        return changed;
    }

    private static void copyFile(Path src, Path dst, List<Path> changed) throws IOException {
        if (Files.isRegularFile(dst, LinkOption.NOFOLLOW_LINKS)
                && Files.size(dst) == Files.size(src)
                && Files.getLastModifiedTime(dst).equals(Files.getLastModifiedTime(src))) {
            return;
        }
        Files.createDirectories(dst.getParent());
        Path tmp = dst.resolveSibling("." + dst.getFileName() + ".tmp");
        Files.copy(
                src, tmp, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.COPY_ATTRIBUTES);
        if (Files.isDirectory(dst, LinkOption.NOFOLLOW_LINKS)) {
            deleteTree(dst);
        }
        Files.move(tmp, dst, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        changed.add(dst);
    }

    static void deleteTree(Path p) throws IOException {
        if (!Files.exists(p, LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        if (Files.isDirectory(p, LinkOption.NOFOLLOW_LINKS)) {
            try (Stream<Path> s = Files.walk(p)) {
                for (Path e : s.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(e);
                }
            }
        } else {
            Files.delete(p);
        }
    }
}
