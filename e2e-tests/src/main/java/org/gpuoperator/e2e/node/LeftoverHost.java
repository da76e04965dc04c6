package org.gpuoperator.e2e.node;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/** The machine as {@link StartupCleanup} sees and changes it. */
public interface LeftoverHost {

    /**
     * Processes, then {@code /tmp/gpuop-*} dirs, links, mount points, and the node network slots of
     * existing bridges that no live process holds: their locks stay taken until {@link #release()},
     * so that no run starting meanwhile takes a slot being cleaned.
     */
    LeftoverRuns.Snapshot snapshot() throws IOException;

    /** SIGKILL; false when it could not be sent (not permitted). */
    boolean kill(long pid);

    /** Whether the process is gone (or a zombie). */
    boolean gone(long pid);

    List<Path> mountPoints() throws IOException;

    void unmount(Path mountPoint) throws IOException;

    /** Deletes a network link; one that is already gone is no error. */
    void deleteLink(String name) throws IOException;

    /** Deletes a dir and everything in it, without following links. */
    void deleteDir(Path dir) throws IOException;

    /** Whether this process may do all of it (root). */
    boolean privileged();

    /** Releases the slot locks {@link #snapshot()} took. */
    void release();
}
