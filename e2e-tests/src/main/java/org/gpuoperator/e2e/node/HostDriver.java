package org.gpuoperator.e2e.node;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.gpuoperator.node.inventory.simulated.SimulatedDriverFiles;
import org.gpuoperator.node.inventory.simulated.SimulatedProfiles;

/**
 * A pre-installed NVIDIA driver on a simulated node's host root: what a distro's driver package,
 * its kernel module and udev leave on a managed-Kubernetes or DGX node. Written where the real
 * kernel and package put them, in the formats the simulated driver agent's kernel writes, so the
 * same readers (driver agent's host driver detection, the validator, the simulated nvidia runtime)
 * find it:
 *
 * <ul>
 *   <li>{@code /proc/driver/nvidia/version} and {@code /proc/driver/nvidia/gpus/<bus>/information}
 *       (the loaded module, one entry per GPU), {@code /proc/modules}, {@code /proc/devices};
 *   <li>{@code /dev/nvidiactl}, {@code /dev/nvidia<minor>}, {@code /dev/nvidia-uvm} (device files
 *       are regular files holding {@code c major:minor} in simulation);
 *   <li>{@code /usr/bin/nvidia-smi}, and empty stand-ins of the driver's libraries ({@link
 *       SimulatedDriverFiles}, e.g. {@code /usr/lib/x86_64-linux-gnu/libcuda.so.<version>}).
 * </ul>
 */
public final class HostDriver {

    /** How a host driver can be broken on purpose. */
    public enum Fault {
        /**
         * The package is installed but its kernel module is not loaded (e.g. after a kernel
         * update).
         */
        MODULE_NOT_LOADED,
        /** The module is loaded but udev made no device nodes. */
        NO_DEVICE_NODES
    }

    static final String VERSION_FILE = "proc/driver/nvidia/version";

    private HostDriver() {}

    /** Installs driver {@code version} for the GPUs of simulated {@code profile}. */
    public static void install(Path hostRoot, String version, String profile) throws IOException {
        int gpus = SimulatedProfiles.builtIn().get(profile).count();
        write(
                hostRoot.resolve(VERSION_FILE),
                "NVRM version: NVIDIA UNIX x86_64 Kernel Module  "
                        + version
                        + "  (simulated host driver)\n"
                        + "GCC version:  gcc version 12.2.0 (Debian 12.2.0-14)\n");
        List<String> devices = new ArrayList<>(List.of("nvidiactl:255", "nvidia-modeset:254"));
        for (int i = 0; i < gpus; i++) {
            // the bus ids the simulated GPU inventory reports, in the kernel's lower-case form
            String bus = String.format(Locale.ROOT, "0000:%02x:00.0", 0x18 + i * 0x10);
            write(
                    hostRoot.resolve("proc/driver/nvidia/gpus/" + bus + "/information"),
                    "Model: \t\t Simulated GPU\nBus Location: \t "
                            + bus
                            + "\nDevice Minor: \t "
                            + i
                            + "\n");
            devices.add("nvidia" + i + ":" + i);
        }
        write(
                hostRoot.resolve("proc/modules"),
                "nvidia_uvm 1048576 0 - Live 0x0000000000000000\n"
                        + "nvidia_modeset 1048576 0 - Live 0x0000000000000000\n"
                        + "nvidia 1048576 2 nvidia_uvm,nvidia_modeset, Live 0x0000000000000000\n");
        write(
                hostRoot.resolve("proc/devices"),
                "Character devices:\n  1 mem\n195 nvidia\n195 nvidiactl\n510 nvidia-uvm\n"
                        + "511 nvidia-caps\n"
                        + "\nBlock devices:\n  7 loop\n");
        for (String d : devices) {
            String[] nameMinor = d.split(":");
            write(hostRoot.resolve("dev/" + nameMinor[0]), "c 195:" + nameMinor[1] + "\n");
        }
        write(hostRoot.resolve("dev/nvidia-uvm"), "c 510:0\n");
        write(hostRoot.resolve("dev/nvidia-uvm-tools"), "c 510:1\n");
        Path smi = hostRoot.resolve("usr/bin/nvidia-smi");
        write(
                smi,
                "#!/bin/sh\n"
                        + "# simulated host driver's nvidia-smi: answers while the module is loaded\n"
                        + "v=/proc/driver/nvidia/version\n"
                        + "[ -f \"$v\" ] || { echo \"NVIDIA-SMI has failed because it couldn't"
                        + " communicate with the NVIDIA driver.\"; exit 9; }\n"
                        + "echo \"NVIDIA-SMI (simulated host driver)  Driver Version: "
                        + version
                        + "  GPUs: "
                        + gpus
                        + "\"\n");
        Files.setPosixFilePermissions(smi, PosixFilePermissions.fromString("rwxr-xr-x"));
        SimulatedDriverFiles.layDown(hostRoot, version);
    }

    /** Breaks an installed host driver the way {@code fault} says. */
    public static void breakIt(Path hostRoot, Fault fault) throws IOException {
        switch (fault) {
            case MODULE_NOT_LOADED -> {
                deleteTree(hostRoot.resolve("proc/driver/nvidia"));
                Files.writeString(hostRoot.resolve("proc/modules"), "");
            }
            case NO_DEVICE_NODES -> {
                try (var files = Files.list(hostRoot.resolve("dev"))) {
                    for (Path f : files.toList()) {
                        if (f.getFileName().toString().startsWith("nvidia")) {
                            Files.delete(f);
                        }
                    }
                }
            }
        }
    }

    private static void write(Path file, String text) throws IOException {
        Files.createDirectories(file.getParent());
        Files.writeString(file, text);
    }

    private static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (var walk = Files.walk(dir)) {
            for (Path p : walk.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(p);
            }
        }
    }
}
