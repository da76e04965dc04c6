package org.gpuoperator.driver.install;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.gpuoperator.driver.host.HostRoot;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DriverPackagesTest {

    @TempDir Path tmp;

    private DriverConfig config(String version) {
        Path install = tmp.resolve("image");
        return new DriverConfig(
                new HostRoot(tmp.resolve("host")),
                install,
                install.resolve("usr/src/nvidia-" + version),
                version,
                tmp.resolve("host/run/nvidia/driver"),
                tmp.resolve("host/pid"),
                false,
                0,
                1);
    }

    @Test
    void aVersionTheImageDoesNotCarryNamesTheWantedAndTheCarriedVersions() throws Exception {
        Files.createDirectories(tmp.resolve("image/usr/src/nvidia-550.54.15/kernel"));
        Files.createDirectories(tmp.resolve("image/usr/src/nvidia-535.183.01"));
        Files.createDirectories(tmp.resolve("image/usr/src/linux-headers-6.8.0"));

        assertThat(DriverPackages.available(tmp.resolve("image")))
                .containsExactly("535.183.01", "550.54.15");
        assertThat(DriverPackages.problem(config("560.35.03")))
                .hasValueSatisfying(
                        m ->
                                assertThat(m)
                                        .startsWith(
                                                "no driver package for version 560.35.03 in the"
                                                        + " image (have: 535.183.01, 550.54.15)"));
        assertThat(DriverPackages.problem(config("550.54.15"))).isEmpty();
        assertThat(DriverPackages.onlyVersion(tmp.resolve("image"))).isEmpty();
    }

    @Test
    void noVersionAndAnEmptyImageAreReportedNotThrown() throws Exception {
        assertThat(DriverPackages.problem(config("")))
                .hasValueSatisfying(
                        m ->
                                assertThat(m)
                                        .startsWith("no driver version")
                                        .endsWith("(have: none)"));
        assertThat(DriverPackages.problem(config("550.54.15")))
                .hasValueSatisfying(m -> assertThat(m).contains("(have: none)"));
        Files.createDirectories(tmp.resolve("image/usr/src/nvidia-550.54.15"));
        assertThat(DriverPackages.onlyVersion(tmp.resolve("image"))).hasValue("550.54.15");
    }

    @Test
    void modulesInstalledInTheImageNeedNoPackage() throws Exception {
        Files.createDirectories(tmp.resolve("image/lib/modules/6.8.0/kernel/drivers/video"));
        assertThat(DriverPackages.problem(config("550.54.15"))).isEmpty();
    }
}
