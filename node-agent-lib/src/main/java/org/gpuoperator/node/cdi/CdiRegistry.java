package org.gpuoperator.node.cdi;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The CDI specs of a node, as a CDI-aware runtime sees them: every {@code .yaml}, {@code .yml} and
 * {@code .json} file in the spec dirs, a device in {@code /var/run/cdi} shadowing one of the same
 * name in {@code /etc/cdi}. Resolves qualified names ({@code nvidia.com/gpu=0}) to the edits a
 * container gets: each spec's own edits once, then each device's, in request order.
 */
public final class CdiRegistry {

    /** The CDI default spec dirs, lowest priority first. */
    public static final List<String> SPEC_DIRS = List.of("/etc/cdi", "/var/run/cdi");

    static final Pattern KIND =
            Pattern.compile(
                    "[A-Za-z0-9]([A-Za-z0-9_.-]*[A-Za-z0-9])?/[A-Za-z0-9]([A-Za-z0-9_.-]*[A-Za-z0-9])?");
    static final Pattern DEVICE_NAME = Pattern.compile("[A-Za-z0-9]([A-Za-z0-9_.:-]*[A-Za-z0-9])?");

    /** A device and the spec it is in. */
    private record Entry(CdiSpec spec, CdiSpec.Device device, String source, int priority) {}

    private final Map<String, Entry> devices;
    private final List<String> sources;

    private CdiRegistry(Map<String, Entry> devices, List<String> sources) {
        this.devices = devices;
        this.sources = sources;
    }

    /**
     * Loads the spec files under {@code root}'s CDI dirs (missing dirs are skipped).
     *
     * @throws CdiException naming the file when a spec file is not a valid CDI spec, or two files
     *     of the same dir define the same device
     */
    public static CdiRegistry load(Path root) throws CdiException, IOException {
        Map<String, CdiSpec> specs = new LinkedHashMap<>();
        List<Integer> priorities = new ArrayList<>();
        for (int p = 0; p < SPEC_DIRS.size(); p++) {
            Path dir = root.resolve(SPEC_DIRS.get(p).substring(1));
            if (!Files.isDirectory(dir)) {
                continue;
            }
            List<Path> files;
            try (Stream<Path> s = Files.list(dir)) {
                files =
                        s.filter(f -> f.getFileName().toString().matches(".*\\.(yaml|yml|json)"))
                                .filter(Files::isRegularFile)
                                .sorted()
                                .toList();
            }
            for (Path f : files) {
                String source = SPEC_DIRS.get(p) + "/" + f.getFileName();
                specs.put(
                        source, CdiYaml.parse(Files.readString(f, StandardCharsets.UTF_8), source));
                priorities.add(p);
            }
        }
        return of(specs, priorities);
    }

    /** A registry of specs already read, by file name, all of one priority. */
    public static CdiRegistry of(Map<String, CdiSpec> specs) throws CdiException {
        return of(specs, specs.keySet().stream().map(k -> 0).toList());
    }

    private static CdiRegistry of(Map<String, CdiSpec> specs, List<Integer> priorities)
            throws CdiException {
        Map<String, Entry> devices = new LinkedHashMap<>();
        int i = 0;
        for (Map.Entry<String, CdiSpec> e : specs.entrySet()) {
            String source = e.getKey();
            CdiSpec spec = e.getValue();
            int priority = priorities.get(i++);
            validate(spec, source);
            for (CdiSpec.Device d : spec.devices()) {
                String name = spec.qualifiedName(d);
                Entry old = devices.get(name);
                if (old != null && old.priority() == priority) {
                    throw new CdiException(
                            source + ": device " + name + " is also in " + old.source());
                }
                devices.put(name, new Entry(spec, d, source, priority));
            }
        }
        return new CdiRegistry(devices, List.copyOf(specs.keySet()));
    }

    private static void validate(CdiSpec spec, String source) throws CdiException {
        if (!CdiVersions.known(spec.cdiVersion())) {
            throw new CdiException(source + ": cdiVersion: unknown version " + spec.cdiVersion());
        }
        String needed = CdiVersions.minimum(spec);
        if (CdiVersions.older(spec.cdiVersion(), needed)) {
            throw new CdiException(
                    source + ": cdiVersion: the spec version must be at least v" + needed);
        }
        if (!KIND.matcher(spec.kind()).matches()) {
            throw new CdiException(source + ": kind: '" + spec.kind() + "' is not vendor/class");
        }
        Set<String> seen = new LinkedHashSet<>();
        for (CdiSpec.Device d : spec.devices()) {
            if (!DEVICE_NAME.matcher(d.name()).matches()) {
                throw new CdiException(
                        source + ": devices: invalid device name '" + d.name() + "'");
            }
            if (!seen.add(d.name())) {
                throw new CdiException(source + ": devices: device '" + d.name() + "' twice");
            }
        }
    }

    /** Every qualified device name, e.g. {@code nvidia.com/gpu=0}. */
    public Set<String> deviceNames() {
        return devices.keySet();
    }

    /** The spec files read (e.g. {@code /var/run/cdi/nvidia.yaml}). */
    public List<String> sources() {
        return sources;
    }

    /**
     * The edits a container that asks for {@code names} gets: the edits of each spec those devices
     * are in (once per spec, in order of first use), then each device's own; a device node, mount
     * destination, env entry or hook already there is not added twice.
     *
     * @throws CdiException {@code unresolvable CDI devices <names>} (comma-separated, as containerd
     *     and the NVIDIA runtime say it) when any name is not in a spec
     */
    public CdiSpec.ContainerEdits resolve(List<String> names) throws CdiException {
        List<String> unresolved =
                names.stream().filter(n -> !devices.containsKey(n)).distinct().toList();
        if (!unresolved.isEmpty()) {
            throw new CdiException("unresolvable CDI devices " + String.join(", ", unresolved));
        }
        Set<CdiSpec> specs = new LinkedHashSet<>();
        List<CdiSpec.ContainerEdits> deviceEdits = new ArrayList<>();
        for (String n : new LinkedHashSet<>(names)) {
            Entry e = devices.get(n);
            specs.add(e.spec());
            deviceEdits.add(e.device().containerEdits());
        }
        List<CdiSpec.ContainerEdits> all = new ArrayList<>();
        specs.forEach(s -> all.add(s.containerEdits()));
        all.addAll(deviceEdits);
        return merge(all);
    }

    static CdiSpec.ContainerEdits merge(List<CdiSpec.ContainerEdits> edits) {
        Set<String> env = new LinkedHashSet<>();
        Map<String, CdiSpec.DeviceNode> nodes = new LinkedHashMap<>();
        Map<String, CdiSpec.Mount> mounts = new LinkedHashMap<>();
        Set<CdiSpec.Hook> hooks = new LinkedHashSet<>();
        Set<Long> gids = new LinkedHashSet<>();
        for (CdiSpec.ContainerEdits e : edits) {
            env.addAll(e.env());
            e.deviceNodes().forEach(n -> nodes.putIfAbsent(n.path(), n));
            e.mounts().forEach(m -> mounts.putIfAbsent(m.containerPath(), m));
            hooks.addAll(e.hooks());
            gids.addAll(e.additionalGids());
        }
        return new CdiSpec.ContainerEdits(
                List.copyOf(env),
                List.copyOf(nodes.values()),
                List.copyOf(mounts.values()),
                List.copyOf(hooks),
                List.copyOf(gids));
    }
}
