package org.gpuoperator.toolkit.cdihook;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.MethodHandle;
import java.nio.file.Path;

/** A read-only bind mount of one file over another, through libc's {@code mount} (FFM). */
final class BindMount {

    private static final long MS_RDONLY = 1;
    private static final long MS_NOSUID = 2;
    private static final long MS_NODEV = 4;
    private static final long MS_REMOUNT = 32;
    private static final long MS_BIND = 4096;

    private static final Linker LINKER = Linker.nativeLinker();
    private static final MethodHandle MOUNT =
            LINKER.downcallHandle(
                    LINKER.defaultLookup()
                            .find("mount")
                            .orElseThrow(() -> new IllegalStateException("libc has no mount")),
                    FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, ADDRESS, JAVA_LONG, ADDRESS),
                    Linker.Option.captureCallState("errno"));
    private static final StructLayout CALL_STATE = Linker.Option.captureStateLayout();

    private BindMount() {}

    /** Binds {@code source} over {@code target}, then makes that mount read-only. */
    static void readOnly(Path source, Path target) throws IOException {
        mount(source.toString(), target, MS_BIND);
        // the flags are ignored with MS_BIND: they need a remount of the bind
        mount(null, target, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV);
    }

    private static void mount(String source, Path target, long flags) throws IOException {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment state = arena.allocate(CALL_STATE);
            MemorySegment src = source == null ? MemorySegment.NULL : arena.allocateFrom(source);
            int rc =
                    (int)
                            MOUNT.invokeExact(
                                    state,
                                    src,
                                    arena.allocateFrom(target.toString()),
                                    MemorySegment.NULL,
                                    flags,
                                    MemorySegment.NULL);
            if (rc != 0) {
                int errno =
                        state.get(
                                JAVA_INT,
                                CALL_STATE.byteOffset(
                                        MemoryLayout.PathElement.groupElement("errno")));
                throw new IOException(
                        "mount " + source + " on " + target + " failed (errno " + errno + ")");
            }
        } catch (IOException | RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException("mount", t);
        }
    }
}
