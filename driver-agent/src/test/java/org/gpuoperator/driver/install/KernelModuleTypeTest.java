package org.gpuoperator.driver.install;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import org.gpuoperator.driver.host.HostRoot;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class KernelModuleTypeTest {

    @TempDir Path tmp;

    private DriverConfig config(String version, KernelModuleType type) {
        Path pkg = tmp.resolve("image/usr/src/nvidia-" + version);
        return new DriverConfig(
                new HostRoot(tmp.resolve("host")),
                tmp.resolve("image"),
                pkg,
                version,
                tmp.resolve("host/run/nvidia/driver"),
                tmp.resolve("host/pid"),
                false,
                0,
                1,
                type);
    }

    @Test
    void theTypeChoosesTheSources() throws Exception {
        for (String v : new String[] {"550.54.15", "570.172.08"}) {
            Files.createDirectories(tmp.resolve("image/usr/src/nvidia-" + v + "/kernel-open"));
            Files.createDirectories(tmp.resolve("image/usr/src/nvidia-" + v + "/kernel"));
        }
        assertThat(config("550.54.15", KernelModuleType.OPEN).moduleSources())
                .endsWith(Path.of("kernel-open"));
        assertThat(config("570.172.08", KernelModuleType.PROPRIETARY).moduleSources())
                .endsWith(Path.of("kernel"));
        assertThat(config("570.172.08", KernelModuleType.AUTO).openModules()).isTrue();
        assertThat(config("550.54.15", KernelModuleType.AUTO).openModules())
                .as("before 560 the proprietary modules are the default")
                .isFalse();
    }

    @Test
    void autoWithoutOpenSourcesTakesTheProprietaryOnes() throws Exception {
        Files.createDirectories(tmp.resolve("image/usr/src/nvidia-570.172.08/kernel"));
        assertThat(config("570.172.08", KernelModuleType.AUTO).openModules()).isFalse();
    }

    @Test
    void valuesAreUpstreamsAndAnOtherOneIsAClearError() {
        assertThat(KernelModuleType.parse("open")).isEqualTo(KernelModuleType.OPEN);
        assertThat(KernelModuleType.parse("proprietary")).isEqualTo(KernelModuleType.PROPRIETARY);
        assertThat(KernelModuleType.parse(null)).isEqualTo(KernelModuleType.AUTO);
        assertThatThrownBy(() -> KernelModuleType.parse("closed"))
                .hasMessage(
                        "--kernel-module-type (KERNEL_MODULE_TYPE): 'closed' is not one of auto,"
                                + " open, proprietary");
    }
}
