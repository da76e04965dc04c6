package org.gpuoperator.validator.driver;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.gpuoperator.node.agent.AgentCommand;
import org.gpuoperator.node.host.HostPaths;
import org.gpuoperator.node.inventory.Gpu;
import org.gpuoperator.validator.report.CheckResult;

/**
 * The driver layer: NVML loads from the driver root and sees GPUs, and {@code /dev/nvidiactl} and
 * {@code /dev/nvidia<minor>} of each GPU exist under the host's {@code /dev}; then the {@code
 * /dev/char} links are made (unless turned off).
 */
public final class DriverCheck {

    /**
     * @param hostRoot where the host's filesystem is mounted
     * @param driverRoot the driver root as the host sees it ({@code /} for a host driver)
     * @param hostDriver the driver is the host's (not managed): for the wording and the facts
     * @param devCharLinks create the {@code /dev/char} links
     */
    public record Settings(
            Path hostRoot, String driverRoot, boolean hostDriver, boolean devCharLinks) {}

    private final Settings settings;
    private final GpuProbe probe;

    public DriverCheck(Settings settings, GpuProbe probe) {
        this.settings = settings;
        this.probe = probe;
    }

    /** The driver root as this process sees it. */
    public Path driverRootSeen() {
        return HostPaths.under(settings.hostRoot(), settings.driverRoot());
    }

    public CheckResult run() {
        String what = settings.hostDriver() ? "host driver" : "driver container";
        List<Gpu> gpus;
        try {
            gpus = probe.gpus(driverRootSeen());
        } catch (RuntimeException e) {
            return CheckResult.failed(
                    "no usable "
                            + what
                            + ": NVML from "
                            + settings.driverRoot()
                            + ": "
                            + AgentCommand.oneLine(e));
        }
        if (gpus.isEmpty()) {
            return CheckResult.failed("no usable " + what + ": NVML sees no GPU");
        }
        List<String> names = requiredNodes(gpus);
        Path dev = settings.hostRoot().resolve("dev");
        List<DeviceNode> nodes = new ArrayList<>();
        for (String name : names) {
            Path file = dev.resolve(name);
            if (!Files.exists(file, LinkOption.NOFOLLOW_LINKS)) {
                return CheckResult.failed(
                        "no usable "
                                + what
                                + ": /dev/"
                                + name
                                + " missing under "
                                + settings.hostRoot());
            }
            try {
                nodes.add(DeviceNode.read(file));
            } catch (IOException | RuntimeException e) {
                return CheckResult.failed("cannot read " + file + ": " + AgentCommand.oneLine(e));
            }
        }
        if (settings.devCharLinks()) {
            try {
                DevCharLinks.apply(settings.hostRoot(), DevCharLinks.plan(nodes));
            } catch (IOException e) {
                return CheckResult.failed(
                        "cannot create /dev/char links under "
                                + settings.hostRoot()
                                + ": "
                                + AgentCommand.oneLine(e));
            }
        }
        Map<String, String> facts = new LinkedHashMap<>();
        if (settings.hostDriver()) {
            facts.put("IS_HOST_DRIVER", "true");
        }
        facts.put("NVIDIA_DRIVER_ROOT", settings.driverRoot());
        return CheckResult.ready(facts);
    }

    /** {@code nvidiactl} and {@code nvidia<minor>} of each GPU. Pure. */
    public static List<String> requiredNodes(List<Gpu> gpus) {
        List<String> names = new ArrayList<>();
        names.add("nvidiactl");
        for (Gpu g : gpus) {
            names.add("nvidia" + g.minorNumber());
        }
        return names;
    }
}
