package org.gpuoperator.driver.host;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;

/**
 * The host's filesystem as the agent sees it ({@code /host} in a pod, {@code /} on the host, a temp
 * dir in tests). Host paths are written as the host knows them ({@code /lib/modules/6.8.0/build})
 * and resolved here, following absolute symlinks inside the host root rather than inside the
 * agent's container.
 */
public record HostRoot(Path root) {

    private static final int MAX_LINKS = 16;

    public HostRoot {
        root = root.toAbsolutePath().normalize();
    }

    public boolean isSlash() {
        return root.getParent() == null;
    }

    /** {@code hostPath} (absolute, as on the host) under this root, without following links. */
    public Path path(String hostPath) {
        String rel = hostPath.startsWith("/") ? hostPath.substring(1) : hostPath;
        return rel.isEmpty() ? root : root.resolve(rel);
    }

    /**
     * {@code hostPath} under this root with every symlink on the way resolved as the host would: an
     * absolute target is re-rooted here ({@code /lib/modules/K/build -> /usr/src/linux-headers-K}).
     */
    public Path resolve(String hostPath) {
        Path current = root;
        Path rel = Path.of("/").relativize(Path.of("/").resolve(hostPath).normalize());
        int links = 0;
        for (int i = 0; i < rel.getNameCount(); i++) {
            Path next = current.resolve(rel.getName(i));
            while (Files.isSymbolicLink(next) && links++ < MAX_LINKS) {
                try {
                    Path target = Files.readSymbolicLink(next);
                    next =
                            target.isAbsolute()
                                    ? path(target.toString())
                                    : next.getParent().resolve(target).normalize();
                } catch (IOException e) {
                    break;
                }
            }
            current = next;
        }
        return current;
    }

    /**
     * The host path ({@code /run/nvidia/driver}) of a path the agent sees under this root, if it is
     * under it.
     */
    public String hostPathOf(Path agentPath) {
        Path p = agentPath.toAbsolutePath().normalize();
        if (p.startsWith(root)) {
            return "/" + root.relativize(p).toString().replace('\\', '/');
        }
        return p.toString();
    }

    public boolean exists(String hostPath) {
        return Files.exists(resolve(hostPath), LinkOption.NOFOLLOW_LINKS);
    }

    @Override
    public String toString() {
        return root.toString();
    }
}
