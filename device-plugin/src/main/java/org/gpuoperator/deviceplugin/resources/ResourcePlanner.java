package org.gpuoperator.deviceplugin.resources;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.BiFunction;
import org.gpuoperator.deviceplugin.config.PluginConfig;
import org.gpuoperator.deviceplugin.mps.MpsShare;
import org.gpuoperator.node.deviceconfig.MigStrategy;
import org.gpuoperator.node.deviceconfig.SharingConfig;
import org.gpuoperator.node.inventory.Gpu;

/**
 * Which resources the node advertises and which devices each holds: a pure function of the GPUs and
 * the config (MIG strategy, time-slicing or MPS), as upstream's device plugin names them.
 */
public final class ResourcePlanner {

    public static final String GPU_RESOURCE = "nvidia.com/gpu";
    public static final String MIG_RESOURCE_PREFIX = "nvidia.com/mig-";

    private ResourcePlanner() {}

    /**
     * Plans the resources.
     *
     * @param gpus the node's GPUs
     * @param config the effective config
     * @param migNodes capability device nodes of a MIG device (see {@link
     *     DeviceNodes#migCapabilityNodes})
     * @return the resources with at least one device: {@code nvidia.com/gpu} first, then MIG
     *     resources by name
     * @throws PlanException when the GPUs do not fit the MIG strategy, or MPS meets a GPU in MIG
     *     mode
     */
    public static List<Resource> plan(
            List<Gpu> gpus,
            PluginConfig config,
            BiFunction<Gpu, Gpu.MigDevice, List<String>> migNodes) {
        if (config.sharing().mps()) {
            for (Gpu g : gpus) {
                if (g.mig().enabled()) {
                    throw new PlanException(
                            "sharing.mps: GPU "
                                    + g.index()
                                    + " ("
                                    + g.uuid()
                                    + ") is in MIG mode; MPS shares whole GPUs only (disable MIG"
                                    + " on it, or share its MIG devices with sharing.timeSlicing)");
                }
            }
        }
        Map<String, List<PluginDevice>> byName = new LinkedHashMap<>();
        switch (config.migStrategy()) {
            case NONE -> gpus.forEach(g -> add(byName, GPU_RESOURCE, wholeGpu(g)));
            case SINGLE -> planSingle(gpus, migNodes, byName);
            case MIXED -> planMixed(gpus, migNodes, byName);
        }
        return share(byName, config.sharing(), gpus);
    }

    private static void planSingle(
            List<Gpu> gpus,
            BiFunction<Gpu, Gpu.MigDevice, List<String>> migNodes,
            Map<String, List<PluginDevice>> byName) {
        Set<Boolean> enabled = new LinkedHashSet<>();
        gpus.forEach(g -> enabled.add(g.mig().enabled()));
        if (enabled.size() > 1) {
            throw new PlanException(
                    "mig-strategy single: all devices on the node must be configured with the same "
                            + "migEnabled value");
        }
        if (!enabled.contains(Boolean.TRUE)) {
            gpus.forEach(g -> add(byName, GPU_RESOURCE, wholeGpu(g)));
            return;
        }
        Set<String> profiles = new LinkedHashSet<>();
        for (Gpu g : gpus) {
            if (g.mig().devices().isEmpty()) {
                throw new PlanException(
                        "mig-strategy single: GPU "
                                + g.index()
                                + " ("
                                + g.uuid()
                                + ") has MIG enabled but no MIG devices");
            }
            g.mig().devices().forEach(m -> profiles.add(m.profile()));
        }
        if (profiles.size() > 1) {
            throw new PlanException(
                    "mig-strategy single: more than one MIG device type present on node: "
                            + String.join(", ", profiles)
                            + " (use mig-strategy mixed)");
        }
        for (Gpu g : gpus) {
            for (Gpu.MigDevice m : g.mig().devices()) {
                add(byName, GPU_RESOURCE, migDevice(g, m, migNodes));
            }
        }
    }

    private static void planMixed(
            List<Gpu> gpus,
            BiFunction<Gpu, Gpu.MigDevice, List<String>> migNodes,
            Map<String, List<PluginDevice>> byName) {
        Map<String, List<PluginDevice>> mig = new TreeMap<>();
        for (Gpu g : gpus) {
            if (!g.mig().enabled()) {
                add(byName, GPU_RESOURCE, wholeGpu(g));
                continue;
            }
            for (Gpu.MigDevice m : g.mig().devices()) {
                String name = migResourceName(m.profile());
                mig.computeIfAbsent(name, k -> new ArrayList<>()).add(migDevice(g, m, migNodes));
            }
        }
        byName.putAll(mig);
    }

    /**
     * The GPUs in MIG mode that this config advertises whole ({@code mig-strategy none}, as
     * upstream): a pod given one sees none of its MIG devices, and under CDI the runtime refuses it
     * (the spec has no whole-GPU device for it). Pure.
     */
    public static List<Gpu> migGpusAdvertisedWhole(List<Gpu> gpus, PluginConfig config) {
        return config.migStrategy() == MigStrategy.NONE
                ? gpus.stream().filter(g -> g.mig().enabled()).toList()
                : List.of();
    }

    /**
     * {@code nvidia.com/mig-<profile>}, with {@code +} (e.g. {@code 1g.10gb+me}) written as {@code
     * .}.
     */
    public static String migResourceName(String profile) {
        return MIG_RESOURCE_PREFIX + profile.replace('+', '.');
    }

    private static PluginDevice wholeGpu(Gpu g) {
        return new PluginDevice(
                g.uuid(),
                g.uuid(),
                Integer.toString(g.index()),
                g.index(),
                g.numaNode(),
                List.of(g.devicePath()),
                -1,
                false);
    }

    /** A MIG device, indexed {@code <gpu>:<slot>} as the CDI spec and the runtime name it. */
    private static PluginDevice migDevice(
            Gpu g, Gpu.MigDevice m, BiFunction<Gpu, Gpu.MigDevice, List<String>> migNodes) {
        List<String> paths = new ArrayList<>();
        paths.add(g.devicePath());
        paths.addAll(migNodes.apply(g, m));
        return new PluginDevice(
                m.uuid(), m.uuid(), m.index(), g.index(), g.numaNode(), paths, -1, true);
    }

    private static void add(Map<String, List<PluginDevice>> byName, String name, PluginDevice d) {
        byName.computeIfAbsent(name, k -> new ArrayList<>()).add(d);
    }

    private static List<Resource> share(
            Map<String, List<PluginDevice>> byName, SharingConfig ts, List<Gpu> gpus) {
        List<Resource> out = new ArrayList<>();
        Set<String> names = new LinkedHashSet<>(byName.keySet());
        for (var e : byName.entrySet()) {
            var shared = ts.find(e.getKey());
            if (shared.isEmpty()) {
                out.add(new Resource(e.getKey(), e.getValue(), 1, false));
                continue;
            }
            String advertised = ts.advertisedName(shared.get());
            if (!advertised.equals(e.getKey()) && names.contains(advertised)) {
                throw new PlanException(
                        "sharing."
                                + (ts.mps() ? "mps" : "timeSlicing")
                                + ": "
                                + e.getKey()
                                + " would be advertised as "
                                + advertised
                                + ", which the node already advertises");
            }
            int replicas = shared.get().replicas();
            List<PluginDevice> devices = new ArrayList<>();
            for (PluginDevice d : e.getValue()) {
                for (int n = 0; n < replicas; n++) {
                    devices.add(d.withReplica(n));
                }
            }
            MpsShare mps = ts.mps() ? MpsShare.of(e.getKey(), replicas, gpus) : null;
            out.add(
                    new Resource(
                            advertised, devices, replicas, ts.failRequestsGreaterThanOne(), mps));
        }
        return out;
    }
}
