package org.gpuoperator.driver;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.gpuoperator.driver.host.HostRoot;

/**
 * The content of {@code driver-ready}: what the toolkit and the device plugin need to find the
 * driver. Keys as in upstream's validator, so scripts written for it keep working. Pure functions.
 */
public final class DriverReadyFacts {

    public static final String IS_HOST_DRIVER = "IS_HOST_DRIVER";

    /** The driver root as a host path. */
    public static final String NVIDIA_DRIVER_ROOT = "NVIDIA_DRIVER_ROOT";

    /** The same root as the agents see it (under their host root mount). */
    public static final String DRIVER_ROOT_CTR_PATH = "DRIVER_ROOT_CTR_PATH";

    public static final String NVIDIA_DEV_ROOT = "NVIDIA_DEV_ROOT";
    public static final String DEV_ROOT_CTR_PATH = "DEV_ROOT_CTR_PATH";
    public static final String DRIVER_VERSION = "DRIVER_VERSION";
    public static final String GPU_COUNT = "GPU_COUNT";
    public static final String KERNEL_VERSION = "KERNEL_VERSION";
    public static final String MODULE_SOURCE = "MODULE_SOURCE";

    private DriverReadyFacts() {}

    /** A driver installed on the host: its root is the host's {@code /}. */
    public static Map<String, String> hostDriver(HostRoot host, String version, int gpus) {
        Map<String, String> f = new LinkedHashMap<>();
        f.put(IS_HOST_DRIVER, "true");
        f.put(NVIDIA_DRIVER_ROOT, "/");
        f.put(DRIVER_ROOT_CTR_PATH, host.root().toString());
        f.put(NVIDIA_DEV_ROOT, "/");
        f.put(DEV_ROOT_CTR_PATH, host.root().toString());
        f.put(DRIVER_VERSION, version);
        f.put(GPU_COUNT, Integer.toString(gpus));
        return f;
    }

    /**
     * The container driver: its root is exposed at {@code driverRootDir}; device nodes are in the
     * host's /dev.
     */
    public static Map<String, String> containerDriver(
            HostRoot host,
            Path driverRootDir,
            String version,
            int gpus,
            String kernel,
            String moduleSource) {
        Map<String, String> f = new LinkedHashMap<>();
        f.put(IS_HOST_DRIVER, "false");
        f.put(NVIDIA_DRIVER_ROOT, host.hostPathOf(driverRootDir));
        f.put(DRIVER_ROOT_CTR_PATH, driverRootDir.toAbsolutePath().normalize().toString());
        f.put(NVIDIA_DEV_ROOT, "/");
        f.put(DEV_ROOT_CTR_PATH, host.root().toString());
        f.put(DRIVER_VERSION, version);
        f.put(GPU_COUNT, Integer.toString(gpus));
        f.put(KERNEL_VERSION, kernel);
        f.put(MODULE_SOURCE, moduleSource);
        return f;
    }
}
