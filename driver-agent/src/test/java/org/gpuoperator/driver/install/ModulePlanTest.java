package org.gpuoperator.driver.install;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.gpuoperator.driver.host.LoadedModules;
import org.gpuoperator.driver.host.NvidiaProcFs.KernelGpu;
import org.junit.jupiter.api.Test;

/** The pure decisions: which modules to use, and which device nodes a driver needs. */
class ModulePlanTest {

    static final String K = "6.8.0-45-generic";
    static final Path PRE = Path.of("/pkg/precompiled", K);
    static final Path LIB = Path.of("/lib/modules", K, "kernel/drivers/video");
    static final Path SRC = Path.of("/pkg/kernel");
    static final Optional<KernelHeaders> HEADERS =
            Optional.of(KernelHeaders.of(Path.of("/host/usr/src/linux-headers-" + K)));

    static ModulePlan.Candidate at(Path dir, String kernel) {
        return new ModulePlan.Candidate(dir, Optional.ofNullable(kernel));
    }

    static ModulePlan choose(
            ModulePlan.Candidate pre,
            ModulePlan.Candidate lib,
            ModulePlan.Candidate built,
            Optional<KernelHeaders> headers) {
        return ModulePlan.choose(
                K, List.of(pre, lib), built, headers, List.of("/usr/src/linux-headers-" + K));
    }

    @Test
    void precompiledForTheKernelWinsOverEverything() {
        assertThat(choose(at(PRE, K), at(LIB, K), at(SRC, K), HEADERS))
                .isEqualTo(new ModulePlan.Precompiled(PRE));
        assertThat(choose(at(PRE, null), at(LIB, K), at(SRC, K), HEADERS))
                .isEqualTo(new ModulePlan.Precompiled(LIB));
    }

    @Test
    void precompiledForAnotherKernelFallsBackToBuiltModulesForThisKernel() {
        assertThat(choose(at(PRE, "6.8.0-40-generic"), at(LIB, null), at(SRC, K), Optional.empty()))
                .isEqualTo(new ModulePlan.ReuseBuilt(SRC));
    }

    @Test
    void builtModulesForAnotherKernelAreRebuiltAndNamedStale() {
        assertThat(choose(at(PRE, null), at(LIB, null), at(SRC, "6.8.0-40-generic"), HEADERS))
                .isEqualTo(
                        new ModulePlan.Build(SRC, HEADERS.get(), Optional.of("6.8.0-40-generic")));
        assertThat(choose(at(PRE, null), at(LIB, null), at(SRC, null), HEADERS))
                .isEqualTo(new ModulePlan.Build(SRC, HEADERS.get(), Optional.empty()));
    }

    @Test
    void withoutModulesOrHeadersTheErrorSaysWhatToInstall() {
        assertThatThrownBy(
                        () -> choose(at(PRE, null), at(LIB, null), at(SRC, null), Optional.empty()))
                .isInstanceOf(DriverStepException.class)
                .hasMessage(
                        "no precompiled modules for kernel "
                                + K
                                + " and no kernel headers to build them "
                                + "(looked in /usr/src/linux-headers-"
                                + K
                                + "): install linux-headers-"
                                + K
                                + " on the node, or use a driver image with precompiled modules for "
                                + K);
    }

    @Test
    void deviceNodesFollowTheKernelsGpusAndLoadedModules() {
        List<KernelGpu> gpus =
                List.of(new KernelGpu("0000:17:00.0", 0), new KernelGpu("0000:3b:00.0", 3));
        LoadedModules onlyNvidia = LoadedModules.parse("nvidia 1 0 - Live 0x0\n");
        assertThat(DeviceNodes.desired(gpus, Map.of(), onlyNvidia))
                .containsExactly(
                        new DeviceNodes.DeviceNode("/dev/nvidiactl", 195, 255),
                        new DeviceNodes.DeviceNode("/dev/nvidia0", 195, 0),
                        new DeviceNodes.DeviceNode("/dev/nvidia3", 195, 3));

        LoadedModules withUvm =
                LoadedModules.parse("nvidia 1 0 - Live 0x0\nnvidia_uvm 1 0 - Live 0x0\n");
        assertThat(DeviceNodes.desired(List.of(), Map.of("nvidia-uvm", 507), withUvm))
                .contains(
                        new DeviceNodes.DeviceNode("/dev/nvidia-uvm", 507, 0),
                        new DeviceNodes.DeviceNode("/dev/nvidia-uvm-tools", 507, 1));
        assertThatThrownBy(() -> DeviceNodes.desired(List.of(), Map.of(), withUvm))
                .hasMessageContaining(
                        "nvidia_uvm is loaded but /proc/devices has no nvidia-uvm entry");
    }

    @Test
    void modulesLoadDependenciesFirstAndUnloadDependentsFirst() {
        assertThat(KernelModules.loadOrder(false))
                .containsExactly("nvidia", "nvidia-uvm", "nvidia-modeset");
        assertThat(KernelModules.loadOrder(true)).endsWith("nvidia-peermem");
        assertThat(KernelModules.unloadOrder()).endsWith("nvidia").startsWith("nvidia-peermem");
    }
}
