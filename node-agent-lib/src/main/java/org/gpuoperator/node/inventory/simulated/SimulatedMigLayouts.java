package org.gpuoperator.node.inventory.simulated;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.nio.file.attribute.FileTime;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.gpuoperator.node.agent.AtomicFiles;
import org.gpuoperator.node.inventory.Gpu;
import org.gpuoperator.node.inventory.GpuSourceException;
import org.gpuoperator.node.inventory.MigPartitioner.Layout;

/**
 * The MIG layouts of a simulated node's GPUs, in files under the node's host root, so that a layout
 * the MIG manager applies is what every agent on the node (each in its own process) reads, and a
 * person with a shell can read or change it too.
 *
 * <p>One file per GPU whose layout was set: {@code
 * <host-root>/run/nvidia/simulated-gpu/mig/gpu-<index>}. Lines are {@code key=value}; blank lines
 * and lines starting with {@code #} are ignored:
 *
 * <pre>
 * # MIG layout of simulated GPU 0
 * enabled=true
 * devices=1g.5gb,1g.5gb,2g.10gb
 * </pre>
 *
 * <ul>
 *   <li>{@code enabled} (required): {@code true} or {@code false}, the GPU's MIG mode;
 *   <li>{@code devices} (optional, default none): the MIG devices' profiles, comma separated, in
 *       creation order; the i-th gets slot i and GPU instance id i+1. Must be empty when MIG is
 *       off.
 * </ul>
 *
 * <p>No file: the profile's built-in layout ({@code mig:} in the profile). A file that does not
 * parse, or names a layout the GPU could not have, is an error naming the file and the line.
 */
public final class SimulatedMigLayouts {

    /** Relative to the host root; next to {@link SimulatedFaults#FAULTS_DIR}. */
    public static final String MIG_DIR = "run/nvidia/simulated-gpu/mig";

    /**
     * Compute slices of a MIG-capable GPU: A100 and H100 have 7 (an 8th memory slice, but no 8th
     * compute slice). Every simulated MIG-capable GPU is taken to have 7.
     */
    public static final int MAX_SLICES = 7;

    private static final Pattern FILE_NAME = Pattern.compile("gpu-(\\d+)");

    private final Path dir;

    public SimulatedMigLayouts(Path hostRoot) {
        this.dir = hostRoot.resolve(MIG_DIR);
    }

    public Path directory() {
        return dir;
    }

    public Path file(int gpuIndex) {
        return dir.resolve("gpu-" + gpuIndex);
    }

    /** What the profile gives a GPU without a layout file. */
    public static Layout builtInLayout(SimulatedProfile p) {
        return p.migEnabled() ? new Layout(true, p.migDevices()) : Layout.DISABLED;
    }

    /**
     * GPU {@code gpuIndex}'s layout file, parsed and checked against the profile, if there is one.
     */
    public Optional<Layout> read(SimulatedProfile p, int gpuIndex) {
        Path f = file(gpuIndex);
        String text;
        try {
            text = Files.readString(f);
        } catch (NoSuchFileException e) {
            return Optional.empty();
        } catch (IOException e) {
            throw new GpuSourceException("cannot read simulated MIG layout " + f + ": " + e, e);
        }
        return Optional.of(parse(text, f.toString(), p));
    }

    /** GPU {@code gpuIndex}'s layout now: its file, else the profile's. */
    public Layout current(SimulatedProfile p, int gpuIndex) {
        return read(p, gpuIndex).orElseGet(() -> builtInLayout(p));
    }

    /** The layouts of every GPU of the profile, by index: the files, else the profile's. */
    public Map<Integer, Layout> currentAll(SimulatedProfile p) {
        Map<Integer, Layout> out = new TreeMap<>();
        for (int i = 0; i < p.count(); i++) {
            out.put(i, current(p, i));
        }
        return out;
    }

    /** Writes GPU {@code gpuIndex}'s layout file atomically: readers see the old or the new. */
    public void write(int gpuIndex, Layout layout) {
        Path f = file(gpuIndex);
        try {
            AtomicFiles.writeString(f, format(gpuIndex, layout));
        } catch (IOException e) {
            throw new GpuSourceException(
                    "GPU " + gpuIndex + ": cannot write simulated MIG layout " + f + ": " + e, e);
        }
    }

    /**
     * A fingerprint of the layout files (name, inode, mtime, size): equal fingerprints mean no file
     * was written since. An atomic write gives a new inode, so even a coarse mtime cannot hide one.
     */
    public Stamp stamp() {
        if (!Files.isDirectory(dir)) {
            return Stamp.NONE;
        }
        List<Stamp.Entry> entries = new ArrayList<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : (Iterable<Path>) files::iterator) {
                String name = f.getFileName().toString();
                if (!FILE_NAME.matcher(name).matches()) {
                    continue; // AtomicFiles' temp files and anything foreign
                }
                try {
                    BasicFileAttributes a = Files.readAttributes(f, BasicFileAttributes.class);
                    entries.add(new Stamp.Entry(name, a.fileKey(), a.lastModifiedTime(), a.size()));
                } catch (IOException gone) {
                    // removed while listing: as if never there; the next stamp differs anyway
                }
            }
        } catch (IOException e) {
            return Stamp.NONE;
        }
        entries.sort(Comparator.comparing(Stamp.Entry::name));
        return new Stamp(List.copyOf(entries));
    }

    /**
     * See {@link #stamp()}. {@code equals} and {@code hashCode} are written out: a record's own are
     * bootstrapped at their first call ({@code ObjectMethods} spins method handles, ~5 ms of CPU),
     * and every agent on simulated GPUs compares two stamps on its way to ready.
     */
    public record Stamp(List<Entry> entries) {
        static final Stamp NONE = new Stamp(List.of());

        record Entry(String name, Object fileKey, FileTime modified, long size) {
            @Override
            public boolean equals(Object o) {
                return o instanceof Entry e
                        && size == e.size
                        && name.equals(e.name)
                        && Objects.equals(fileKey, e.fileKey)
                        && modified.equals(e.modified);
            }

            @Override
            public int hashCode() {
                return Objects.hash(name, fileKey, modified, size);
            }
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Stamp s && entries.equals(s.entries);
        }

        @Override
        public int hashCode() {
            return entries.hashCode();
        }
    }

    /** The file's text for a layout. */
    static String format(int gpuIndex, Layout layout) {
        return "# MIG layout of simulated GPU "
                + gpuIndex
                + " (see SimulatedMigLayouts): enabled=true|false,\n"
                + "# devices=MIG profiles, comma separated, in creation order.\n"
                + "enabled="
                + layout.enabled()
                + "\n"
                + "devices="
                + String.join(",", layout.devices())
                + "\n";
    }

    /**
     * Parses a layout file and checks it against the profile; errors name {@code source} and the
     * line.
     */
    static Layout parse(String text, String source, SimulatedProfile p) {
        Boolean enabled = null;
        List<String> devices = null;
        int devicesLine = 0;
        String[] lines = text.split("\\R", -1);
        for (int n = 1; n <= lines.length; n++) {
            String line = lines[n - 1].strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            String at = source + ":" + n + ": ";
            int eq = line.indexOf('=');
            if (eq < 0) {
                throw new GpuSourceException(
                        at + "expected key=value (enabled=..., devices=...), got '" + line + "'");
            }
            String key = line.substring(0, eq).strip();
            String value = line.substring(eq + 1).strip();
            switch (key) {
                case "enabled" -> {
                    if (enabled != null) {
                        throw new GpuSourceException(at + "enabled given twice");
                    }
                    if (!value.equals("true") && !value.equals("false")) {
                        throw new GpuSourceException(
                                at + "enabled: expected true or false, got '" + value + "'");
                    }
                    enabled = value.equals("true");
                    if (enabled) {
                        Optional<String> bad = modeProblem(p, true);
                        if (bad.isPresent()) {
                            throw new GpuSourceException(at + bad.get());
                        }
                    }
                }
                case "devices" -> {
                    if (devices != null) {
                        throw new GpuSourceException(at + "devices given twice");
                    }
                    devices = new ArrayList<>();
                    if (!value.isEmpty()) {
                        for (String d : value.split(",", -1)) {
                            if (d.isBlank()) {
                                throw new GpuSourceException(
                                        at + "devices: empty MIG profile name in '" + value + "'");
                            }
                            devices.add(d.strip());
                        }
                    }
                    Optional<String> bad = devicesProblem(p, devices);
                    if (bad.isPresent()) {
                        throw new GpuSourceException(at + bad.get());
                    }
                    devicesLine = n;
                }
                default ->
                        throw new GpuSourceException(
                                at + "unknown key '" + key + "'; expected enabled or devices");
            }
        }
        if (enabled == null) {
            throw new GpuSourceException(
                    source + ": no 'enabled=' line; expected enabled=true or enabled=false");
        }
        if (!enabled && devices != null && !devices.isEmpty()) {
            throw new GpuSourceException(
                    source + ":" + devicesLine + ": MIG devices given with enabled=false");
        }
        return new Layout(enabled, devices == null ? List.of() : devices);
    }

    /** Why the GPUs of profile {@code p} cannot have MIG mode {@code enabled}, if they cannot. */
    static Optional<String> modeProblem(SimulatedProfile p, boolean enabled) {
        if (enabled && !p.migCapable()) {
            return Optional.of(
                    "not MIG capable ("
                            + p.product()
                            + ", simulated profile "
                            + p.name()
                            + "): MIG mode cannot be enabled");
        }
        return Optional.empty();
    }

    /**
     * Why a GPU of profile {@code p} cannot hold these MIG devices, if it cannot: an unknown
     * profile name, or GPU instances needing more than {@link #MAX_SLICES} slices. Placement rules
     * beyond the slice count (which slice a profile may start at) are not simulated.
     */
    static Optional<String> devicesProblem(SimulatedProfile p, List<String> devices) {
        int slices = 0;
        for (String d : devices) {
            Gpu.MigAttributes a = p.migProfiles().get(d);
            if (a == null) {
                return Optional.of(
                        "unknown MIG profile '"
                                + d
                                + "' for "
                                + p.product()
                                + (p.migProfiles().isEmpty()
                                        ? ", which offers none"
                                        : "; known: " + String.join(", ", profileNames(p))));
            }
            slices += a.gpuInstanceSlices();
        }
        if (slices > MAX_SLICES) {
            return Optional.of(
                    "the MIG devices "
                            + String.join(",", devices)
                            + " need "
                            + slices
                            + " GPU instance slices, but the GPU has "
                            + MAX_SLICES);
        }
        return Optional.empty();
    }

    /** The profile's MIG profile names, smallest first (by slices, then name). */
    static List<String> profileNames(SimulatedProfile p) {
        return p.migProfiles().entrySet().stream()
                .sorted(
                        Comparator.comparingInt(
                                        (Map.Entry<String, Gpu.MigAttributes> e) ->
                                                e.getValue().gpuInstanceSlices())
                                .thenComparing(Map.Entry::getKey))
                .map(Map.Entry::getKey)
                .toList();
    }
}
