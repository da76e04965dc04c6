package org.gpuoperator.node.inventory.simulated;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.gpuoperator.node.inventory.Gpu;
import org.gpuoperator.node.inventory.GpuSourceException;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/**
 * Loads simulated GPU profiles: the built-in ones, plus any from a user's file (which may override
 * by name).
 */
public final class SimulatedProfiles {

    private static final Pattern MIG_PROFILE_NAME =
            Pattern.compile("^(?:(\\d+)c\\.)?(\\d+)g\\.\\d+gb(?:\\..+)?$");

    private static final String BUILT_IN = "profiles.yaml";

    private final Map<String, SimulatedProfile> byName;

    private SimulatedProfiles(Map<String, SimulatedProfile> byName) {
        this.byName = Map.copyOf(byName);
    }

    /** The built-in profiles only. */
    public static SimulatedProfiles builtIn() {
        return withUserFile(null);
    }

    /** The built-in profiles, overridden and extended by {@code userFile} when it is not null. */
    public static SimulatedProfiles withUserFile(Path userFile) {
        Map<String, SimulatedProfile> all = new LinkedHashMap<>(BuiltIn.PROFILES);
        if (userFile != null) {
            try {
                all.putAll(parse(Files.readString(userFile), userFile.toString()));
            } catch (IOException e) {
                throw new GpuSourceException(
                        "cannot read simulated GPU profiles file " + userFile + ": " + e, e);
            }
        }
        return new SimulatedProfiles(all);
    }

    /**
     * The built-in profiles, parsed once per process: an agent opens its GPU source more than once
     * (mig-manager at start, the validator every round), and each parse of the resource cost ~20 ms
     * at a start. The user's file is read at each open: it may have changed.
     */
    private static final class BuiltIn {
        static final Map<String, SimulatedProfile> PROFILES = load();

        private static Map<String, SimulatedProfile> load() {
            try (InputStream in = SimulatedProfiles.class.getResourceAsStream(BUILT_IN)) {
                if (in == null) {
                    throw new IllegalStateException(
                            "built-in profiles resource missing: " + BUILT_IN);
                }
                return Collections.unmodifiableMap(
                        parse(
                                new String(in.readAllBytes(), StandardCharsets.UTF_8),
                                "built-in " + BUILT_IN));
            } catch (IOException e) {
                throw new GpuSourceException("cannot read built-in simulated profiles", e);
            }
        }
    }

    public SimulatedProfile get(String name) {
        SimulatedProfile p = byName.get(name);
        if (p == null) {
            throw new GpuSourceException(
                    "unknown simulated GPU profile '"
                            + name
                            + "'; known profiles: "
                            + String.join(", ", byName.keySet().stream().sorted().toList()));
        }
        return p;
    }

    public java.util.Set<String> names() {
        return byName.keySet();
    }

    /** Parses a profiles document; errors name the source and the profile and field at fault. */
    static Map<String, SimulatedProfile> parse(String yaml, String source) {
        Object doc;
        try {
            doc = new Yaml(new SafeConstructor(new LoaderOptions())).load(yaml);
        } catch (RuntimeException e) {
            throw new GpuSourceException(source + ": not valid YAML: " + e.getMessage(), e);
        }
        if (!(doc instanceof Map<?, ?> root)
                || !(root.get("profiles") instanceof Map<?, ?> profiles)) {
            throw new GpuSourceException(source + ": expected a top-level 'profiles' map");
        }
        Map<String, SimulatedProfile> out = new LinkedHashMap<>();
        for (var e : profiles.entrySet()) {
            String name = String.valueOf(e.getKey());
            if (!(e.getValue() instanceof Map<?, ?> fields)) {
                throw new GpuSourceException(source + ": profiles." + name + " must be a map");
            }
            out.put(name, toProfile(name, fields, source + ": profiles." + name));
        }
        return out;
    }

    private static SimulatedProfile toProfile(String name, Map<?, ?> f, String at) {
        String cc = str(f, "computeCapability", at);
        String[] parts = cc.split("\\.");
        if (parts.length != 2) {
            throw new GpuSourceException(
                    at + ".computeCapability: expected MAJOR.MINOR, got '" + cc + "'");
        }
        int count = integer(f, "count", at);
        if (count < 1) {
            throw new GpuSourceException(at + ".count: must be at least 1, got " + count);
        }
        Map<String, Gpu.MigAttributes> migProfiles = new LinkedHashMap<>();
        if (f.get("migProfiles") instanceof Map<?, ?> mp) {
            for (var e : mp.entrySet()) {
                String pn = String.valueOf(e.getKey());
                if (!(e.getValue() instanceof Map<?, ?> pf)) {
                    throw new GpuSourceException(at + ".migProfiles." + pn + " must be a map");
                }
                migProfiles.put(pn, migAttributes(pn, pf, at + ".migProfiles." + pn));
            }
        }
        boolean migEnabled = false;
        List<String> migDevices = new ArrayList<>();
        if (f.get("mig") instanceof Map<?, ?> mig) {
            migEnabled = Boolean.TRUE.equals(mig.get("enabled"));
            if (mig.get("devices") instanceof List<?> devs) {
                for (Object d : devs) {
                    String pn = String.valueOf(d);
                    if (!migProfiles.containsKey(pn)) {
                        throw new GpuSourceException(
                                at + ".mig.devices: unknown MIG profile '" + pn + "'");
                    }
                    migDevices.add(pn);
                }
            }
        }
        boolean migCapable = Boolean.TRUE.equals(f.get("migCapable"));
        if (migEnabled && !migCapable) {
            throw new GpuSourceException(at + ".mig.enabled: the profile is not migCapable");
        }
        int numaNodes = f.containsKey("numaNodes") ? integer(f, "numaNodes", at) : 1;
        if (numaNodes < 1) {
            throw new GpuSourceException(at + ".numaNodes: must be at least 1, got " + numaNodes);
        }
        String topology = f.containsKey("topology") ? str(f, "topology", at) : "pcie";
        SimulatedProfile.Topology topo;
        try {
            topo = SimulatedProfile.Topology.valueOf(topology.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new GpuSourceException(
                    at + ".topology: expected nvswitch or pcie, got '" + topology + "'");
        }
        return new SimulatedProfile(
                name,
                str(f, "product", at),
                count,
                integer(f, "memoryMiB", at),
                Integer.parseInt(parts[0]),
                Integer.parseInt(parts[1]),
                str(f, "driverVersion", at),
                integer(f, "cudaDriverVersion", at),
                numaNodes,
                topo,
                f.containsKey("nvlinks") ? integer(f, "nvlinks", at) : 0,
                number(f, "powerIdleW", at, 30),
                number(f, "powerMaxW", at, 300),
                (int) number(f, "smClockMaxMHz", at, 1500),
                (int) number(f, "memClockMHz", at, 1500),
                migCapable,
                Collections.unmodifiableMap(migProfiles),
                migEnabled,
                List.copyOf(migDevices));
    }

    private static String str(Map<?, ?> f, String key, String at) {
        Object v = f.get(key);
        if (v == null) {
            throw new GpuSourceException(at + "." + key + ": required");
        }
        return String.valueOf(v);
    }

    /**
     * What NVML would report of a MIG device of this profile: memory and SMs as written, slices
     * from the name ({@code [<c>c.]<g>g.<memory>gb[.<suffix>]}), engines as written (each 0 when
     * left out).
     */
    private static Gpu.MigAttributes migAttributes(String name, Map<?, ?> pf, String at) {
        Matcher m = MIG_PROFILE_NAME.matcher(name);
        if (!m.matches()) {
            throw new GpuSourceException(
                    at
                            + ": a MIG profile is named [<c>c.]<g>g.<memory>gb[.<suffix>], e.g."
                            + " 3g.20gb");
        }
        int gi = Integer.parseInt(m.group(2));
        int ci = m.group(1) != null ? Integer.parseInt(m.group(1)) : gi;
        Map<?, ?> e = Map.of();
        if (pf.get("engines") instanceof Map<?, ?> given) {
            e = given;
        } else if (pf.get("engines") != null) {
            throw new GpuSourceException(
                    at + ".engines: expected {copy, decoder, encoder, jpeg, ofa}");
        }
        String ea = at + ".engines";
        return new Gpu.MigAttributes(
                integer(pf, "memoryMiB", at),
                integer(pf, "multiprocessors", at),
                gi,
                ci,
                new Gpu.Engines(
                        count(e, "copy", ea),
                        count(e, "decoder", ea),
                        count(e, "encoder", ea),
                        count(e, "jpeg", ea),
                        count(e, "ofa", ea)));
    }

    private static int count(Map<?, ?> f, String key, String at) {
        return f.get(key) == null ? 0 : integer(f, key, at);
    }

    private static int integer(Map<?, ?> f, String key, String at) {
        Object v = f.get(key);
        if (v instanceof Number n) {
            return n.intValue();
        }
        throw new GpuSourceException(
                at
                        + "."
                        + key
                        + ": expected an integer, got "
                        + (v == null ? "nothing" : "'" + v + "'"));
    }

    private static double number(Map<?, ?> f, String key, String at, double dflt) {
        Object v = f.get(key);
        if (v == null) {
            return dflt;
        }
        if (v instanceof Number n) {
            return n.doubleValue();
        }
        throw new GpuSourceException(at + "." + key + ": expected a number, got '" + v + "'");
    }
}
