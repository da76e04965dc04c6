package org.gpuoperator.driver.install;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/** The pure parts of a module build: its command line and the check of its result. */
public final class ModuleBuild {

    private ModuleBuild() {}

    /** {@code make -C <sources> -jN SYSSRC=<kernel sources> SYSOUT=<kernel output> modules}. */
    public static List<String> makeCommand(Path moduleSources, int jobs, KernelHeaders headers) {
        return List.of(
                "make",
                "-C",
                moduleSources.toString(),
                "-j" + Math.max(1, jobs),
                "SYSSRC=" + headers.sources(),
                "SYSOUT=" + headers.output(),
                "modules");
    }

    /**
     * {@code make -C <sources> SYSSRC=… SYSOUT=… clean}: with the headers given, as the driver's
     * Makefile otherwise looks for the running kernel's in {@code /lib/modules/$(uname -r)}.
     */
    public static List<String> cleanCommand(Path moduleSources, KernelHeaders headers) {
        return List.of(
                "make",
                "-C",
                moduleSources.toString(),
                "SYSSRC=" + headers.sources(),
                "SYSOUT=" + headers.output(),
                "clean");
    }

    /**
     * Empty when {@code builtFor} (from the built {@code nvidia.ko}'s vermagic) is {@code kernel},
     * else why the build is not usable.
     */
    public static Optional<String> resultProblem(
            Path nvidiaKo, Optional<String> builtFor, String kernel, KernelHeaders headers) {
        if (builtFor.filter(kernel::equals).isPresent()) {
            return Optional.empty();
        }
        String headerDirs =
                headers.sources().equals(headers.output())
                        ? headers.output().toString()
                        : headers.output() + " (sources " + headers.sources() + ")";
        return Optional.of(
                "the build finished but "
                        + nvidiaKo
                        + builtFor.map(k -> " is for kernel " + k + ", not " + kernel)
                                .orElse(" is missing or has no vermagic")
                        + ": do the headers in "
                        + headerDirs
                        + " belong to kernel "
                        + kernel
                        + "?");
    }
}
