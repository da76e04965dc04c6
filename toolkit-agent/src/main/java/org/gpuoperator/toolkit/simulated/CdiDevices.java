package org.gpuoperator.toolkit.simulated;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * CDI device requests ({@code cdi.k8s.io/*} annotations). The seam for the CDI issue: today,
 * without a CDI spec directory on the node every request is refused with the real "unresolvable CDI
 * devices" error; with one, {@code nvidia.com/gpu=<index|uuid|all>} (the names our CDI spec writes)
 * resolves like the same id in {@code NVIDIA_VISIBLE_DEVICES} and any other name is unresolvable.
 * Reading the spec files themselves comes with the CDI issue.
 */
public final class CdiDevices {

    public static final String GPU_KIND = "nvidia.com/gpu=";

    /** Where CDI looks for specs (the CDI default directories). */
    public static final List<String> SPEC_DIRS = List.of("/etc/cdi", "/var/run/cdi");

    private CdiDevices() {}

    /**
     * @param nodeRoot where the node's {@code /etc/cdi} and {@code /var/run/cdi} are
     */
    public static VisibleDevices resolve(List<String> requested, Path nodeRoot)
            throws RuntimeRefusal {
        boolean specDir =
                SPEC_DIRS.stream()
                        .anyMatch(d -> Files.isDirectory(nodeRoot.resolve(d.substring(1))));
        if (!specDir) {
            throw RuntimeRefusal.unresolvableCdiDevices(requested);
        }
        List<String> ids = new ArrayList<>();
        List<String> unresolved = new ArrayList<>();
        for (String name : requested) {
            if (name.startsWith(GPU_KIND) && name.length() > GPU_KIND.length()) {
                ids.add(name.substring(GPU_KIND.length()));
            } else {
                unresolved.add(name);
            }
        }
        if (!unresolved.isEmpty()) {
            throw RuntimeRefusal.unresolvableCdiDevices(unresolved);
        }
        return VisibleDevices.parse(String.join(",", ids));
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
