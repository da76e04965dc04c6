package org.gpuoperator.driver.host;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.gpuoperator.node.host.ProcDevices;

/**
 * What the kernel says about the NVIDIA driver, read from the host's {@code /proc}: the loaded
 * module's version, the GPUs it bound, the character device majors and the loaded modules.
 */
public final class NvidiaProcFs {

    public static final String VERSION_FILE = "/proc/driver/nvidia/version";
    public static final String GPUS_DIR = "/proc/driver/nvidia/gpus";
    public static final String MODULES_FILE = "/proc/modules";
    public static final String DEVICES_FILE = "/proc/devices";

    // "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.15  Tue Mar  5 22:23:56 UTC 2024"
    // "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  560.35.03  Release Build ..."
    private static final Pattern VERSION =
            Pattern.compile("Kernel Module(?: for \\S+)?\\s+(\\d+(?:\\.\\d+)+)");
    private static final Pattern MINOR = Pattern.compile("(?m)^Device Minor:\\s*(\\d+)");

    private final HostRoot host;

    public NvidiaProcFs(HostRoot host) {
        this.host = host;
    }

    /** The version of the loaded nvidia module, when it is loaded. */
    public Optional<String> loadedDriverVersion() {
        return read(VERSION_FILE).flatMap(NvidiaProcFs::parseVersion);
    }

    public static Optional<String> parseVersion(String versionFile) {
        Matcher m = VERSION.matcher(versionFile);
        return m.find() ? Optional.of(m.group(1)) : Optional.empty();
    }

    /** One GPU the kernel module bound: its PCI address and device minor number. */
    public record KernelGpu(String pciAddress, int minor) {}

    /** The GPUs the nvidia module bound, by minor number; empty when it is not loaded. */
    public List<KernelGpu> kernelGpus() {
        Path dir = host.path(GPUS_DIR);
        List<KernelGpu> out = new ArrayList<>();
        if (!Files.isDirectory(dir)) {
            return out;
        }
        try (Stream<Path> entries = Files.list(dir)) {
            List<Path> sorted = entries.sorted().toList();
            for (int i = 0; i < sorted.size(); i++) {
                Path gpu = sorted.get(i);
                int minor = i;
                try {
                    Matcher m = MINOR.matcher(Files.readString(gpu.resolve("information")));
                    if (m.find()) {
                        minor = Integer.parseInt(m.group(1));
                    }
                } catch (IOException ignored) {
                    // no information file: keep the position as the minor, as the driver numbers
                    // them
                }
                out.add(new KernelGpu(gpu.getFileName().toString(), minor));
            }
        } catch (IOException e) {
            return out;
        }
        out.sort((a, b) -> Integer.compare(a.minor(), b.minor()));
        return out;
    }

    public LoadedModules loadedModules() {
        return read(MODULES_FILE).map(LoadedModules::parse).orElse(LoadedModules.NONE);
    }

    /**
     * Character device majors by name, from {@code /proc/devices} ({@code 195 nvidia}, {@code 509
     * nvidia-uvm}).
     */
    public Map<String, Integer> characterMajors() {
        return ProcDevices.characterMajors(read(DEVICES_FILE).orElse(""));
    }

    private Optional<String> read(String hostPath) {
        try {
            return Optional.of(Files.readString(host.path(hostPath)));
        } catch (IOException e) {
            return Optional.empty();
        }
    }
}
