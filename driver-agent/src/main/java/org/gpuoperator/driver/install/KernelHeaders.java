package org.gpuoperator.driver.install;

import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

/**
 * A kernel's headers as a module build needs them: {@code sources} ({@code SYSSRC}, the kernel's
 * source tree) and {@code output} ({@code SYSOUT}, the tree with its {@code .config} and generated
 * headers). One directory on most distributions; two on Debian, whose {@code
 * linux-headers-<kernel>} holds the output tree and {@code /lib/modules/<kernel>/source} links to
 * {@code linux-headers-<version>-common}.
 */
public record KernelHeaders(Path sources, Path output) {

    public KernelHeaders {
        Objects.requireNonNull(sources, "sources");
        Objects.requireNonNull(output, "output");
    }

    /** One directory that is both trees (e.g. given on the command line). */
    public static KernelHeaders of(Path dir) {
        return new KernelHeaders(dir, dir);
    }

    /** Host paths where the output tree of {@code kernel} may be, first found wins. */
    public static List<String> outputPaths(String kernel) {
        return List.of("/usr/src/linux-headers-" + kernel, "/lib/modules/" + kernel + "/build");
    }

    /** Host path of the separate source tree, where a distribution splits the headers. */
    public static String sourcePath(String kernel) {
        return "/lib/modules/" + kernel + "/source";
    }

    /** The distribution package that holds the headers of {@code kernel} (Debian, Ubuntu). */
    public static String packageName(String kernel) {
        return "linux-headers-" + kernel;
    }

    /**
     * The headers of {@code kernel}: the first output tree found, and the separate source tree when
     * there is one (as the driver's own Makefile picks them with {@code KERNEL_UNAME}), else the
     * output tree for both.
     *
     * @param directory a host path to the directory it resolves to, empty when there is none
     */
    public static Optional<KernelHeaders> find(
            String kernel, Function<String, Optional<Path>> directory) {
        Optional<Path> output =
                outputPaths(kernel).stream().map(directory).flatMap(Optional::stream).findFirst();
        return output.map(
                out -> new KernelHeaders(directory.apply(sourcePath(kernel)).orElse(out), out));
    }
}
