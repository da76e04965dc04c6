package org.gpuoperator.driver.install;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * Where the kernel modules for a kernel come from. Chosen by {@link #choose}, a pure function of
 * what is on disk, so every case is tested without a kernel.
 */
public sealed interface ModulePlan {

    /** What {@code driver-ready} and the logs call the source. */
    String source();

    /**
     * The modules the nvidia package needs are already loaded at the wanted version: nothing to do.
     */
    record AlreadyLoaded() implements ModulePlan {
        public String source() {
            return "already-loaded";
        }
    }

    /** Precompiled modules for this exact kernel. */
    record Precompiled(Path dir) implements ModulePlan {
        public String source() {
            return "precompiled";
        }
    }

    /** Modules built earlier from the driver package for this same kernel. */
    record ReuseBuilt(Path dir) implements ModulePlan {
        public String source() {
            return "built";
        }
    }

    /**
     * Build from the driver package with the kernel headers.
     *
     * @param staleKernel the kernel the modules on disk were built for, when they exist (they are
     *     cleaned first)
     */
    record Build(Path sourceDir, KernelHeaders headers, Optional<String> staleKernel)
            implements ModulePlan {
        public String source() {
            return "built";
        }
    }

    /**
     * A directory that may hold modules, and the kernel its {@code nvidia.ko} was built for (from
     * its vermagic); empty when it holds no nvidia.ko.
     */
    record Candidate(Path dir, Optional<String> builtFor) {}

    /**
     * @param kernel the kernel to load or build for: the running one ({@code uname -r}), or another
     *     installed one ({@code build-modules --kernel})
     * @param precompiled places precompiled modules may be, most specific first
     * @param built the driver package's build output
     * @param headers the kernel headers found for {@code kernel}, if any
     * @param headerPaths where headers were looked for (for the error)
     */
    static ModulePlan choose(
            String kernel,
            List<Candidate> precompiled,
            Candidate built,
            Optional<KernelHeaders> headers,
            List<String> headerPaths) {
        for (Candidate c : precompiled) {
            if (c.builtFor().filter(kernel::equals).isPresent()) {
                return new Precompiled(c.dir());
            }
        }
        if (built.builtFor().filter(kernel::equals).isPresent()) {
            return new ReuseBuilt(built.dir());
        }
        if (headers.isEmpty()) {
            String stale =
                    built.builtFor()
                            .map(k -> "; the modules on disk were built for kernel " + k)
                            .orElse("");
            throw new DriverStepException(
                    DriverStepException.Step.SELECT,
                    "no precompiled modules for kernel "
                            + kernel
                            + " and no kernel headers to build them (looked in "
                            + String.join(", ", headerPaths)
                            + ")"
                            + stale
                            + ": install "
                            + KernelHeaders.packageName(kernel)
                            + " on the node, or use a driver image with precompiled modules for "
                            + kernel);
        }
        return new Build(built.dir(), headers.get(), built.builtFor());
    }
}
