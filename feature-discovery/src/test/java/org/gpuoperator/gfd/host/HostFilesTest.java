package org.gpuoperator.gfd.host;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.gpuoperator.node.inventory.Gpu;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HostFilesTest {

    @TempDir Path host;

    private static Gpu gpu(String bus) {
        return new Gpu(
                0,
                0,
                "GPU-0",
                "Tesla T4",
                15360,
                bus,
                0,
                new Gpu.ComputeCapability(7, 5),
                Gpu.Mig.NOT_CAPABLE);
    }

    @Test
    void machineTypeIsReadUnderTheHostRoot() throws Exception {
        Path dmi = host.resolve("sys/class/dmi/id/product_name");
        Files.createDirectories(dmi.getParent());
        Files.writeString(dmi, "DGX A100\n");

        HostFiles files = new HostFiles(host);

        assertThat(files.machineType("/sys/class/dmi/id/product_name")).contains("DGX A100");
        assertThat(files.machineType("/missing")).isEmpty();
        assertThat(files.machineType("")).isEmpty();
    }

    @Test
    void pciClassesFromSysfs() throws Exception {
        Path dev = host.resolve("sys/bus/pci/devices/0000:3b:00.0");
        Files.createDirectories(dev);
        Files.writeString(dev.resolve("class"), "0x030200\n");
        HostFiles files = new HostFiles(host);

        assertThat(files.pciClasses(List.of(gpu("00000000:3B:00.0")))).containsExactly("0x030200");
        // one unreadable GPU: the mode is unknown, so no classes at all
        assertThat(files.pciClasses(List.of(gpu("00000000:3B:00.0"), gpu("00000000:5E:00.0"))))
                .isEmpty();
    }

    @Test
    void nvmlBusIdsBecomeSysfsNames() {
        assertThat(HostFiles.sysfsBusId("00000000:17:00.0")).isEqualTo("0000:17:00.0");
        assertThat(HostFiles.sysfsBusId("0000:AF:00.0")).isEqualTo("0000:af:00.0");
    }
}
