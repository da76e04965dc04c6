package org.gpuoperator.node.inventory.nvml;

import java.lang.foreign.Arena;
import java.lang.foreign.SymbolLookup;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.gpuoperator.node.inventory.GpuSourceException;

/**
 * Finds and loads {@code libnvidia-ml.so.1}. Order: an explicit file (option or {@code
 * NVML_LIBRARY}) and nothing else; otherwise the usual library directories under the host root,
 * then under the driver container's root ({@code <host-root>/run/nvidia/driver}), then the plain
 * soname through the dynamic loader.
 */
final class NvmlLibraryLocator {

    static final String SONAME = "libnvidia-ml.so.1";

    /** Where the GPU operator's driver container mounts its root on the host. */
    static final String DRIVER_CONTAINER_ROOT = "run/nvidia/driver";

    private NvmlLibraryLocator() {}

    /** The files to try, in order, for a host root and CPU architecture ({@code os.arch}). Pure. */
    static List<Path> candidates(Path hostRoot, String osArch) {
        String triplet =
                switch (osArch.toLowerCase(Locale.ROOT)) {
                    case "aarch64", "arm64" -> "aarch64-linux-gnu";
                    default -> "x86_64-linux-gnu";
                };
        List<String> libDirs =
                List.of("usr/lib/" + triplet, "usr/lib64", "usr/lib", "lib/" + triplet, "lib64");
        Set<Path> out = new LinkedHashSet<>();
        for (Path root : List.of(hostRoot, hostRoot.resolve(DRIVER_CONTAINER_ROOT))) {
            for (String dir : libDirs) {
                out.add(root.resolve(dir).resolve(SONAME).normalize());
            }
        }
        // Where GKE's driver installer and older nvidia-docker setups put it.
        out.add(hostRoot.resolve("home/kubernetes/bin/nvidia/lib64").resolve(SONAME).normalize());
        out.add(hostRoot.resolve("usr/local/nvidia/lib64").resolve(SONAME).normalize());
        return List.copyOf(out);
    }

    /**
     * Loads the first usable library; a missing or unusable one ends in exactly one {@link
     * GpuSourceException} whose message is {@link NvmlGpuInventory#NOT_FOUND} (the cause lists what
     * was tried).
     */
    static NvmlLibrary load(Path hostRoot, Path explicit) {
        List<String> tried = new ArrayList<>();
        if (explicit != null) {
            if (!Files.isRegularFile(explicit)) {
                throw notFound(
                        List.of(
                                explicit
                                        + ": no such file (set by --nvml-library / NVML_LIBRARY)"));
            }
            NvmlLibrary lib = tryPath(explicit, tried);
            if (lib == null) {
                throw notFound(tried);
            }
            return lib;
        }
        for (Path p : candidates(hostRoot, System.getProperty("os.arch", "amd64"))) {
            if (Files.exists(p)) {
                NvmlLibrary lib = tryPath(p, tried);
                if (lib != null) {
                    return lib;
                }
            }
        }
        try {
            return new NvmlLibrary(SONAME, SymbolLookup.libraryLookup(SONAME, Arena.ofAuto()));
        } catch (IllegalArgumentException | IllegalCallerException e) {
            tried.add(SONAME + " via the dynamic loader: " + e.getMessage());
        }
        throw notFound(tried);
    }

    private static NvmlLibrary tryPath(Path p, List<String> tried) {
        try {
            // An automatic arena: the library is unloaded only once nothing can call into it any
            // more.
            return new NvmlLibrary(p.toString(), SymbolLookup.libraryLookup(p, Arena.ofAuto()));
        } catch (IllegalArgumentException | IllegalCallerException e) {
            tried.add(p + ": " + e.getMessage());
            return null;
        }
    }

    private static GpuSourceException notFound(List<String> tried) {
        return new GpuSourceException(
                NvmlGpuInventory.NOT_FOUND,
                new GpuSourceException("tried: " + String.join("; ", tried)));
    }
}
