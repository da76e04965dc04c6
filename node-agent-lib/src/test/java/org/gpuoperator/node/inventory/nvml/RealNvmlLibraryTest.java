package org.gpuoperator.node.inventory.nvml;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.SymbolLookup;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.gpuoperator.node.inventory.GpuSourceException;
import org.gpuoperator.node.inventory.nvml.NvmlLibrary.Fn;
import org.junit.jupiter.api.Test;

/**
 * The binding against NVIDIA's real {@code libnvidia-ml} as Debian's {@code libnvidia-ml1} installs
 * it ({@code nvidia/current}, reached through {@code /etc/alternatives}; {@code .ci/run} installs
 * it), on a machine without NVIDIA's kernel module: every function binds but one optional, the
 * library is found by the usual search, and the failure says the library was found and the module
 * is not loaded. Skipped where the package is absent or where a driver is loaded.
 */
class RealNvmlLibraryTest {

    static final Path DEBIAN_LIBRARY =
            Path.of("/usr/lib/x86_64-linux-gnu/nvidia/current/libnvidia-ml.so.1");

    @Test
    void everyFunctionButOneOptionalBindsInTheRealLibrary() throws Exception {
        assumeTrue(Files.exists(DEBIAN_LIBRARY), "Debian's libnvidia-ml1 is not installed");
        NvmlLibrary lib =
                new NvmlLibrary(
                        DEBIAN_LIBRARY.toString(),
                        SymbolLookup.libraryLookup(DEBIAN_LIBRARY, Arena.ofAuto()));
        List<String> unbound =
                Arrays.stream(Fn.values()).filter(fn -> !lib.has(fn)).map(Fn::name).toList();
        // the constructor refuses a library without a required function; the only optional one
        // 535 lacks is newer NVML's NUMA call, for which the kernel's sysfs answers instead
        assertThat(unbound)
                .as("functions the real %s lacks", DEBIAN_LIBRARY.toRealPath())
                .containsExactly(Fn.nvmlDeviceGetNumaNodeId.name());
        assertThat(Fn.nvmlDeviceGetNumaNodeId.required).isFalse();
    }

    @Test
    void withoutTheKernelModuleTheErrorNamesTheLibraryFoundAndDriverNotLoaded() throws Exception {
        assumeTrue(Files.exists(DEBIAN_LIBRARY), "Debian's libnvidia-ml1 is not installed");
        assumeFalse(Files.exists(Path.of("/proc/driver/nvidia")), "an NVIDIA driver is loaded");
        String version = DEBIAN_LIBRARY.toRealPath().getFileName().toString();
        assertThat(version).startsWith("libnvidia-ml.so.5");

        // found by the usual search from the host root (the ldcache's soname link)
        assertThatThrownBy(() -> NvmlGpuInventory.open(Path.of("/"), null))
                .isExactlyInstanceOf(GpuSourceException.class)
                .hasMessageStartingWith(
                        "NVML library /usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1 -> ")
                .hasMessageContaining(version)
                .hasMessageContaining(
                        "found, but nvmlInit_v2 returned NVML_ERROR_DRIVER_NOT_LOADED (9): Driver Not"
                                + " Loaded; the NVIDIA kernel module is not loaded");
    }
}
