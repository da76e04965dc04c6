package org.gpuoperator.node.inventory;

import java.nio.file.Path;
import java.time.Clock;
import org.gpuoperator.node.inventory.nvml.NvmlGpuInventory;
import org.gpuoperator.node.inventory.nvml.NvmlMigPartitioner;
import org.gpuoperator.node.inventory.simulated.SimulatedGpuInventory;
import org.gpuoperator.node.inventory.simulated.SimulatedMigPartitioner;
import org.gpuoperator.node.inventory.simulated.SimulatedProfiles;

/**
 * Which GPU source an agent reads: {@code nvml} or {@code simulated:<profile>}. Parsed once from
 * {@code --gpu-source} / {@code GPU_SOURCE}; the only place that decides between real and simulated
 * GPUs.
 *
 * @param kind NVML or SIMULATED
 * @param profile the simulated profile name, null for NVML
 */
public record GpuSource(Kind kind, String profile) {

    public enum Kind {
        NVML,
        SIMULATED
    }

    public static final String SIMULATED_PREFIX = "simulated:";

    public static GpuSource parse(String spec) {
        if (spec == null || spec.isBlank() || spec.equals("nvml")) {
            return new GpuSource(Kind.NVML, null);
        }
        if (spec.startsWith(SIMULATED_PREFIX) && spec.length() > SIMULATED_PREFIX.length()) {
            return new GpuSource(Kind.SIMULATED, spec.substring(SIMULATED_PREFIX.length()));
        }
        throw new IllegalArgumentException(
                "invalid GPU source '"
                        + spec
                        + "': expected 'nvml' or 'simulated:<profile>' (e.g. simulated:h100-80gb-x8)");
    }

    public boolean simulated() {
        return kind == Kind.SIMULATED;
    }

    /**
     * Opens the source.
     *
     * @param hostRoot where the host's filesystem is mounted ({@code /} on the host itself)
     * @param nodeName this node's name (seeds simulated UUIDs)
     * @param profilesFile extra simulated profiles, or null
     */
    public GpuInventory open(Path hostRoot, String nodeName, Path profilesFile) {
        return open(hostRoot, nodeName, profilesFile, null);
    }

    /**
     * Opens the source.
     *
     * @param nvmlLibrary the exact {@code libnvidia-ml.so.1} to load for NVML, or null to search
     *     (and honour {@code NVML_LIBRARY})
     */
    public GpuInventory open(Path hostRoot, String nodeName, Path profilesFile, Path nvmlLibrary) {
        return switch (kind) {
            case NVML ->
                    nvmlLibrary == null
                            ? NvmlGpuInventory.open(hostRoot)
                            : NvmlGpuInventory.open(hostRoot, nvmlLibrary);
            case SIMULATED ->
                    new SimulatedGpuInventory(
                            SimulatedProfiles.withUserFile(profilesFile).get(profile),
                            nodeName,
                            hostRoot,
                            Clock.systemUTC());
        };
    }

    /**
     * Opens the source's MIG partitioner, the MIG manager's way to change the GPUs' MIG layout: for
     * NVML an {@link NvmlMigPartitioner} (MIG mode, GPU and compute instances through NVML; it
     * holds NVML open until closed), for simulated GPUs a {@link SimulatedMigPartitioner} (layout
     * files under the host root).
     *
     * @param hostRoot where the host's filesystem is mounted ({@code /} on the host itself)
     * @param nodeName this node's name
     * @param profilesFile extra simulated profiles, or null
     * @param nvmlLibrary the exact {@code libnvidia-ml.so.1} to load for NVML, or null to search
     *     (and honour {@code NVML_LIBRARY})
     */
    public MigPartitioner openPartitioner(
            Path hostRoot, String nodeName, Path profilesFile, Path nvmlLibrary) {
        return switch (kind) {
            case NVML ->
                    nvmlLibrary == null
                            ? NvmlMigPartitioner.open(hostRoot)
                            : NvmlMigPartitioner.open(hostRoot, nvmlLibrary);
            case SIMULATED ->
                    new SimulatedMigPartitioner(
                            SimulatedProfiles.withUserFile(profilesFile).get(profile),
                            nodeName,
                            hostRoot);
        };
    }

    @Override
    public String toString() {
        return kind == Kind.NVML ? "nvml" : SIMULATED_PREFIX + profile;
    }
}
