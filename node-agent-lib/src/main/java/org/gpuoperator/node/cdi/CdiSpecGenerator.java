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
 *       node ({@code /dev/nvidia<minor>}) and, for a whole GPU, its {@code /dev/dri} nodes with a
 *       {@code create-symlinks} hook for their {@code by-path} links; a MIG device its GPU and
 *       compute instance's {@code /dev/nvidia-caps} nodes. Every container that gets one also gets
 *       the control nodes the host has, the driver's libraries, binaries, graphics files and
 *       firmware (read-only bind mounts of their real files from the driver root), its IPC sockets
 *       (writable), and the {@code create-symlinks} (the soname links found on the host, {@code
 *       libcuda.so}, the graphics links), {@code enable-cuda-compat} (with libcuda), {@code
 *       update-ldcache} and {@code disable-device-node-modification} hooks of the installed {@code
 *       nvidia-cdi-hook}, as {@code nvidia-ctk} 1.18 writes them; each hook can be left out.
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

    /** The IPC sockets' and MPS pipe folder's options, as {@code nvidia-ctk}'s. */
    static final List<String> IPC_MOUNT_OPTIONS =
            List.of("nosuid", "nodev", "rbind", "rprivate", "noexec");

    public static final String CREATE_SYMLINKS = "create-symlinks";
    public static final String ENABLE_CUDA_COMPAT = "enable-cuda-compat";
    public static final String UPDATE_LDCACHE = "update-ldcache";

    /** Added in NVIDIA Container Toolkit 1.18.0: an older {@code nvidia-cdi-hook} fails on it. */
    public static final String DISABLE_DEVICE_NODE_MODIFICATION =
            "disable-device-node-modification";

    /** The hooks the specs may have, by {@code nvidia-cdi-hook} subcommand. */
    public static final List<String> HOOKS =
            List.of(
                    CREATE_SYMLINKS,
                    ENABLE_CUDA_COMPAT,
                    UPDATE_LDCACHE,
                    DISABLE_DEVICE_NODE_MODIFICATION);

    /** The name that disables every hook. */
    public static final String ALL_HOOKS = "all";

    private CdiSpecGenerator() {}

    /**
     * The {@code nvidia.com/gpu} spec with every hook.
     *
     * @param hookPath the installed {@code nvidia-cdi-hook} on the host, e.g. {@code
     *     /usr/local/nvidia/toolkit/nvidia-cdi-hook}
     */
    public static CdiSpec gpuSpec(List<Gpu> gpus, DriverFiles driver, String hookPath) {
        return gpuSpec(gpus, driver, hookPath, Set.of());
    }

    /**
     * The {@code nvidia.com/gpu} spec without the hooks named in {@code disabledHooks} ({@value
     * #ALL_HOOKS}: none), as {@code nvidia-ctk cdi generate --disable-hooks}.
     *
     * @throws IllegalArgumentException for a name not in {@link #HOOKS} nor {@value #ALL_HOOKS}
     */
    public static CdiSpec gpuSpec(
            List<Gpu> gpus, DriverFiles driver, String hookPath, Set<String> disabledHooks) {
        Hooks hooks = new Hooks(hookPath, disabledHooks);
        List<CdiSpec.Device> devices = new ArrayList<>();
        Set<String> allNodes = new LinkedHashSet<>();
        List<DriverFiles.DriLink> allLinks = new ArrayList<>();
        for (Gpu g : gpus) {
            allNodes.add(g.devicePath());
            if (!g.mig().enabled()) {
                List<DriverFiles.DriLink> dri =
                        driver.dri().getOrDefault(DriverFiles.busId(g.pciBusId()), List.of());
                List<String> gpuNodes = new ArrayList<>(List.of(g.devicePath()));
                dri.forEach(l -> gpuNodes.add(l.node()));
                allNodes.addAll(gpuNodes);
                allLinks.addAll(dri);
                devices.add(device(String.valueOf(g.index()), gpuNodes, dri, driver, hooks));
                devices.add(device(g.uuid(), gpuNodes, dri, driver, hooks));
                continue;
            }
            for (Gpu.MigDevice m : g.mig().devices()) {
                List<String> nodes = migNodes(g, m, driver);
                devices.add(device(m.index(), nodes, List.of(), driver, hooks));
                devices.add(device(m.uuid(), nodes, List.of(), driver, hooks));
                allNodes.addAll(nodes);
            }
        }
        devices.add(device(ALL, List.copyOf(allNodes), allLinks, driver, hooks));
        return versioned(GPU_KIND, devices, common(controlNodes(driver), driver, hooks));
    }

    /** The {@code management.nvidia.com/gpu} spec with every hook. */
    public static CdiSpec managementSpec(List<Gpu> gpus, DriverFiles driver, String hookPath) {
        return managementSpec(gpus, driver, hookPath, Set.of());
    }

    /** The {@code management.nvidia.com/gpu} spec: device {@code all} with every node. */
    public static CdiSpec managementSpec(
            List<Gpu> gpus, DriverFiles driver, String hookPath, Set<String> disabledHooks) {
        Hooks hooks = new Hooks(hookPath, disabledHooks);
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
        List<CdiSpec.Device> devices =
                List.of(device(ALL, List.copyOf(nodes), List.of(), driver, hooks));
        return versioned(MANAGEMENT_KIND, devices, common(List.of(), driver, hooks));
    }

    /** Both specs by file name ({@value #GPU_SPEC_FILE}, {@value #MANAGEMENT_SPEC_FILE}). */
    public static Map<String, CdiSpec> specFiles(
            List<Gpu> gpus, DriverFiles driver, String hookPath) {
        return specFiles(gpus, driver, hookPath, Set.of());
    }

    /** Both specs, without the hooks named in {@code disabledHooks}. */
    public static Map<String, CdiSpec> specFiles(
            List<Gpu> gpus, DriverFiles driver, String hookPath, Set<String> disabledHooks) {
        Map<String, CdiSpec> out = new LinkedHashMap<>();
        out.put(GPU_SPEC_FILE, gpuSpec(gpus, driver, hookPath, disabledHooks));
        out.put(MANAGEMENT_SPEC_FILE, managementSpec(gpus, driver, hookPath, disabledHooks));
        return out;
    }

    /**
     * Whether a hook can be left out by this name: one of {@link #HOOKS}, or {@value #ALL_HOOKS}.
     */
    public static boolean isHookName(String name) {
        return name.equals(ALL_HOOKS) || HOOKS.contains(name);
    }

    /** The names {@link #isHookName} takes, for messages: {@code all, create-symlinks, ...}. */
    public static String hookNames() {
        return ALL_HOOKS + ", " + String.join(", ", HOOKS);
    }

    /** The hooks a spec may have: their path and the ones left out. */
    private record Hooks(String path, Set<String> disabled) {
        Hooks {
            for (String h : disabled) {
                if (!isHookName(h)) {
                    throw new IllegalArgumentException(
                            "unknown hook " + h + " (known: " + hookNames() + ")");
                }
            }
            disabled = Set.copyOf(disabled);
        }

        boolean enabled(String name) {
            return !disabled.contains(ALL_HOOKS) && !disabled.contains(name);
        }

        /** {@code nvidia-cdi-hook <name> <args>} at createContainer, when enabled. */
        void add(List<CdiSpec.Hook> out, String name, List<String> args) {
            if (enabled(name)) {
                List<String> argv = new ArrayList<>(List.of(HOOK_BINARY, name));
                argv.addAll(args);
                out.add(new CdiSpec.Hook(HOOK_POINT, path, argv, List.of(), null));
            }
        }

        /** {@code create-symlinks} with a {@code --link} per link, when there is one. */
        void createSymlinks(List<CdiSpec.Hook> out, List<String> links) {
            if (!links.isEmpty()) {
                List<String> args = new ArrayList<>();
                links.forEach(l -> args.addAll(List.of("--link", l)));
                add(out, CREATE_SYMLINKS, args);
            }
        }
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

    /**
     * A device with its nodes and, as {@code nvidia-ctk} does, a {@code create-symlinks} hook that
     * makes its {@code /dev/dri/by-path} links in the container.
     */
    private static CdiSpec.Device device(
            String name,
            List<String> nodes,
            List<DriverFiles.DriLink> dri,
            DriverFiles driver,
            Hooks hooks) {
        List<CdiSpec.Hook> hookList = new ArrayList<>();
        hooks.createSymlinks(
                hookList, dri.stream().map(l -> l.target() + "::" + l.link()).toList());
        return new CdiSpec.Device(
                name,
                new CdiSpec.ContainerEdits(
                        List.of(),
                        nodes.stream().map(p -> node(p, driver)).toList(),
                        List.of(),
                        hookList,
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
            List<String> controlNodes, DriverFiles driver, Hooks hooks) {
        List<CdiSpec.Mount> mounts = new ArrayList<>();
        for (List<String> files :
                List.of(
                        driver.libraries(),
                        driver.binaries(),
                        driver.graphics(),
                        driver.firmware())) {
            for (String f : files) {
                mounts.add(new CdiSpec.Mount(driver.hostPath(f), f, null, MOUNT_OPTIONS));
            }
        }
        // sockets are written to, the MPS pipe folder too: not read-only
        for (String f : driver.ipc()) {
            mounts.add(new CdiSpec.Mount(driver.hostPath(f), f, null, IPC_MOUNT_OPTIONS));
        }
        List<CdiSpec.Hook> hookList = new ArrayList<>();
        // the soname links next to the mounted files (libcuda.so.1 → libcuda.so.<version>), as
        // the host has them: the container's loader opens the soname
        List<String> links = new ArrayList<>();
        new TreeMap<>(driver.sonameLinks())
                .forEach((link, target) -> links.add(target + "::" + link));
        Set<String> folders = new LinkedHashSet<>();
        boolean cuda = false;
        String suffix = ".so." + driver.version();
        for (String lib : driver.libraries()) {
            String dir = lib.substring(0, lib.lastIndexOf('/'));
            String file = lib.substring(dir.length() + 1);
            folders.add(dir);
            if (file.equals("libcuda" + suffix)) {
                // the development link that CUDA programs built with -lcuda open
                links.add("libcuda.so.1::" + dir + "/libcuda.so");
                cuda = true;
            }
        }
        links.addAll(graphicsLinks(driver, suffix));
        hooks.createSymlinks(hookList, links);
        if (cuda) {
            // an image with CUDA's forward-compatibility libraries newer than this driver uses
            // them; before update-ldcache, which reads the folder this hook adds
            hooks.add(
                    hookList,
                    ENABLE_CUDA_COMPAT,
                    List.of("--host-driver-version=" + driver.version()));
        }
        if (!folders.isEmpty()) {
            // ldconfig in the container: the sonames (libcuda.so.1) and the cache for the mounts
            List<String> args = new ArrayList<>();
            folders.forEach(f -> args.addAll(List.of("--folder", f)));
            hooks.add(hookList, UPDATE_LDCACHE, args);
        }
        // ModifyDeviceFiles=0 in the container's view of the driver's params: NVML there must
        // not make the nodes of GPUs the container was not given
        hooks.add(hookList, DISABLE_DEVICE_NODE_MODIFICATION, List.of());
        return new CdiSpec.ContainerEdits(
                List.of(VISIBLE_DEVICES_VOID),
                controlNodes.stream().map(p -> node(p, driver)).toList(),
                mounts,
                hookList,
                List.of());
    }

    /**
     * The links graphics programs open that no soname names, as {@code nvidia-ctk} makes them:
     * {@code libglxserver_nvidia.so} (the X server's GLX module), {@code
     * libnvidia-vulkan-producer.so}, and GBM's {@code gbm/nvidia-drm_gbm.so} backend.
     */
    private static List<String> graphicsLinks(DriverFiles driver, String suffix) {
        List<String> out = new ArrayList<>();
        List<String> files = new ArrayList<>(driver.libraries());
        files.addAll(driver.graphics());
        for (String f : files) {
            String dir = f.substring(0, f.lastIndexOf('/'));
            String file = f.substring(dir.length() + 1);
            if (file.equals("libglxserver_nvidia" + suffix)
                    || file.equals("libnvidia-vulkan-producer" + suffix)) {
                out.add(
                        file
                                + "::"
                                + dir
                                + "/"
                                + file.substring(0, file.length() - suffix.length())
                                + ".so");
            } else if (file.equals("libnvidia-allocator" + suffix)) {
                out.add("../libnvidia-allocator.so.1::" + dir + "/gbm/nvidia-drm_gbm.so");
            }
        }
        return out;
    }

    private static CdiSpec versioned(
            String kind, List<CdiSpec.Device> devices, CdiSpec.ContainerEdits edits) {
        CdiSpec draft = new CdiSpec(CdiVersions.EARLIEST, kind, Map.of(), devices, edits);
        return new CdiSpec(CdiVersions.minimum(draft), kind, Map.of(), devices, edits);
    }
}
