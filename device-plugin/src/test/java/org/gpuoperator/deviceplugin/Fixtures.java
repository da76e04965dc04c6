package org.gpuoperator.deviceplugin;

import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import org.gpuoperator.node.inventory.simulated.SimulatedGpuInventory;
import org.gpuoperator.node.inventory.simulated.SimulatedProfiles;

/** Simulated GPUs for the pure tests. */
public final class Fixtures {

    public static final String NODE = "node-a";

    private Fixtures() {}

    public static SimulatedGpuInventory inventory(String profile) {
        return new SimulatedGpuInventory(
                SimulatedProfiles.builtIn().get(profile),
                NODE,
                Path.of("/nonexistent"),
                Clock.systemUTC());
    }

    public static String gpu(int i) {
        return SimulatedGpuInventory.gpuUuid(NODE, i);
    }

    public static String mig(int gpu, int gi) {
        return SimulatedGpuInventory.migUuid(NODE, gpu, gi);
    }

    public static List<String> noMigNodes(Object gpu, Object mig) {
        return List.of();
    }
}
