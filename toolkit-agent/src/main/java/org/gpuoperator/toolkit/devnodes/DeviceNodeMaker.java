package org.gpuoperator.toolkit.devnodes;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.invoke.MethodHandle;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;

/** Makes a character device node; the real one calls libc's {@code mknod}. */
public interface DeviceNodeMaker {

    /**
     * @param permissions the node's mode, as {@code rw-rw-rw-}
     */
    void make(Path path, int major, int minor, String permissions) throws IOException;

    /** Mode 0666. */
    default void make(Path path, int major, int minor) throws IOException {
        make(path, major, minor, ControlDeviceNodes.WORLD_RW);
    }

    /** libc's {@code mknod(path, S_IFCHR | 0666, makedev(major, minor))}, then the mode asked. */
    DeviceNodeMaker MKNOD = new Mknod();

    /** The libc call (Java has no API to make a device node). */
    final class Mknod implements DeviceNodeMaker {
        private static final int S_IFCHR = 0020000;
        private static final Linker LINKER = Linker.nativeLinker();
        private static final MethodHandle MKNOD =
                LINKER.downcallHandle(
                        LINKER.defaultLookup()
                                .find("mknod")
                                .orElseThrow(() -> new IllegalStateException("libc has no mknod")),
                        FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_INT, JAVA_LONG),
                        Linker.Option.captureCallState("errno"));
        private static final java.lang.foreign.StructLayout CALL_STATE =
                Linker.Option.captureStateLayout();

        private Mknod() {}

        @Override
        public void make(Path path, int major, int minor, String permissions) throws IOException {
            Files.createDirectories(path.getParent());
            try (Arena arena = Arena.ofConfined()) {
                var state = arena.allocate(CALL_STATE);
                int rc =
                        (int)
                                MKNOD.invokeExact(
                                        state,
                                        arena.allocateFrom(path.toString()),
                                        S_IFCHR | 0666,
                                        makedev(major, minor));
                if (rc != 0) {
                    int errno =
                            state.get(
                                    JAVA_INT,
                                    CALL_STATE.byteOffset(
                                            java.lang.foreign.MemoryLayout.PathElement.groupElement(
                                                    "errno")));
                    throw new IOException(
                            path
                                    + ": mknod c "
                                    + major
                                    + ":"
                                    + minor
                                    + " failed (errno "
                                    + errno
                                    + ")");
                }
            } catch (IOException | RuntimeException | Error e) {
                throw e;
            } catch (Throwable t) {
                throw new IllegalStateException("mknod", t);
            }
            // mknod's mode is cut by the umask
            Files.setPosixFilePermissions(path, PosixFilePermissions.fromString(permissions));
        }

        /** glibc's {@code makedev}. Pure. */
        static long makedev(long major, long minor) {
            return ((major & 0xfffff000L) << 32)
                    | ((major & 0xfffL) << 8)
                    | ((minor & 0xffffff00L) << 12)
                    | (minor & 0xffL);
        }
    }
}
