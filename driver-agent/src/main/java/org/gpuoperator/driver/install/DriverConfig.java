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
 * @param kernelModuleType which modules: {@code kernel-open/} or {@code kernel/} sources
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
        int buildJobs,
        KernelModuleType kernelModuleType) {

    /** With the kernel module type {@code auto}. */
    public DriverConfig(
            HostRoot host,
            Path installRoot,
            Path packageDir,
            String driverVersion,
            Path driverRootDir,
            Path persistencedPidFile,
            boolean peermem,
            int expectedGpus,
            int buildJobs) {
        this(
                host,
                installRoot,
                packageDir,
                driverVersion,
                driverRootDir,
                persistencedPidFile,
                peermem,
                expectedGpus,
                buildJobs,
                KernelModuleType.AUTO);
    }

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
        kernelModuleType = kernelModuleType == null ? KernelModuleType.AUTO : kernelModuleType;
    }

    /**
     * The package's kernel module sources of the chosen type; {@code make} leaves the built modules
     * here. {@code auto}: {@code kernel-open/} when the package has it and the branch is 560 or
     * later, else {@code kernel/}.
     */
    public Path moduleSources() {
        Path open = packageDir.resolve("kernel-open");
        return switch (kernelModuleType) {
            case OPEN -> open;
            case PROPRIETARY -> packageDir.resolve("kernel");
            case AUTO ->
                    java.nio.file.Files.isDirectory(open)
                                    && branch() >= KernelModuleType.OPEN_BY_DEFAULT_FROM
                            ? open
                            : packageDir.resolve("kernel");
        };
    }

    /** Whether the chosen sources are the open modules. */
    public boolean openModules() {
        return moduleSources().getFileName().toString().equals("kernel-open");
    }

    private int branch() {
        try {
            return Integer.parseInt(driverVersion.split("\\.")[0]);
        } catch (NumberFormatException e) {
            return 0;
        }
    }

    /** Precompiled module directories for {@code kernel}, most specific first. */
    public List<Path> precompiledDirs(String kernel) {
        return List.of(
                packageDir.resolve("precompiled").resolve(kernel),
                installRoot.resolve("lib/modules").resolve(kernel).resolve("kernel/drivers/video"));
    }
}
