package org.gpuoperator.e2e.images;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BuildDirLockTest {

    @TempDir Path dir;

    @Test
    void anotherThreadWaitsUntilTheHolderLetsGo() throws Exception {
        AtomicBoolean secondHeld = new AtomicBoolean();
        CountDownLatch done = new CountDownLatch(1);
        Thread second;
        try (BuildDirLock first = BuildDirLock.acquire(dir)) {
            second =
                    Thread.ofPlatform()
                            .start(
                                    () -> {
                                        try (BuildDirLock l = BuildDirLock.acquire(dir)) {
                                            secondHeld.set(true);
                                        } catch (Exception e) {
                                            throw new IllegalStateException(e);
                                        } finally {
                                            done.countDown();
                                        }
                                    });
            while (second.getState() != Thread.State.WAITING) {
                assertThat(second.isAlive()).isTrue();
                Thread.onSpinWait();
            }
            assertThat(secondHeld).isFalse();
        }
        assertThat(done.await(10, TimeUnit.SECONDS)).isTrue();
        assertThat(secondHeld).isTrue();
    }

    @Test
    void anotherProcessHoldingItKeepsThisOneOutUntilItExits() throws Exception {
        Process holder =
                new ProcessBuilder(
                                ProcessHandle.current().info().command().orElseThrow(),
                                "-cp",
                                System.getProperty("java.class.path"),
                                Holder.class.getName(),
                                dir.toString())
                        .redirectError(ProcessBuilder.Redirect.INHERIT)
                        .start();
        try {
            var out = new BufferedReader(new InputStreamReader(holder.getInputStream()));
            assertThat(out.readLine()).isEqualTo("held");
            // the OS lock on the file is the other process's
            try (FileChannel ch =
                    FileChannel.open(dir.resolve(BuildDirLock.FILE), StandardOpenOption.WRITE)) {
                FileLock mine = ch.tryLock();
                assertThat(mine).isNull();
            }
            holder.getOutputStream().close(); // the holder lets go and exits
            assertThat(holder.waitFor(30, TimeUnit.SECONDS)).isTrue();
            try (BuildDirLock l = BuildDirLock.acquire(dir)) {
                assertThat(dir.resolve(BuildDirLock.FILE)).exists();
            }
        } finally {
            holder.destroyForcibly();
        }
    }

    /** Holds the lock of {@code args[0]} until its stdin closes. */
    public static final class Holder {
        public static void main(String[] args) throws Exception {
            try (BuildDirLock l = BuildDirLock.acquire(Path.of(args[0]))) {
                System.out.println("held");
                System.out.flush();
                while (System.in.read() >= 0) {
                    // until closed
                }
            }
        }
    }
}
