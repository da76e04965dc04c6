package org.gpuoperator.validator.driver;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.gpuoperator.node.inventory.GpuSourceOptions;
import org.gpuoperator.validator.report.CheckResult;
import org.gpuoperator.validator.report.CheckState;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The driver check against the simulated GPU source and a host root with stand-in device nodes. */
class DriverCheckTest {

    @TempDir Path host;

    @BeforeEach
    void devices() throws Exception {
        Files.createDirectories(host.resolve("dev"));
        for (String n : List.of("nvidiactl", "nvidia0", "nvidia1")) {
            Files.createFile(host.resolve("dev").resolve(n));
        }
    }

    DriverCheck check(boolean links) {
        return new DriverCheck(
                new DriverCheck.Settings(host, "/", true, links),
                new InventoryProbe(GpuSourceOptions.of("simulated:l4-x2", host, "node-a")));
    }

    @Test
    void aHostDriverWithItsDeviceNodesIsReadyAndGetsTheDevCharLinks() throws Exception {
        CheckResult r = check(true).run();
        assertThat(r.state()).as(r.reason()).isEqualTo(CheckState.READY);
        assertThat(r.facts())
                .containsEntry("IS_HOST_DRIVER", "true")
                .containsEntry("NVIDIA_DRIVER_ROOT", "/");
        Path chr = host.resolve("dev/char");
        assertThat(Files.readSymbolicLink(chr.resolve("195:255")))
                .isEqualTo(Path.of("../nvidiactl"));
        assertThat(Files.readSymbolicLink(chr.resolve("195:0"))).isEqualTo(Path.of("../nvidia0"));
        assertThat(Files.readSymbolicLink(chr.resolve("195:1"))).isEqualTo(Path.of("../nvidia1"));
        // the link resolves to the device node
        assertThat(chr.resolve("195:1").toRealPath())
                .isEqualTo(host.resolve("dev/nvidia1").toRealPath());
    }

    @Test
    void aMissingControlDeviceFailsNamingThePathAndTheHostRoot() {
        host.resolve("dev/nvidiactl").toFile().delete();
        CheckResult r = check(true).run();
        assertThat(r.state()).isEqualTo(CheckState.FAILED);
        assertThat(r.reason())
                .isEqualTo("no usable host driver: /dev/nvidiactl missing under " + host);
        assertThat(host.resolve("dev/char")).doesNotExist();
    }

    @Test
    void aMissingGpuDeviceNodeFailsNamingIt() {
        host.resolve("dev/nvidia1").toFile().delete();
        assertThat(check(true).run().reason()).contains("/dev/nvidia1 missing");
    }

    @Test
    void withLinksTurnedOffNoDevCharLinkIsMade() {
        assertThat(check(false).run().isReady()).isTrue();
        assertThat(host.resolve("dev/char")).doesNotExist();
    }

    @Test
    void aDriverRootThatDoesNotExistIsNoUsableDriver() {
        CheckResult r =
                new DriverCheck(
                                new DriverCheck.Settings(host, "/run/nvidia/driver", false, true),
                                new InventoryProbe(
                                        GpuSourceOptions.of("simulated:l4-x2", host, "node-a")))
                        .run();
        assertThat(r.state()).isEqualTo(CheckState.FAILED);
        assertThat(r.reason())
                .startsWith("no usable driver container: NVML from /run/nvidia/driver: ")
                .contains("does not exist");
    }

    @Test
    void nvmlThatCannotLoadIsReportedWithItsError() {
        CheckResult r =
                new DriverCheck(
                                new DriverCheck.Settings(host, "/", true, true),
                                root -> {
                                    throw new IllegalStateException(
                                            "libnvidia-ml.so.1 not found under " + root);
                                })
                        .run();
        assertThat(r.reason())
                .isEqualTo(
                        "no usable host driver: NVML from /: libnvidia-ml.so.1 not found under "
                                + host);
    }
}
