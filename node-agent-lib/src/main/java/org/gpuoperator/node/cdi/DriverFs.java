package org.gpuoperator.node.cdi;

import java.io.IOException;
import java.util.List;
import java.util.Optional;

/**
 * The host file system as {@link DriverDiscovery} reads it (absolute host paths). {@link HostFs} is
 * the real one; tests use it on a temp dir.
 */
public interface DriverFs {

    /** The file's bytes, empty when there is no such file. */
    Optional<byte[]> read(String path) throws IOException;

    /** Names in a directory, sorted; empty when it is not a directory. */
    List<String> list(String dir) throws IOException;

    /** Whether a regular file (or a link to one) is there. */
    boolean isFile(String path);

    /** Whether anything (a socket, a folder, a file) is there, its links followed. */
    boolean exists(String path);

    /** Whether a folder (or a link to one) is there. */
    boolean isDirectory(String path);

    /** The target of the symbolic link at {@code path} as written, empty when it is no link. */
    Optional<String> linkTarget(String path) throws IOException;

    /** The device node at {@code path} with its type and numbers, empty when there is none. */
    Optional<CdiSpec.DeviceNode> deviceNode(String path) throws IOException;
}
