package org.gpuoperator.toolkit.reload;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

/**
 * The two libc calls Java has no API for: the peer PID of a unix socket ({@code SO_PEERCRED}; the
 * JDK's {@code SO_PEERCRED} option returns user and group only) and sending a signal other than
 * TERM/KILL.
 */
public final class Posix {

    public static final int SIGHUP = 1;
    private static final int AF_UNIX = 1;
    private static final int SOCK_STREAM_CLOEXEC = 1 | 0x80000;
    private static final int SOL_SOCKET = 1;
    private static final int SO_PEERCRED = 17;
    private static final int SUN_PATH_MAX = 108;

    private static final Linker LINKER = Linker.nativeLinker();
    private static final SymbolLookup LIBC = LINKER.defaultLookup();
    private static final MethodHandle SOCKET =
            handle("socket", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT));
    private static final MethodHandle CONNECT =
            handle("connect", FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT));
    private static final MethodHandle GETSOCKOPT =
            handle(
                    "getsockopt",
                    FunctionDescriptor.of(
                            JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS, ADDRESS));
    private static final MethodHandle CLOSE =
            handle("close", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
    private static final MethodHandle KILL =
            handle("kill", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT));

    private Posix() {}

    /**
     * Links the libc calls, which this class does once when it is first used (~20 ms of the FFM
     * linker's set-up): a warm-up on another thread calls it so the first real call need not.
     */
    public static void link() {}

    private static MethodHandle handle(String name, FunctionDescriptor fd) {
        return LINKER.downcallHandle(
                LIBC.find(name).orElseThrow(() -> new IllegalStateException("libc has no " + name)),
                fd);
    }

    /**
     * The PID of the process that listens on a unix socket: connect, then {@code
     * getsockopt(SO_PEERCRED)}.
     */
    public static int peerPid(Path socket) throws IOException {
        byte[] path = socket.toString().getBytes(StandardCharsets.UTF_8);
        if (path.length >= SUN_PATH_MAX) {
            throw new IOException(
                    socket + ": socket path longer than " + (SUN_PATH_MAX - 1) + " bytes");
        }
        try (Arena arena = Arena.ofConfined()) {
            int fd = (int) SOCKET.invokeExact(AF_UNIX, SOCK_STREAM_CLOEXEC, 0);
            if (fd < 0) {
                throw new IOException("socket(AF_UNIX) failed");
            }
            try {
                MemorySegment addr = arena.allocate(2 + SUN_PATH_MAX);
                addr.set(JAVA_SHORT, 0, (short) AF_UNIX);
                MemorySegment.copy(
                        path, 0, addr, java.lang.foreign.ValueLayout.JAVA_BYTE, 2, path.length);
                int rc = (int) CONNECT.invokeExact(fd, addr, 2 + path.length + 1);
                if (rc != 0) {
                    throw new IOException(socket + ": cannot connect (is the runtime running?)");
                }
                MemorySegment cred =
                        arena.allocate(12); // struct ucred { pid_t pid; uid_t uid; gid_t gid; }
                MemorySegment len = arena.allocate(JAVA_INT);
                len.set(JAVA_INT, 0, 12);
                rc = (int) GETSOCKOPT.invokeExact(fd, SOL_SOCKET, SO_PEERCRED, cred, len);
                if (rc != 0) {
                    throw new IOException(socket + ": getsockopt(SO_PEERCRED) failed");
                }
                return cred.get(JAVA_INT, 0);
            } finally {
                int ignored = (int) CLOSE.invokeExact(fd);
            }
        } catch (IOException | RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IOException("native call failed: " + t, t);
        }
    }

    /** Sends {@code signal} to {@code pid}. */
    public static void kill(int pid, int signal) throws IOException {
        int rc;
        try {
            rc = (int) KILL.invokeExact(pid, signal);
        } catch (Throwable t) {
            throw new IOException("kill(" + pid + ", " + signal + ") failed: " + t, t);
        }
        if (rc != 0) {
            throw new IOException(
                    "kill(" + pid + ", " + signal + ") failed (no such process, or not permitted)");
        }
    }
}
