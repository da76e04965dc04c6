package org.gpuoperator.gfd.labels;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.regex.Pattern;
import org.gpuoperator.node.deviceconfig.MigStrategy;
import org.gpuoperator.node.inventory.Gpu;

/**
 * The {@code nvidia.com/*} labels GPU feature discovery publishes for a node: a pure function of
 * the node's facts, the MIG strategy and sharing settings, and the timestamp. Keys and value
 * formats are upstream GFD's.
 */
public final class GfdLabels {

    public static final String GPU = "nvidia.com/gpu";
    public static final String TIMESTAMP = "nvidia.com/gfd.timestamp";
    static final String MACHINE_UNKNOWN = "unknown";

    private GfdLabels() {}

    /**
     * Computes the labels.
     *
     * @param timestamp when present, {@code gfd.timestamp} (unix seconds); absent with {@code
     *     --no-timestamp}
     * @param warnings receives one line per thing worth telling an admin (several GPU models,
     *     unknown MIG engines)
     * @throws LabelException when the facts cannot be labelled (a driver version that is not {@code
     *     X.Y[.Z]}, a MIG device whose parent GPU is not listed)
     */
    public static SortedMap<String, String> compute(
            NodeFacts facts,
            LabelConfig config,
            Optional<Instant> timestamp,
            Consumer<String> warnings) {
        SortedMap<String, String> labels = new TreeMap<>();
        timestamp.ifPresent(t -> labels.put(TIMESTAMP, Long.toString(t.getEpochSecond())));
        List<Gpu> gpus = facts.gpus();
        if (gpus.isEmpty()) {
            return labels;
        }
        String machine = facts.machineType().map(ProductNames::sanitise).orElse(MACHINE_UNKNOWN);
        labels.put("nvidia.com/gpu.machine", machine);
        labels.putAll(
                versionLabels(
                        facts.driver().driverVersion(),
                        facts.driver().cudaMajor(),
                        facts.driver().cudaMinor()));
        labels.put(
                "nvidia.com/mig.capable",
                Boolean.toString(gpus.stream().anyMatch(g -> g.mig().capable())));
        labels.put("nvidia.com/mps.capable", Boolean.toString(mpsCapable(gpus, config, warnings)));
        gpuMode(facts.pciClasses()).ifPresent(m -> labels.put("nvidia.com/gpu.mode", m));

        labels.putAll(fullGpuLabels(gpus, config.sharing(), warnings));
        if (config.migStrategy() != MigStrategy.NONE) {
            labels.put("nvidia.com/mig.strategy", config.migStrategy().value());
            labels.putAll(
                    config.migStrategy() == MigStrategy.SINGLE
                            ? singleStrategyLabels(gpus, config.sharing(), warnings)
                            : mixedStrategyLabels(gpus, config.sharing()));
        }
        dropInvalidValues(labels, warnings);
        return labels;
    }

    /**
     * Upstream's label: true when the config shares through MPS, which is what schedules the MPS
     * control daemon here. A GPU in MIG mode cannot serve MPS (the device plugin refuses such a
     * config), so it is false then, with a warning.
     */
    private static boolean mpsCapable(
            List<Gpu> gpus, LabelConfig config, Consumer<String> warnings) {
        if (config.sharing().strategy() != Sharing.Strategy.MPS) {
            return false;
        }
        for (Gpu g : gpus) {
            if (g.mig().enabled()) {
                warnings.accept(
                        "sharing.mps: GPU "
                                + g.index()
                                + " is in MIG mode; MPS shares whole GPUs only, so"
                                + " nvidia.com/mps.capable is false");
                return false;
            }
        }
        return true;
    }

    private static final Pattern LABEL_VALUE =
            Pattern.compile("(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?");

    /**
     * Kubernetes refuses a whole update when one label value is invalid (over 63 characters, or not
     * starting and ending with an alphanumeric), so such a value is left out, with a warning,
     * rather than losing every label.
     */
    private static void dropInvalidValues(
            SortedMap<String, String> labels, Consumer<String> warnings) {
        labels.entrySet()
                .removeIf(
                        e -> {
                            boolean invalid =
                                    e.getValue().length() > 63
                                            || !LABEL_VALUE.matcher(e.getValue()).matches();
                            if (invalid) {
                                warnings.accept(
                                        "label "
                                                + e.getKey()
                                                + " left out: value '"
                                                + e.getValue()
                                                + "' is not a valid label value");
                            }
                            return invalid;
                        });
    }

    /** Driver and CUDA labels, both the deprecated and the current key families. */
    static Map<String, String> versionLabels(String driverVersion, int cudaMajor, int cudaMinor) {
        String[] parts = driverVersion.split("\\.", -1);
        if (parts.length < 2 || parts.length > 3) {
            throw new LabelException(
                    "driver version \"" + driverVersion + "\" does not match format \"X.Y[.Z]\"");
        }
        String major = parts[0];
        String minor = parts[1];
        String rev = parts.length > 2 ? parts[2] : "";
        Map<String, String> l = new LinkedHashMap<>();
        l.put("nvidia.com/cuda.driver.major", major);
        l.put("nvidia.com/cuda.driver.minor", minor);
        l.put("nvidia.com/cuda.driver.rev", rev);
        l.put("nvidia.com/cuda.runtime.major", Integer.toString(cudaMajor));
        l.put("nvidia.com/cuda.runtime.minor", Integer.toString(cudaMinor));
        l.put("nvidia.com/cuda.driver-version.major", major);
        l.put("nvidia.com/cuda.driver-version.minor", minor);
        l.put("nvidia.com/cuda.driver-version.revision", rev);
        l.put("nvidia.com/cuda.driver-version.full", driverVersion);
        l.put("nvidia.com/cuda.runtime-version.major", Integer.toString(cudaMajor));
        l.put("nvidia.com/cuda.runtime-version.minor", Integer.toString(cudaMinor));
        l.put("nvidia.com/cuda.runtime-version.full", cudaMajor + "." + cudaMinor);
        return l;
    }

    /**
     * {@code compute} for 3D controllers (0x0302), {@code graphics} for VGA (0x0300), else {@code
     * unknown}.
     */
    static Optional<String> gpuMode(List<String> pciClasses) {
        if (pciClasses.isEmpty()) {
            return Optional.empty();
        }
        String first = pciClasses.getFirst();
        if (pciClasses.stream().anyMatch(c -> !c.equals(first))) {
            return Optional.of("unknown");
        }
        return Optional.of(
                switch (first) {
                    case "0x030200" -> "compute";
                    case "0x030000" -> "graphics";
                    default -> "unknown";
                });
    }

    /**
     * {@code nvidia.com/gpu.*} for whole GPUs, one model's labels per node. MIG-enabled GPUs are
     * labelled without sharing information (replicas 0); GPUs in full-GPU mode override a
     * MIG-enabled model of the same name.
     */
    private static Map<String, String> fullGpuLabels(
            List<Gpu> gpus, Sharing sharing, Consumer<String> warnings) {
        Map<String, Integer> counts = new TreeMap<>();
        Map<String, Gpu> migEnabled = new TreeMap<>();
        Map<String, Gpu> full = new TreeMap<>();
        for (Gpu g : gpus) {
            counts.merge(g.productName(), 1, Integer::sum);
            (g.mig().enabled() ? migEnabled : full).putIfAbsent(g.productName(), g);
        }
        if (counts.size() > 1) {
            warnings.accept(
                    "multiple GPU models on the node "
                            + counts.keySet()
                            + "; the labels of the model with the most GPUs are published");
        }
        Comparator<Gpu> fewestFirst =
                Comparator.comparingInt((Gpu g) -> counts.get(g.productName()))
                        .thenComparing(Gpu::productName, Comparator.reverseOrder());
        Map<String, String> labels = new TreeMap<>();
        migEnabled.values().stream()
                .sorted(fewestFirst)
                .forEach(g -> labels.putAll(fullGpu(g, counts.get(g.productName()), null)));
        full.values().stream()
                .sorted(fewestFirst)
                .forEach(g -> labels.putAll(fullGpu(g, counts.get(g.productName()), sharing)));
        return labels;
    }

    /**
     * Labels of one whole-GPU resource; a null {@code sharing} means sharing does not apply
     * (replicas 0).
     */
    private static Map<String, String> fullGpu(Gpu g, int count, Sharing sharing) {
        ResourceLabels r = new ResourceLabels(GPU, sharing);
        Map<String, String> l = r.base(count, g.productName());
        if (g.memoryMiB() != 0) {
            l.put(r.key("memory"), Long.toString(g.memoryMiB()));
        }
        int major = g.compute().major();
        if (major != 0) {
            l.put(r.key("family"), ArchFamily.of(major, g.compute().minor()));
            l.put(r.key("compute.major"), Integer.toString(major));
            l.put(r.key("compute.minor"), Integer.toString(g.compute().minor()));
        }
        return l;
    }

    /**
     * {@code single}: every GPU must have MIG enabled with devices of one profile, which are then
     * labelled as {@code nvidia.com/gpu}; anything else yields the {@code -MIG-INVALID} labels.
     * Without MIG-enabled GPUs it adds nothing (as {@code none}).
     */
    private static Map<String, String> singleStrategyLabels(
            List<Gpu> gpus, Sharing sharing, Consumer<String> warnings) {
        List<Gpu> enabled = gpus.stream().filter(g -> g.mig().enabled()).toList();
        if (enabled.isEmpty()) {
            return Map.of();
        }
        if (enabled.stream().anyMatch(g -> g.mig().devices().isEmpty())) {
            return invalidSingle(
                    enabled.getFirst(), "at least one MIG device is enabled but empty", warnings);
        }
        if (enabled.size() != gpus.size()) {
            return invalidSingle(
                    enabled.getFirst(), "devices with MIG enabled and disable detected", warnings);
        }
        Map<String, List<Gpu.MigDevice>> byProfile = migDevicesByProfile(gpus);
        if (byProfile.size() != 1) {
            return invalidSingle(
                    enabled.getFirst(), "more than one MIG device type present on node", warnings);
        }
        var only = byProfile.entrySet().iterator().next();
        return migResource(GPU, only.getKey(), only.getValue(), gpus, sharing);
    }

    private static Map<String, String> invalidSingle(
            Gpu g, String reason, Consumer<String> warnings) {
        warnings.accept("invalid configuration for mig-strategy=single: " + reason);
        ResourceLabels r = new ResourceLabels(GPU, null);
        Map<String, String> l = new TreeMap<>();
        l.put(r.key("product"), ProductNames.product(false, g.productName(), "MIG", "INVALID"));
        l.put(r.key("count"), "0");
        l.put(r.key("replicas"), "0");
        l.put(r.key("sharing-strategy"), "");
        l.put(r.key("memory"), "0");
        return l;
    }

    /**
     * {@code mixed}: one {@code nvidia.com/mig-<profile>} resource per profile; MIG-enabled GPUs
     * without devices are ignored.
     */
    private static Map<String, String> mixedStrategyLabels(List<Gpu> gpus, Sharing sharing) {
        Map<String, String> labels = new TreeMap<>();
        migDevicesByProfile(gpus)
                .forEach(
                        (profile, devices) ->
                                labels.putAll(
                                        migResource(
                                                "nvidia.com/mig-" + profile,
                                                profile,
                                                devices,
                                                gpus,
                                                sharing)));
        return labels;
    }

    private static Map<String, List<Gpu.MigDevice>> migDevicesByProfile(List<Gpu> gpus) {
        Map<String, List<Gpu.MigDevice>> byProfile = new TreeMap<>();
        for (Gpu g : gpus) {
            if (g.mig().enabled()) {
                for (Gpu.MigDevice d : g.mig().devices()) {
                    // NVML writes "1g.5gb+me"; resource names and label keys use "1g.5gb.me", as
                    // upstream.
                    byProfile
                            .computeIfAbsent(d.profile().replace('+', '.'), p -> new ArrayList<>())
                            .add(d);
                }
            }
        }
        return byProfile;
    }

    /**
     * Labels of one MIG resource, described by its first device (all devices of a profile are
     * alike).
     */
    private static Map<String, String> migResource(
            String resource,
            String profile,
            List<Gpu.MigDevice> devices,
            List<Gpu> gpus,
            Sharing sharing) {
        Gpu.MigDevice d = devices.getFirst();
        Gpu parent =
                gpus.stream()
                        .filter(g -> g.index() == d.parentIndex())
                        .findFirst()
                        .orElseThrow(
                                () ->
                                        new LabelException(
                                                "MIG device "
                                                        + d.uuid()
                                                        + " names parent GPU "
                                                        + d.parentIndex()
                                                        + ", which the inventory does not list"));
        ResourceLabels r = new ResourceLabels(resource, sharing);
        Map<String, String> l = r.base(devices.size(), parent.productName(), "MIG", profile);
        l.put(r.key("memory"), Long.toString(d.memoryMiB()));
        l.put(r.key("multiprocessors"), Integer.toString(d.multiprocessors()));
        // slices and engines as NVML reports them for the device, on any GPU model
        Gpu.MigAttributes a = d.attributes();
        l.put(r.key("slices.gi"), Integer.toString(a.gpuInstanceSlices()));
        l.put(r.key("slices.ci"), Integer.toString(a.computeInstanceSlices()));
        l.put(r.key("engines.copy"), Integer.toString(a.engines().copy()));
        l.put(r.key("engines.decoder"), Integer.toString(a.engines().decoder()));
        l.put(r.key("engines.encoder"), Integer.toString(a.engines().encoder()));
        l.put(r.key("engines.jpeg"), Integer.toString(a.engines().jpeg()));
        l.put(r.key("engines.ofa"), Integer.toString(a.engines().ofa()));
        return l;
    }

    /** Keys and shared labels of one resource ({@code <resource>.<suffix>}). */
    private record ResourceLabels(String resource, Sharing sharing) {

        String key(String suffix) {
            return resource + "." + suffix;
        }

        /** product, count, replicas and sharing-strategy. */
        Map<String, String> base(int count, String... productParts) {
            int replicas = replicas();
            boolean shared = replicas > 1;
            String strategy =
                    sharing != null && shared
                            ? sharing.strategy().label()
                            : Sharing.Strategy.NONE.label();
            boolean renamed = sharing != null && sharing.renameByDefault();
            Map<String, String> l = new TreeMap<>();
            l.put(key("product"), ProductNames.product(shared && !renamed, productParts));
            l.put(key("count"), Integer.toString(count));
            l.put(key("replicas"), Integer.toString(replicas));
            l.put(key("sharing-strategy"), strategy);
            return l;
        }

        /**
         * 0 where sharing does not apply, the configured replicas where the resource is shared,
         * else 1.
         */
        int replicas() {
            if (sharing == null) {
                return 0;
            }
            return sharing.replicasOf(resource).filter(n -> n > 0).orElse(1);
        }
    }
}
