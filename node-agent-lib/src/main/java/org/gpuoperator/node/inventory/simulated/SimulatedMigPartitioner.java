package org.gpuoperator.node.inventory.simulated;

import java.nio.file.Path;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import org.gpuoperator.node.inventory.Gpu;
import org.gpuoperator.node.inventory.GpuSourceException;
import org.gpuoperator.node.inventory.MigPartitioner;

/**
 * MIG partitioning of simulated GPUs: a layout is written to the GPU's file of {@link
 * SimulatedMigLayouts}, where every {@link SimulatedGpuInventory} on the node reads it. Refuses
 * what a real GPU refuses: MIG on a GPU that is not MIG capable, a profile the GPU does not offer,
 * more GPU instance slices than the GPU's {@value SimulatedMigLayouts#MAX_SLICES}.
 */
public final class SimulatedMigPartitioner implements MigPartitioner {

    private final SimulatedProfile profile;
    private final String nodeName;
    private final SimulatedMigLayouts layouts;

    public SimulatedMigPartitioner(SimulatedProfile profile, String nodeName, Path hostRoot) {
        this.profile = profile;
        this.nodeName = nodeName;
        this.layouts = new SimulatedMigLayouts(hostRoot);
    }

    public SimulatedMigLayouts layouts() {
        return layouts;
    }

    @Override
    public Map<String, Gpu.MigAttributes> profiles(int gpuIndex) {
        checkIndex(gpuIndex);
        if (!profile.migCapable()) {
            return Map.of();
        }
        // smallest first, so listings and error messages read the same every time
        Map<String, Gpu.MigAttributes> out = new LinkedHashMap<>();
        for (String name : SimulatedMigLayouts.profileNames(profile)) {
            out.put(name, profile.migProfiles().get(name));
        }
        return Collections.unmodifiableMap(out);
    }

    @Override
    public Layout layout(int gpuIndex) {
        checkIndex(gpuIndex);
        return layouts.current(profile, gpuIndex);
    }

    /**
     * {@inheritDoc}
     *
     * <p>A layout file that no longer parses (edited by hand) is replaced by the valid new layout,
     * as a real GPU's instances are replaced whatever they were.
     */
    @Override
    public void apply(int gpuIndex, Layout layout) {
        checkIndex(gpuIndex);
        Optional<String> bad = SimulatedMigLayouts.modeProblem(profile, layout.enabled());
        if (bad.isEmpty()) {
            bad = SimulatedMigLayouts.devicesProblem(profile, layout.devices());
        }
        if (bad.isPresent()) {
            throw new GpuSourceException(
                    "GPU " + gpuIndex + " on node " + nodeName + ": " + bad.get());
        }
        Layout now;
        try {
            now = layouts.current(profile, gpuIndex);
        } catch (GpuSourceException unreadable) {
            now = null; // replaced below
        }
        if (layout.equals(now)) {
            return; // level-triggered: nothing to change, nothing written
        }
        layouts.write(gpuIndex, layout);
    }

    private void checkIndex(int gpuIndex) {
        if (gpuIndex < 0 || gpuIndex >= profile.count()) {
            throw new GpuSourceException(
                    "GPU "
                            + gpuIndex
                            + ": no such GPU on node "
                            + nodeName
                            + " (simulated profile "
                            + profile.name()
                            + " has GPUs 0.."
                            + (profile.count() - 1)
                            + ")");
        }
    }
}
