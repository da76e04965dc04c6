package org.gpuoperator.node.inventory;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/**
 * The options every node agent shares to choose its GPU source. Mixed into each agent's command
 * line, so the names are the same everywhere: the e2e harness and admins rely on them.
 */
public class GpuSourceOptions {

    @Option(
            names = "--gpu-source",
            defaultValue = "${env:GPU_SOURCE:-nvml}",
            paramLabel = "SOURCE",
            description =
                    "nvml (default) or simulated:<profile>, e.g. simulated:h100-80gb-x8. Env: GPU_SOURCE.")
    String gpuSource;

    @Option(
            names = "--host-root",
            defaultValue = "${env:HOST_ROOT:-/}",
            paramLabel = "DIR",
            description = "Where the host's filesystem is mounted (default /). Env: HOST_ROOT.")
    Path hostRoot;

    @Option(
            names = "--node-name",
            defaultValue = "${env:NODE_NAME}",
            paramLabel = "NAME",
            description = "This node's name (default: the host name). Env: NODE_NAME.")
    String nodeName;

    @Option(
            names = "--simulated-profiles",
            defaultValue = "${env:GPU_SIM_PROFILES}",
            paramLabel = "FILE",
            description =
                    "Extra simulated GPU profiles (YAML), added to the built-in ones. Env: GPU_SIM_PROFILES.")
    Path simulatedProfiles;

    @Option(
            names = "--nvml-library",
            defaultValue = "${env:NVML_LIBRARY}",
            paramLabel = "FILE",
            description =
                    "Load exactly this libnvidia-ml.so.1 instead of searching the host root. Env: NVML_LIBRARY.")
    Path nvmlLibrary;

    public GpuSource source() {
        return GpuSource.parse(gpuSource);
    }

    public Path hostRoot() {
        return hostRoot;
    }

    public String nodeName() {
        if (nodeName != null && !nodeName.isBlank()) {
            return nodeName;
        }
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (UnknownHostException e) {
            return "localhost";
        }
    }

    public Path simulatedProfiles() {
        return simulatedProfiles;
    }

    /** The NVML library file to load instead of searching, or null. */
    public Path nvmlLibrary() {
        return nvmlLibrary;
    }

    /** Opens the chosen source; the error names the source when it cannot be opened. */
    public GpuInventory open() {
        return source().open(hostRoot, nodeName(), simulatedProfiles, nvmlLibrary);
    }

    /** Opens the chosen source's MIG partitioner; see {@link GpuSource#openPartitioner}. */
    public MigPartitioner openPartitioner() {
        return source().openPartitioner(hostRoot, nodeName(), simulatedProfiles, nvmlLibrary);
    }

    /** For tests and embedding: options as if given on the command line. */
    public static GpuSourceOptions of(String gpuSource, Path hostRoot, String nodeName) {
        GpuSourceOptions o = new GpuSourceOptions();
        o.gpuSource = gpuSource;
        o.hostRoot = hostRoot;
        o.nodeName = nodeName;
        return o;
    }

    /**
     * Like {@link #of(String, Path, String)}, with extra simulated profiles and an explicit NVML
     * library.
     */
    public static GpuSourceOptions of(
            String gpuSource,
            Path hostRoot,
            String nodeName,
            Path simulatedProfiles,
            Path nvmlLibrary) {
        GpuSourceOptions o = of(gpuSource, hostRoot, nodeName);
        o.simulatedProfiles = simulatedProfiles;
        o.nvmlLibrary = nvmlLibrary;
        return o;
    }
}
