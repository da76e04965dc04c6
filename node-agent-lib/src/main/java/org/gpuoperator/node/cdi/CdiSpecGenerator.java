package org.gpuoperator.node.cdi;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.gpuoperator.node.inventory.Gpu;

/**
 * The node's CDI specs from its GPUs and driver files, as {@code nvidia-ctk cdi generate} makes
 * them. Pure.
 *
 * <ul>
 *   <li>{@code nvidia.com/gpu}: one device per GPU by index and by UUID, except a GPU in MIG mode
 *       (a container given it would see no MIG device: the request must fail instead), one per MIG
 *       device by {@code <gpu index>:<slot>} (NVML's MIG device index on its GPU, as {@code
 *       NVIDIA_VISIBLE_DEVICES} counts) and by MIG UUID, and {@code all}; each device has its GPU
 *       node ({@code /dev/nvidia<minor>}), a MIG device also its GPU and compute instance's {@code
 *       /dev/nvidia-caps} nodes. Every container that gets one also gets the control nodes the host
 *       has, the driver's libraries and binaries (read-only bind mounts of their real files from
 *       the driver root), and the {@code create-symlinks} (the libraries' soname links found on the
 *       host, and {@code libcuda.so}), {@code enable-cuda-compat} (with libcuda) and {@code
 *       update-ldcache} hooks of the installed {@code nvidia-cdi-hook}, as {@code nvidia-ctk} 1.17
 *       writes them.
 *   <li>{@code management.nvidia.com/gpu}: the one device {@code all} with every node, for
 *       management containers.
 * </ul>
 *
 * <p>Device nodes carry type and numbers where the host has the node (a MIG caps node also where
 * the driver's {@code nvidia-caps} major is known); the spec's {@code cdiVersion} is the lowest
 * that its features need ({@link CdiVersions}).
 */
public final class CdiSpecGenerator {

    public static final String GPU_KIND = "nvidia.com/gpu";
    public static final String MANAGEMENT_KIND = "management.nvidia.com/gpu";
    public static final String SPEC_DIR = "/var/run/cdi";
    public static final String GPU_SPEC_FILE = "nvidia.yaml";
    public static final String MANAGEMENT_SPEC_FILE = "management.nvidia.com-gpu.yaml";
    public static final String ALL = "all";

    /** The hook binary the toolkit installs in its install dir. */
    public static final String HOOK_BINARY = "nvidia-cdi-hook";

    public static final String HOOK_POINT = "createContainer";

    /** The control nodes, each listed when the host has it ({@code /dev/nvidiactl} always). */
    public static final List<String> CONTROL_NODES =
            List.of(
                    "/dev/nvidiactl",
                    "/dev/nvidia-uvm",
                    "/dev/nvidia-uvm-tools",
                    "/dev/nvidia-modeset");

    /** MIG's config and monitor capabilities (management containers only). */
    public static final List<String> MANAGEMENT_CAPS =
            List.of(MigCaps.CAP_PREFIX + "1", MigCaps.CAP_PREFIX + "2");

    /**
     * The container's {@code NVIDIA_VISIBLE_DEVICES}: {@code void} so that the legacy hook, if
     * configured too, does not inject the devices a second time.
     */
    public static final String VISIBLE_DEVICES_VOID = "NVIDIA_VISIBLE_DEVICES=void";

    static final List<String> MOUNT_OPTIONS = List.of("ro", "nosuid", "nodev", "rbind", "rprivate");

    private CdiSpecGenerator() {}

    /**
     * The {@code nvidia.com/gpu} spec.
     *
     * @param hookPath the installed {@code nvidia-cdi-hook} on the host, e.g. {@code
     *     /usr/local/nvidia/toolkit/nvidia-cdi-hook}
     */
    public static CdiSpec gpuSpec(List<Gpu> gpus, DriverFiles driver, String hookPath) {
        List<CdiSpec.Device> devices = new ArrayList<>();
        Set<String> allNodes = new LinkedHashSet<>();
        for (Gpu g : gpus) {
            allNodes.add(g.devicePath());
            if (!g.mig().enabled()) {
                List<String> gpuNode = List.of(g.devicePath());
                devices.add(device(String.valueOf(g.index()), gpuNode, driver));
                devices.add(device(g.uuid(), gpuNode, driver));
                continue;
            }
            for (Gpu.MigDevice m : g.mig().devices()) {
                List<String> nodes = migNodes(g, m, driver);
                devices.add(device(m.index(), nodes, driver));
                devices.add(device(m.uuid(), nodes, driver));
                allNodes.addAll(nodes);
            }
        }
        devices.add(device(ALL, List.copyOf(allNodes), driver));
        return versioned(GPU_KIND, devices, common(controlNodes(driver), driver, hookPath));
    }

    /** The {@code management.nvidia.com/gpu} spec: device {@code all} with every node. */
    public static CdiSpec managementSpec(List<Gpu> gpus, DriverFiles driver, String hookPath) {
        Set<String> nodes = new LinkedHashSet<>(controlNodes(driver));
        boolean mig = false;
        for (Gpu g : gpus) {
            nodes.add(g.devicePath());
            if (g.mig().enabled()) {
                mig = true;
                for (Gpu.MigDevice m : g.mig().devices()) {
                    nodes.addAll(migNodes(g, m, driver).subList(1, 3));
                }
            }
        }
        if (mig) {
            nodes.addAll(MANAGEMENT_CAPS);
        }
        List<CdiSpec.Device> devices = List.of(device(ALL, List.copyOf(nodes), driver));
        return versioned(MANAGEMENT_KIND, devices, common(List.of(), driver, hookPath));
    }

    /** Both specs by file name ({@value #GPU_SPEC_FILE}, {@value #MANAGEMENT_SPEC_FILE}). */
    public static Map<String, CdiSpec> specFiles(
            List<Gpu> gpus, DriverFiles driver, String hookPath) {
        Map<String, CdiSpec> out = new LinkedHashMap<>();
        out.put(GPU_SPEC_FILE, gpuSpec(gpus, driver, hookPath));
        out.put(MANAGEMENT_SPEC_FILE, managementSpec(gpus, driver, hookPath));
        return out;
    }

    /**
     * The control nodes the host has, as {@code nvidia-ctk} lists them (a CDI runtime refuses a
     * node without numbers that it cannot find on the host); {@code /dev/nvidiactl} always, as no
     * GPU works without it.
     */
    static List<String> controlNodes(DriverFiles driver) {
        return CONTROL_NODES.stream()
                .filter(
                        p ->
                                p.equals(CONTROL_NODES.getFirst())
                                        || driver.deviceNodes().containsKey(p))
                .toList();
    }

    private static List<String> migNodes(Gpu g, Gpu.MigDevice m, DriverFiles driver) {
        return List.of(
                g.devicePath(),
                MigCaps.gpuInstance(driver.migCapMinors(), g.minorNumber(), m.gpuInstanceId()),
                MigCaps.computeInstance(
                        driver.migCapMinors(),
                        g.minorNumber(),
                        m.gpuInstanceId(),
                        m.computeInstanceId()));
    }

    private static CdiSpec.Device device(String name, List<String> nodes, DriverFiles driver) {
        return new CdiSpec.Device(
                name,
                new CdiSpec.ContainerEdits(
                        List.of(),
                        nodes.stream().map(p -> node(p, driver)).toList(),
                        List.of(),
                        List.of(),
                        List.of()));
    }

    private static CdiSpec.DeviceNode node(String path, DriverFiles driver) {
        CdiSpec.DeviceNode found = driver.deviceNodes().get(path);
        if (found != null) {
            return found;
        }
        // a MIG caps node the driver makes on first use: its numbers are known already
        Integer capsMajor = driver.characterMajors().get(DriverFiles.CAPS_DEVICE);
        if (capsMajor != null && path.startsWith(MigCaps.CAP_PREFIX)) {
            return CdiSpec.DeviceNode.charDevice(
                    path, capsMajor, Long.parseLong(path.substring(MigCaps.CAP_PREFIX.length())));
        }
        return CdiSpec.DeviceNode.of(path);
    }

    /** Edits for every container that gets a device: control nodes, files, hooks. */
    private static CdiSpec.ContainerEdits common(
            List<String> controlNodes, DriverFiles driver, String hookPath) {
        List<CdiSpec.Mount> mounts = new ArrayList<>();
        for (String f : driver.libraries()) {
            mounts.add(new CdiSpec.Mount(driver.hostPath(f), f, null, MOUNT_OPTIONS));
        }
        for (String f : driver.binaries()) {
            mounts.add(new CdiSpec.Mount(driver.hostPath(f), f, null, MOUNT_OPTIONS));
        }
        List<CdiSpec.Hook> hooks = new ArrayList<>();
        // the soname links next to the mounted files (libcuda.so.1 → libcuda.so.<version>), as
        // the host has them: the container's loader opens the soname
        List<String> links = new ArrayList<>();
        new TreeMap<>(driver.sonameLinks())
                .forEach((link, target) -> links.add(target + "::" + link));
        Set<String> folders = new LinkedHashSet<>();
        boolean cuda = false;
        for (String lib : driver.libraries()) {
            String dir = lib.substring(0, lib.lastIndexOf('/'));
            folders.add(dir);
            if (lib.endsWith("/libcuda.so." + driver.version())) {
                // the development link that CUDA programs built with -lcuda open
                links.add("libcuda.so.1::" + dir + "/libcuda.so");
                cuda = true;
            }
        }
        if (!links.isEmpty()) {
            List<String> args = new ArrayList<>(List.of(HOOK_BINARY, "create-symlinks"));
            links.forEach(l -> args.addAll(List.of("--link", l)));
            hooks.add(new CdiSpec.Hook(HOOK_POINT, hookPath, args, List.of(), null));
        }
        if (cuda) {
            // an image with CUDA's forward-compatibility libraries newer than this driver uses
            // them; before update-ldcache, which reads the folder this hook adds
            hooks.add(
                    new CdiSpec.Hook(
                            HOOK_POINT,
                            hookPath,
                            List.of(
                                    HOOK_BINARY,
                                    "enable-cuda-compat",
                                    "--host-driver-version=" + driver.version()),
                            List.of(),
                            null));
        }
        if (!folders.isEmpty()) {
            // ldconfig in the container: the sonames (libcuda.so.1) and the cache for the mounts
            List<String> args = new ArrayList<>(List.of(HOOK_BINARY, "update-ldcache"));
            folders.forEach(f -> args.addAll(List.of("--folder", f)));
            hooks.add(new CdiSpec.Hook(HOOK_POINT, hookPath, args, List.of(), null));
        }
        return new CdiSpec.ContainerEdits(
                List.of(VISIBLE_DEVICES_VOID),
                controlNodes.stream().map(p -> node(p, driver)).toList(),
                mounts,
                hooks,
                List.of());
    }

    private static CdiSpec versioned(
            String kind, List<CdiSpec.Device> devices, CdiSpec.ContainerEdits edits) {
        CdiSpec draft = new CdiSpec(CdiVersions.EARLIEST, kind, Map.of(), devices, edits);
        return new CdiSpec(CdiVersions.minimum(draft), kind, Map.of(), devices, edits);
    }
}
