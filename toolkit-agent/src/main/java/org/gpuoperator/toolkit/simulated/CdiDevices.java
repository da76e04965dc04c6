package org.gpuoperator.toolkit.simulated;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.gpuoperator.node.cdi.CdiException;
import org.gpuoperator.node.cdi.CdiRegistry;
import org.gpuoperator.node.cdi.CdiSpec;
import org.gpuoperator.node.cdi.CdiSpecGenerator;

/**
 * CDI device requests and their resolution through the node's CDI specs ({@code /etc/cdi}, {@code
 * /var/run/cdi}), as the NVIDIA runtime does it: the names from the {@code <prefix>*} annotations
 * (and, by mode, from {@code NVIDIA_VISIBLE_DEVICES}) resolve to the specs' container edits, or the
 * create fails with the real "unresolvable CDI devices" error.
 */
public final class CdiDevices {

    public static final String GPU_KIND = CdiSpecGenerator.GPU_KIND;
    public static final String MANAGEMENT_KIND = CdiSpecGenerator.MANAGEMENT_KIND;

    /** Where CDI looks for specs (the CDI default directories). */
    public static final List<String> SPEC_DIRS = CdiRegistry.SPEC_DIRS;

    /**
     * The split of a container's request.
     *
     * @param cdiNames qualified CDI names, in request order
     * @param legacy what goes the legacy way ({@code NVIDIA_VISIBLE_DEVICES})
     */
    public record Request(List<String> cdiNames, VisibleDevices legacy) {
        public Request {
            cdiNames = List.copyOf(cdiNames);
        }
    }

    /**
     * What CDI resolved.
     *
     * @param edits the merged container edits
     * @param visible the GPUs the names stand for ({@code nvidia.com/gpu=<id>} → {@code <id>},
     *     {@code management.nvidia.com/gpu=all} → all; not requested when no name is NVIDIA's), for
     *     the simulated nvidia-smi
     */
    public record Resolved(CdiSpec.ContainerEdits edits, VisibleDevices visible) {}

    private CdiDevices() {}

    /** Splits a request by mode, bare names in {@value #GPU_KIND}. Pure. */
    public static Request request(
            List<String> annotationNames, String visibleDevicesEnv, RuntimeMode mode) {
        return request(annotationNames, visibleDevicesEnv, mode, GPU_KIND);
    }

    /**
     * Splits a request by mode; in {@code cdi} mode a bare name in {@code NVIDIA_VISIBLE_DEVICES}
     * resolves in {@code defaultKind} ({@code all} → {@code management.nvidia.com/gpu=all} where
     * that is the default kind). Pure.
     */
    public static Request request(
            List<String> annotationNames,
            String visibleDevicesEnv,
            RuntimeMode mode,
            String defaultKind) {
        List<String> cdi = new ArrayList<>();
        if (mode != RuntimeMode.LEGACY) {
            cdi.addAll(annotationNames);
        }
        VisibleDevices env = VisibleDevices.parse(visibleDevicesEnv);
        if (mode == RuntimeMode.LEGACY || env.kind() == VisibleDevices.Kind.NOT_REQUESTED) {
            return new Request(cdi, env);
        }
        if (env.kind() == VisibleDevices.Kind.NONE) {
            return new Request(cdi, env);
        }
        List<String> ids = env.kind() == VisibleDevices.Kind.ALL ? List.of("all") : env.ids();
        List<String> legacy = new ArrayList<>();
        for (String id : ids) {
            if (id.contains("=")) {
                cdi.add(id); // already qualified: CDI in every mode but legacy
            } else if (mode == RuntimeMode.CDI) {
                cdi.add(defaultKind + "=" + id);
            } else {
                legacy.add(id);
            }
        }
        return new Request(
                cdi,
                legacy.isEmpty()
                        ? VisibleDevices.NOT_REQUESTED
                        : VisibleDevices.parse(String.join(",", legacy)));
    }

    /**
     * Resolves CDI names against the specs under {@code nodeRoot}.
     *
     * @throws RuntimeRefusal with the real text for unknown names, or naming a bad spec file
     */
    public static Resolved resolve(List<String> names, Path nodeRoot) throws RuntimeRefusal {
        CdiRegistry registry;
        try {
            registry = CdiRegistry.load(nodeRoot);
        } catch (CdiException | IOException e) {
            throw RuntimeRefusal.invalid(
                    "error modifying OCI spec: failed to load CDI specs: " + e.getMessage());
        }
        List<String> unresolved =
                names.stream().filter(n -> !registry.deviceNames().contains(n)).distinct().toList();
        if (!unresolved.isEmpty()) {
            throw RuntimeRefusal.unresolvableCdiDevices(unresolved);
        }
        CdiSpec.ContainerEdits edits;
        try {
            edits = registry.resolve(names);
        } catch (CdiException e) {
            throw RuntimeRefusal.invalid("error modifying OCI spec: " + e.getMessage());
        }
        return new Resolved(edits, visible(names));
    }

    /** The GPUs CDI names stand for. Pure. */
    static VisibleDevices visible(List<String> names) {
        List<String> ids = new ArrayList<>();
        for (String n : names) {
            int eq = n.indexOf('=');
            String kind = n.substring(0, eq);
            String device = n.substring(eq + 1);
            if (kind.equals(MANAGEMENT_KIND) || (kind.equals(GPU_KIND) && device.equals("all"))) {
                return new VisibleDevices(VisibleDevices.Kind.ALL, List.of());
            }
            if (kind.equals(GPU_KIND) && !ids.contains(device)) {
                ids.add(device);
            }
        }
        return ids.isEmpty()
                ? VisibleDevices.NOT_REQUESTED
                : new VisibleDevices(VisibleDevices.Kind.LIST, ids);
    }

    /**
     * Both requests together (the container gets the union, as with the real runtime's two paths).
     */
    public static VisibleDevices union(VisibleDevices a, VisibleDevices b) {
        if (!b.requested()) {
            return a;
        }
        if (!a.requested() || a.kind() == VisibleDevices.Kind.NONE) {
            return b;
        }
        if (a.kind() == VisibleDevices.Kind.ALL || b.kind() == VisibleDevices.Kind.ALL) {
            return new VisibleDevices(VisibleDevices.Kind.ALL, List.of());
        }
        if (b.kind() == VisibleDevices.Kind.NONE) {
            return a;
        }
        List<String> ids = new ArrayList<>(a.ids());
        b.ids().stream().filter(i -> !ids.contains(i)).forEach(ids::add);
        return new VisibleDevices(VisibleDevices.Kind.LIST, ids);
    }
}
