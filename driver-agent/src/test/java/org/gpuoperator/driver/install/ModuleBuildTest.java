package org.gpuoperator.driver.install;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** A module build's command line and the check of what it built. */
class ModuleBuildTest {

    static final Path SRC = Path.of("/src/nvidia-current-535.309.01");
    static final KernelHeaders DEBIAN =
            new KernelHeaders(
                    Path.of("/usr/src/linux-headers-6.1.0-57-common"),
                    Path.of("/usr/src/linux-headers-6.1.0-57-amd64"));
    static final Path KO = SRC.resolve("nvidia.ko");

    @Test
    void makeCommandsPassSourceAndOutputTreesSeparately() {
        assertThat(ModuleBuild.makeCommand(SRC, 2, DEBIAN))
                .containsExactly(
                        "make",
                        "-C",
                        SRC.toString(),
                        "-j2",
                        "SYSSRC=/usr/src/linux-headers-6.1.0-57-common",
                        "SYSOUT=/usr/src/linux-headers-6.1.0-57-amd64",
                        "modules");
        assertThat(ModuleBuild.makeCommand(SRC, 0, DEBIAN)).contains("-j1");
        assertThat(ModuleBuild.cleanCommand(SRC, DEBIAN))
                .containsExactly(
                        "make",
                        "-C",
                        SRC.toString(),
                        "SYSSRC=/usr/src/linux-headers-6.1.0-57-common",
                        "SYSOUT=/usr/src/linux-headers-6.1.0-57-amd64",
                        "clean");
    }

    @Test
    void aResultForTheWantedKernelHasNoProblem() {
        assertThat(
                        ModuleBuild.resultProblem(
                                KO, Optional.of("6.1.0-57-amd64"), "6.1.0-57-amd64", DEBIAN))
                .isEmpty();
    }

    @Test
    void aResultForAnotherKernelNamesBothKernelsAndTheHeaders() {
        assertThat(
                        ModuleBuild.resultProblem(
                                KO, Optional.of("6.18.44-fc-v1045"), "6.1.0-57-amd64", DEBIAN))
                .contains(
                        "the build finished but /src/nvidia-current-535.309.01/nvidia.ko is for"
                                + " kernel 6.18.44-fc-v1045, not 6.1.0-57-amd64: do the headers in"
                                + " /usr/src/linux-headers-6.1.0-57-amd64 (sources"
                                + " /usr/src/linux-headers-6.1.0-57-common) belong to kernel"
                                + " 6.1.0-57-amd64?");
        assertThat(
                        ModuleBuild.resultProblem(
                                KO,
                                Optional.empty(),
                                "6.1.0-57-amd64",
                                KernelHeaders.of(Path.of("/h"))))
                .contains(
                        "the build finished but /src/nvidia-current-535.309.01/nvidia.ko is missing"
                                + " or has no vermagic: do the headers in /h"
                                + " belong to kernel 6.1.0-57-amd64?");
    }
}
