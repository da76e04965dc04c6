package org.gpuoperator.toolkit.cdi;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.Callable;
import org.gpuoperator.node.agent.AtomicFiles;
import org.gpuoperator.node.cdi.CdiException;
import org.gpuoperator.node.cdi.CdiRegistry;
import org.gpuoperator.node.cdi.CdiSpec;
import org.gpuoperator.node.cdi.CdiSpecGenerator;
import org.gpuoperator.node.cdi.CdiYaml;
import org.gpuoperator.node.cdi.DriverDiscovery;
import org.gpuoperator.node.cdi.DriverFiles;
import org.gpuoperator.node.cdi.HostFs;
import org.gpuoperator.node.inventory.GpuInventory;
import org.gpuoperator.node.inventory.GpuSourceOptions;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * {@code toolkit-agent cdi}: the admin's view of the CDI specs, as {@code nvidia-ctk cdi} gives it.
 * {@code generate} prints (or writes to {@code --output}) the spec the daemon would write for this
 * node, and touches nothing else; {@code list} names the devices of the specs the node has.
 */
@Command(
        name = "cdi",
        description = "Generate or list CDI specs, as nvidia-ctk cdi does.",
        subcommands = {CdiCommand.Generate.class, CdiCommand.ListDevices.class})
public final class CdiCommand implements Callable<Integer> {

    @Spec CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() {
        spec.commandLine().usage(spec.commandLine().getErr());
        return CommandLine.ExitCode.USAGE;
    }

    /** The spec's serialisation. */
    public enum Format {
        yaml,
        json
    }

    /** Which of the two specs. */
    public enum Mode {
        /** {@code nvidia.com/gpu}: one device per GPU and MIG device, and {@code all} */
        gpu,
        /** {@code management.nvidia.com/gpu}: the one device {@code all} with every node */
        management
    }

    @Command(
            name = "generate",
            description =
                    "Prints the CDI spec for this node's GPUs and the driver under --driver-root, or writes it to "
                            + "--output; writes nothing else.")
    static final class Generate implements Callable<Integer> {
        @Mixin GpuSourceOptions gpu;

        @Option(
                names = "--driver-root",
                defaultValue = "/",
                paramLabel = "DIR",
                description =
                        "Where the driver's files are, as a host path (default /: a host-installed driver; "
                                + "/run/nvidia/driver for the driver container's).")
        String driverRoot;

        @Option(
                names = "--driver-version",
                paramLabel = "VERSION",
                description =
                        "The driver version whose libraries to list (default: the GPU source's).")
        String driverVersion;

        @Option(
                names = "--output",
                paramLabel = "FILE",
                description =
                        "Write the spec to this file (atomically) instead of printing it; a .json name means "
                                + "--format json.")
        Path output;

        @Option(
                names = "--format",
                paramLabel = "yaml|json",
                description = "yaml or json (default: the --output file's extension, else yaml).")
        Format format;

        @Option(
                names = "--mode",
                defaultValue = "gpu",
                paramLabel = "gpu|management",
                description =
                        "gpu (kind nvidia.com/gpu, the default) or management (kind management.nvidia.com/gpu).")
        Mode mode;

        @Option(
                names = "--nvidia-cdi-hook-path",
                defaultValue = "/usr/local/nvidia/toolkit/" + CdiSpecGenerator.HOOK_BINARY,
                paramLabel = "FILE",
                description =
                        "The hook the spec's hooks run, a host path (default ${DEFAULT-VALUE}).")
        String hookPath;

        @Option(
                names = "--disable-hooks",
                split = ",",
                paramLabel = "HOOK",
                description =
                        "Hooks to leave out, as nvidia-ctk's: create-symlinks, enable-cuda-compat,"
                                + " update-ldcache, disable-device-node-modification, or all"
                                + " (default none).")
        List<String> disableHooks;

        @Spec CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() throws Exception {
            Set<String> disabled;
            try {
                disabled = CdiSpecFiles.disabledHooks("--disable-hooks", disableHooks);
            } catch (IllegalArgumentException e) {
                throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
            }
            CdiSpec generated;
            try (GpuInventory inv = gpu.open()) {
                String version = driverVersion != null ? driverVersion : inv.node().driverVersion();
                DriverFiles driver;
                try {
                    driver =
                            new DriverDiscovery(new HostFs(gpu.hostRoot()))
                                    .discover(driverRoot, version);
                } catch (IOException | CdiException e) {
                    throw new CdiException(
                            "--driver-root " + driverRoot + ": " + e.getMessage(), e);
                }
                generated =
                        mode == Mode.management
                                ? CdiSpecGenerator.managementSpec(
                                        inv.gpus(), driver, hookPath, disabled)
                                : CdiSpecGenerator.gpuSpec(inv.gpus(), driver, hookPath, disabled);
            }
            String text = render(generated, formatFor(format, output));
            if (output == null) {
                PrintWriter out = spec.commandLine().getOut();
                out.print(text);
                out.flush();
            } else {
                AtomicFiles.writeString(output, text);
            }
            return 0;
        }
    }

    @Command(
            name = "list",
            description =
                    "Prints the fully qualified name of every device in the CDI specs under /etc/cdi and "
                            + "/var/run/cdi of --host-root, one per line.")
    static final class ListDevices implements Callable<Integer> {
        @Option(
                names = "--host-root",
                defaultValue = "${env:HOST_ROOT:-/}",
                paramLabel = "DIR",
                description = "Where the host's filesystem is mounted (default /). Env: HOST_ROOT.")
        Path hostRoot;

        @Spec CommandLine.Model.CommandSpec spec;

        @Override
        public Integer call() throws Exception {
            CdiRegistry registry = CdiRegistry.load(hostRoot);
            PrintWriter out = spec.commandLine().getOut();
            registry.deviceNames().stream().sorted().forEach(out::println);
            out.flush();
            PrintWriter err = spec.commandLine().getErr();
            err.println(
                    "found "
                            + registry.deviceNames().size()
                            + " CDI devices in "
                            + (registry.sources().isEmpty()
                                    ? "no spec (" + String.join(", ", CdiRegistry.SPEC_DIRS) + ")"
                                    : String.join(", ", registry.sources())));
            err.flush();
            return 0;
        }
    }

    /** The format asked for, else the output file's extension, else YAML. Pure. */
    static Format formatFor(Format asked, Path output) {
        if (asked != null) {
            return asked;
        }
        if (output != null
                && output.getFileName().toString().toLowerCase(Locale.ROOT).endsWith(".json")) {
            return Format.json;
        }
        return Format.yaml;
    }

    /** The spec as text in the format. Pure. */
    static String render(CdiSpec spec, Format format) throws JsonProcessingException {
        return switch (format) {
            case yaml -> CdiYaml.render(spec);
            case json ->
                    new ObjectMapper()
                                    .writerWithDefaultPrettyPrinter()
                                    .writeValueAsString(CdiYaml.toMap(spec))
                            + "\n";
        };
    }
}
