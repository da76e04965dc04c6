package org.gpuoperator.toolkit.simulated;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.gpuoperator.node.agent.AtomicFiles;
import org.gpuoperator.node.cdi.CdiSpec;
import org.gpuoperator.node.cdi.HostFs;
import org.gpuoperator.node.inventory.GpuSource;
import org.gpuoperator.node.inventory.simulated.SimulatedGpuInventory;
import org.gpuoperator.node.inventory.simulated.SimulatedGpuProcesses;
import org.gpuoperator.node.inventory.simulated.SimulatedProfile;
import org.gpuoperator.node.inventory.simulated.SimulatedProfiles;

/**
 * The Java half of the simulated nvidia-container-runtime: the installed {@code #!/bin/sh} wrapper
 * calls it for {@code create} only, before it runs runc with the same arguments. It reads the
 * bundle's {@code config.json}, decides as the real runtime would, and either edits the spec (GPU
 * mounts, atomically) and exits 0, or refuses with the real runtime's error on stderr and in runc's
 * {@code --log} file (where containerd's shim reads the runtime's last error) and exits 1, so runc
 * never runs.
 *
 * <p>Arguments: {@code <install dir> <runc arguments...>}. The node's {@code /run/nvidia}, {@code
 * /var/run/cdi} and {@code /etc/cdi} are read at their usual paths, under {@value #NODE_ROOT_ENV}
 * when set (tests).
 */
public final class SimulatedRuntimeMain {

    /** Root under which the node's /run/nvidia and CDI dirs are (default /). */
    public static final String NODE_ROOT_ENV = "NVIDIA_SIMULATED_NODE_ROOT";

    /**
     * Per-container description files, relative to the node root; the wrapper removes a container's
     * on delete.
     */
    public static final String CONTAINERS_DIR = SimulatedGpuProcesses.CONTAINERS_DIR;

    /** Also what the simulated inventory reads to tell which processes use which GPU. */
    public static final String DESCRIPTION_FILE = SimulatedGpuProcesses.DESCRIPTION_FILE;

    private SimulatedRuntimeMain() {}

    public static void main(String[] args) {
        Path nodeRoot = Path.of(System.getenv().getOrDefault(NODE_ROOT_ENV, "/"));
        System.exit(
                run(
                        Path.of(args[0]),
                        Arrays.asList(args).subList(1, args.length),
                        nodeRoot,
                        RuntimeMode.of(System.getenv(RuntimeMode.ENV)),
                        Clock.systemUTC(),
                        System.err));
    }

    /** As the {@code nvidia} handler ({@code auto} mode) runs it. */
    public static int run(
            Path installDir, List<String> runcArgs, Path nodeRoot, Clock clock, PrintStream err) {
        return run(installDir, runcArgs, nodeRoot, RuntimeMode.AUTO, clock, err);
    }

    /**
     * @return the exit code: 0 = run runc now, 1 = refused (the message is on {@code err} and in
     *     the log)
     */
    public static int run(
            Path installDir,
            List<String> runcArgs,
            Path nodeRoot,
            RuntimeMode mode,
            Clock clock,
            PrintStream err) {
        RuncArgs a = RuncArgs.parse(runcArgs);
        try {
            if (!"create".equals(a.command())) {
                return 0; // only create changes anything; the wrapper runs runc for the rest
            }
            create(installDir, a, nodeRoot, mode);
            return 0;
        } catch (RuntimeRefusal r) {
            err.println(r.getMessage());
            logError(a, r.getMessage(), clock);
            return 1;
        } catch (IOException | RuntimeException e) {
            String msg = "nvidia-container-runtime (simulated): " + e;
            err.println(msg);
            logError(a, msg, clock);
            return 1;
        }
    }

    static void create(Path installDir, RuncArgs a, Path nodeRoot, RuntimeMode mode)
            throws RuntimeRefusal, IOException {
        if (a.id() == null || !a.id().matches("[A-Za-z0-9_+.-]+") || a.id().matches("\\.+")) {
            throw RuntimeRefusal.invalid(
                    "create: invalid or missing container id '" + a.id() + "'");
        }
        Path bundle = Path.of(a.bundle());
        Path configJson = bundle.resolve("config.json");
        OciSpecEdit spec = OciSpecEdit.parse(Files.readAllBytes(configJson));

        Path configFile = installDir.resolve(RuntimeConfig.RELATIVE_PATH);
        RuntimeConfig config =
                Files.isRegularFile(configFile)
                        ? RuntimeConfig.parse(Files.readString(configFile), configFile)
                        : null;
        String prefix =
                config == null
                        ? RuntimeConfig.DEFAULT_CDI_ANNOTATION_PREFIX
                        : config.cdiAnnotationPrefix();
        CdiDevices.Request asked =
                CdiDevices.request(
                        spec.cdiDevices(prefix),
                        VisibleDevices.fromEnv(spec.env()),
                        mode,
                        config == null ? RuntimeConfig.DEFAULT_CDI_KIND : config.cdiDefaultKind());
        CdiDevices.Resolved cdi =
                asked.cdiNames().isEmpty() ? null : CdiDevices.resolve(asked.cdiNames(), nodeRoot);
        VisibleDevices request =
                cdi == null ? asked.legacy() : CdiDevices.union(asked.legacy(), cdi.visible());
        OciSpecEdit edited =
                cdi == null ? spec : spec.withCdiEdits(onThisNode(cdi.edits(), nodeRoot));
        if (!request.requested()) {
            if (cdi != null) {
                AtomicFiles.write(configJson, edited.toBytes()); // other vendors' devices only
            }
            return; // not a GPU container: runc gets the bundle untouched
        }
        if (config == null) {
            config = RuntimeConfig.parse(Files.readString(configFile), configFile);
        }
        DriverState.check(underRoot(nodeRoot, config.driverRoot()), Path.of(config.hostRoot()));
        if (cdi == null) {
            // the legacy way: libnvidia-container mounts the loaded driver's libraries
            edited =
                    edited.withCdiEdits(
                            onThisNode(
                                    LegacyDriverLibraries.edits(
                                            Path.of(config.hostRoot()),
                                            underRoot(nodeRoot, config.driverRoot()),
                                            config.driverRoot()),
                                    nodeRoot));
        }

        GpuSource source = GpuSource.parse(config.gpuSource());
        if (!source.simulated()) {
            throw RuntimeRefusal.invalid(
                    configFile
                            + ": simulated.gpu-source must be simulated:<profile>, got '"
                            + config.gpuSource()
                            + "'");
        }
        SimulatedProfile profile =
                SimulatedProfiles.withUserFile(
                                config.profilesFile() == null
                                        ? null
                                        : Path.of(config.profilesFile()))
                        .get(source.profile());
        // Faults live under the node's /run/nvidia, as SimulatedFaults writes them.
        SimulatedGpuInventory inventory =
                new SimulatedGpuInventory(profile, config.nodeName(), nodeRoot, Clock.systemUTC());
        Set<Integer> lost =
                inventory.faults().active().entrySet().stream()
                        .filter(e -> e.getValue().lost())
                        .map(Map.Entry::getKey)
                        .collect(Collectors.toSet());
        VisibleGpus visible = VisibleGpus.resolve(request, inventory.gpus(), lost);

        Path description =
                nodeRoot.resolve(CONTAINERS_DIR).resolve(a.id()).resolve(DESCRIPTION_FILE);
        AtomicFiles.writeString(
                description, GpuDescription.render(a.id(), inventory.node(), profile, visible));
        edited =
                edited.withGpuMounts(
                        installDir.resolve("nvidia-smi").toString(), description.toString());
        Path rootfs = configJson.getParent().resolve(spec.rootPath());
        if (!Files.exists(rootfs.resolve("bin/sh"), LinkOption.NOFOLLOW_LINKS)
                && Files.isExecutable(NODE_BUSYBOX)) {
            edited = edited.withShell(NODE_BUSYBOX.toString());
        }
        AtomicFiles.write(configJson, edited.toBytes());
    }

    /**
     * The resolved edits as this node can apply them, as the CDI library completes them: a device
     * node without type and numbers gets the host node's (under the node root), and one the host
     * lacks fails the create with CDI's error. A mount whose source runc would not find (runc binds
     * the path as it is, in this runtime's mount namespace) is left out: on a simulated node a host
     * driver's files live under the node root, which the namespace does not bind at {@code /} (a
     * real node always has the files the spec was generated from).
     */
    static CdiSpec.ContainerEdits onThisNode(CdiSpec.ContainerEdits edits, Path nodeRoot)
            throws RuntimeRefusal, IOException {
        HostFs host = new HostFs(nodeRoot);
        List<CdiSpec.DeviceNode> nodes = new ArrayList<>();
        for (CdiSpec.DeviceNode n : edits.deviceNodes()) {
            if (n.type() != null && n.major() != null && n.minor() != null) {
                nodes.add(n);
                continue;
            }
            String hostPath = n.hostPath() != null ? n.hostPath() : n.path();
            CdiSpec.DeviceNode found =
                    host.deviceNode(hostPath)
                            .orElseThrow(
                                    () ->
                                            RuntimeRefusal.invalid(
                                                    "error modifying OCI spec: failed to inject CDI"
                                                            + " devices: failed to stat CDI host"
                                                            + " device \""
                                                            + hostPath
                                                            + "\": no such file or directory"));
            nodes.add(
                    new CdiSpec.DeviceNode(
                            n.path(),
                            n.hostPath(),
                            n.type() != null ? n.type() : found.type(),
                            n.major() != null ? n.major() : found.major(),
                            n.minor() != null ? n.minor() : found.minor(),
                            n.permissions(),
                            n.uid(),
                            n.gid()));
        }
        List<CdiSpec.Mount> mounts =
                edits.mounts().stream().filter(m -> Files.exists(Path.of(m.hostPath()))).toList();
        return new CdiSpec.ContainerEdits(
                edits.env(), nodes, mounts, edits.hooks(), edits.additionalGids());
    }

    /** A static busybox on the node (the simulated cluster's hosts install busybox-static). */
    static final Path NODE_BUSYBOX = Path.of("/bin/busybox");

    private static Path underRoot(Path nodeRoot, String absolute) {
        return nodeRoot.resolve(absolute.startsWith("/") ? absolute.substring(1) : absolute);
    }

    /**
     * One line in runc's log format, so containerd's shim reports this message as the runtime's
     * error.
     */
    static void logError(RuncArgs a, String message, Clock clock) {
        if (a.log() == null || a.log().isEmpty()) {
            return;
        }
        String time = Instant.now(clock).toString();
        String line =
                "json".equals(a.logFormat())
                        ? "{\"level\":\"error\",\"msg\":"
                                + jsonString(message)
                                + ",\"time\":\""
                                + time
                                + "\"}\n"
                        : "time=\""
                                + time
                                + "\" level=error msg=\""
                                + message.replace("\"", "\\\"")
                                + "\"\n";
        try {
            Files.writeString(
                    Path.of(a.log()),
                    line,
                    StandardCharsets.UTF_8,
                    StandardOpenOption.CREATE,
                    StandardOpenOption.APPEND);
        } catch (IOException ignored) {
            // stderr already has the message
        }
    }

    private static String jsonString(String s) {
        StringBuilder sb = new StringBuilder(s.length() + 2);
        OciJson.quote(s, sb);
        return sb.toString();
    }
}
