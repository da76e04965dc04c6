package org.gpuoperator.driver.install;

import java.nio.file.Path;
import java.util.List;
import java.util.Objects;
import org.gpuoperator.driver.host.HostRoot;

/**
 * Where things are for the container driver.
 *
 * @param host the host's filesystem
 * @param installRoot the driver's own root (the driver image's {@code /}); exposed as the driver
 *     root
 * @param packageDir the driver package: {@code kernel/} sources, optional {@code
 *     precompiled/<kernel>/}
 * @param driverVersion the driver version the package holds, e.g. {@code 550.54.15}
 * @param driverRootDir where the driver root is exposed, as the agent sees it ({@code
 *     /run/nvidia/driver})
 * @param persistencedPidFile the pid file nvidia-persistenced writes
 * @param peermem whether to load nvidia-peermem (GPUDirect RDMA)
 * @param expectedGpus GPUs that must show up; 0 means as many as the kernel module bound
 * @param buildJobs parallel jobs for a module build
 */
public record DriverConfig(
        HostRoot host,
        Path installRoot,
        Path packageDir,
        String driverVersion,
        Path driverRootDir,
        Path persistencedPidFile,
        boolean peermem,
        int expectedGpus,
        int buildJobs) {

    /** The host path where the driver root is exposed, the one operands and users know. */
    public static final String DRIVER_ROOT = "/run/nvidia/driver";

    public DriverConfig {
        Objects.requireNonNull(host, "host");
        Objects.requireNonNull(installRoot, "installRoot");
        Objects.requireNonNull(packageDir, "packageDir");
        Objects.requireNonNull(driverVersion, "driverVersion");
        Objects.requireNonNull(driverRootDir, "driverRootDir");
        Objects.requireNonNull(persistencedPidFile, "persistencedPidFile");
        if (expectedGpus < 0) {
            throw new IllegalArgumentException(
                    "expected GPU count must be >= 0, got " + expectedGpus);
        }
        buildJobs = Math.max(1, buildJobs);
    }

    /** The package's kernel module sources; {@code make} leaves the built modules here. */
    public Path moduleSources() {
        return packageDir.resolve("kernel");
    }

    /** Precompiled module directories for {@code kernel}, most specific first. */
    public List<Path> precompiledDirs(String kernel) {
        return List.of(
                packageDir.resolve("precompiled").resolve(kernel),
                installRoot.resolve("lib/modules").resolve(kernel).resolve("kernel/drivers/video"));
    }

    /** Host paths where kernel headers for {@code kernel} may be. */
    public static List<String> headerPaths(String kernel) {
        return List.of("/usr/src/linux-headers-" + kernel, "/lib/modules/" + kernel + "/build");
    }
}
