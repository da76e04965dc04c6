package org.gpuoperator.migmanager.plan;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.gpuoperator.migmanager.config.MigConfigEntry;
import org.gpuoperator.migmanager.config.MigConfigFile;
import org.gpuoperator.node.inventory.Gpu;
import org.gpuoperator.node.inventory.MigPartitioner.Layout;

/**
 * Plans a named config for a node's GPUs: a pure function, no GPU or API access.
 *
 * <p>Semantics follow mig-parted's {@code apply}: the config's entries are taken in order, each
 * applied to every GPU it selects ({@code devices} and {@code device-filter} both match), so a
 * later entry overrides an earlier one for the same GPU. A GPU no entry selects keeps its layout. A
 * GPU that is not MIG capable is passed by when selected through {@code devices: all} or with
 * {@code mig-enabled: false}, and is an error when named by index with {@code mig-enabled: true}.
 *
 * <p>Stricter than mig-parted: an index in {@code devices} that is not on the node is an error
 * (mig-parted ignores it), and a layout that needs more GPU-instance slices than the GPU has is
 * refused here, before any GPU is touched. Whether the devices also fit the GPU's placement rules
 * is NVML's to say when the layout is applied.
 */
public final class MigPlanner {

    private MigPlanner() {}

    /**
     * The desired layout of each GPU of {@code gpus} under config {@code configName} of {@code
     * file}.
     *
     * @throws MigPlanException naming the source, config, entry or field, and GPU
     */
    public static MigPlan plan(MigConfigFile file, String configName, List<GpuFacts> gpus) {
        List<MigConfigEntry> entries =
                file.config(configName)
                        .orElseThrow(
                                () ->
                                        new MigPlanException(
                                                file.source()
                                                        + ": no MIG config '"
                                                        + configName
                                                        + "' (known: "
                                                        + String.join(", ", file.names())
                                                        + ")"));
        Map<Integer, GpuFacts> byIndex = new TreeMap<>();
        for (GpuFacts gpu : gpus) {
            if (byIndex.put(gpu.index(), gpu) != null) {
                throw new IllegalArgumentException("GPU index " + gpu.index() + " given twice");
            }
        }
        String configPath = file.source() + ": mig-configs." + configName;

        Map<Integer, Layout> desired = new HashMap<>();
        Map<Integer, Integer> selectedBy = new HashMap<>();
        for (int i = 0; i < entries.size(); i++) {
            MigConfigEntry entry = entries.get(i);
            String at = configPath + "[" + i + "]";
            if (entry.devices() instanceof MigConfigEntry.Indices(List<Integer> indices)) {
                for (int index : indices) {
                    if (!byIndex.containsKey(index)) {
                        throw new MigPlanException(
                                at
                                        + ".devices: GPU "
                                        + index
                                        + " is not on this node (its GPUs: "
                                        + gpuList(byIndex)
                                        + ")");
                    }
                }
            }
            for (GpuFacts gpu : byIndex.values()) {
                if (!entry.devices().includes(gpu.index())
                        || !entry.matchesDeviceFilter(gpu.deviceId().orElse(null))) {
                    continue;
                }
                if (!gpu.migCapable()) {
                    if (entry.devices() instanceof MigConfigEntry.All || !entry.migEnabled()) {
                        continue; // as mig-parted: nothing to do on a GPU without MIG
                    }
                    throw new MigPlanException(
                            at
                                    + ": "
                                    + gpu.describe()
                                    + " is not MIG capable; mig-enabled: true cannot apply to it");
                }
                desired.put(gpu.index(), layout(entry, gpu, at));
                selectedBy.put(gpu.index(), i);
            }
        }

        List<GpuPlan> plans = new ArrayList<>();
        for (GpuFacts gpu : byIndex.values()) {
            Layout want = desired.getOrDefault(gpu.index(), gpu.current());
            if (sameDevices(want, gpu.current())) {
                want = gpu.current(); // same devices in another order: leave them be
            }
            Integer entry = selectedBy.get(gpu.index());
            plans.add(
                    new GpuPlan(
                            gpu.index(),
                            gpu.current(),
                            want,
                            entry == null ? OptionalInt.empty() : OptionalInt.of(entry)));
        }
        return new MigPlan(configName, plans);
    }

    /**
     * The layout {@code entry} gives {@code gpu}: its devices ordered by GPU-instance slices,
     * largest first, then by name, each profile repeated by its count. Largest first because the
     * large instances have the fewest placements; one fixed order so the same config always gives
     * the same layout.
     */
    static Layout layout(MigConfigEntry entry, GpuFacts gpu, String at) {
        if (!entry.migEnabled()) {
            return Layout.DISABLED;
        }
        String field = at + ".mig-devices";
        int slices = 0;
        for (var e : entry.migDevices().entrySet()) {
            if (e.getValue() == 0) {
                continue; // a count of 0 asks for nothing, offered or not
            }
            Gpu.MigAttributes attributes = gpu.profiles().get(e.getKey());
            if (attributes == null) {
                throw new MigPlanException(
                        field
                                + ": "
                                + gpu.describe()
                                + " does not offer profile '"
                                + e.getKey()
                                + "' (it offers "
                                + String.join(", ", gpu.profiles().keySet())
                                + ")");
            }
            slices += attributes.gpuInstanceSlices() * e.getValue();
        }
        if (slices > gpu.slices()) {
            throw new MigPlanException(
                    field
                            + ": "
                            + gpu.describe()
                            + " has "
                            + gpu.slices()
                            + " GPU-instance slices, the devices need "
                            + slices
                            + " ("
                            + entry.migDevices().entrySet().stream()
                                    .filter(e -> e.getValue() > 0)
                                    .map(e -> e.getValue() + " x " + e.getKey())
                                    .collect(Collectors.joining(", "))
                            + ")");
        }
        Comparator<String> order =
                Comparator.<String>comparingInt(p -> -gpu.profiles().get(p).gpuInstanceSlices())
                        .thenComparing(Comparator.naturalOrder());
        List<String> devices = new ArrayList<>();
        entry.migDevices().keySet().stream()
                .filter(p -> entry.migDevices().get(p) > 0)
                .sorted(order)
                .forEach(
                        p -> {
                            for (int n = 0; n < entry.migDevices().get(p); n++) {
                                devices.add(p);
                            }
                        });
        return new Layout(true, devices);
    }

    /** Same MIG mode and the same devices, in any order (mig-parted compares counts). */
    static boolean sameDevices(Layout a, Layout b) {
        return a.enabled() == b.enabled()
                && a.devices().stream()
                        .sorted()
                        .toList()
                        .equals(b.devices().stream().sorted().toList());
    }

    private static String gpuList(Map<Integer, GpuFacts> byIndex) {
        if (byIndex.isEmpty()) {
            return "none";
        }
        return byIndex.keySet().stream().map(String::valueOf).collect(Collectors.joining(", "));
    }
}
