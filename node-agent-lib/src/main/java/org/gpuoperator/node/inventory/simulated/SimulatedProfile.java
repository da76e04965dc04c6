package org.gpuoperator.node.inventory.simulated;

import java.util.List;
import java.util.Map;
import org.gpuoperator.node.inventory.Gpu;

/**
 * A named kind of simulated node: which GPUs it has and how they behave. Loaded from YAML by {@link
 * SimulatedProfiles}.
 */
public record SimulatedProfile(
        String name,
        String product,
        int count,
        long memoryMiB,
        int computeMajor,
        int computeMinor,
        String driverVersion,
        int cudaDriverVersion,
        int numaNodes,
        Topology topology,
        int nvlinks,
        double powerIdleW,
        double powerMaxW,
        int smClockMaxMHz,
        int memClockMHz,
        boolean migCapable,
        Map<String, Gpu.MigAttributes> migProfiles,
        boolean migEnabled,
        List<String> migDevices) {

    public enum Topology {
        /** every pair of GPUs is connected through NVLink (NVSwitch systems) */
        NVSWITCH,
        /**
         * PCIe only: pairs on one NUMA node share a host bridge, others cross the system
         * interconnect
         */
        PCIE
    }

    public SimulatedProfile {
        migProfiles = Map.copyOf(migProfiles);
        migDevices = List.copyOf(migDevices);
    }
}
