package org.gpuoperator.e2e.images;

import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Sole use of the local images' directory while its archives are built or checked: the IT classes
 * run in two JVMs at once, every simulated cluster's start calls {@link LocalImages#buildAll}, and
 * that rewrites the base files its input digests read (and any archive whose inputs changed). A
 * file lock on {@value #FILE} keeps other processes out; a lock in this JVM keeps its other threads
 * out (the JDK refuses a second lock on one file within one JVM).
 */
final class BuildDirLock implements AutoCloseable {

    static final String FILE = ".build.lock";

    private static final ReentrantLock IN_THIS_JVM = new ReentrantLock();

    private final FileChannel channel;
    private final FileLock lock;

    private BuildDirLock(FileChannel channel, FileLock lock) {
        this.channel = channel;
        this.lock = lock;
    }

    /** Waits until no other thread or process holds {@code dir}'s lock, then holds it. */
    static BuildDirLock acquire(Path dir) throws IOException {
        Files.createDirectories(dir);
        IN_THIS_JVM.lock();
        FileChannel channel = null;
        try {
            channel =
                    FileChannel.open(
                            dir.resolve(FILE), StandardOpenOption.CREATE, StandardOpenOption.WRITE);
            return new BuildDirLock(channel, channel.lock());
        } catch (IOException | RuntimeException e) {
            if (channel != null) {
                channel.close();
            }
            IN_THIS_JVM.unlock();
            throw e;
        }
    }

    @Override
    public void close() throws IOException {
        try {
            lock.release();
            channel.close();
        } finally {
            IN_THIS_JVM.unlock();
        }
    }
}
