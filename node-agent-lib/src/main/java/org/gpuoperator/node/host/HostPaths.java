package org.gpuoperator.node.host;

import java.nio.file.Path;

/**
 * A host path as an agent sees it under its host root (the host's {@code /} mounted at, e.g.,
 * {@code /host}). Pure.
 */
public final class HostPaths {

    private HostPaths() {}

    /**
     * {@code absolute} without its leading slashes: a path to resolve against a host root. A loop,
     * not {@code replaceFirst("^/+", "")}, which compiles its pattern at each call, and agents call
     * it for every driver file they look up.
     */
    public static String relative(String absolute) {
        int i = 0;
        while (i < absolute.length() && absolute.charAt(i) == '/') {
            i++;
        }
        return absolute.substring(i);
    }

    /** {@code absolute} under {@code hostRoot}; the host's {@code /} is the root itself. */
    public static Path under(Path hostRoot, String absolute) {
        return hostRoot.resolve(relative(absolute));
    }
}
