package org.gpuoperator.node.inventory.nvml;

import static java.lang.foreign.ValueLayout.JAVA_DOUBLE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.assertj.core.api.Assertions.assertThat;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Path;
import org.gpuoperator.node.inventory.GpuLink;
import org.junit.jupiter.api.Test;

/**
 * The pure parts of the binding: struct layouts against nvml.h, search order, code and value
 * mapping.
 */
class NvmlBindingModelTest {

    @Test
    void structLayoutsHaveNvmlHeaderSizesAndOffsets() {
        assertThat(NvmlLibrary.MEMORY.byteSize()).isEqualTo(24);
        assertThat(NvmlLibrary.MEMORY_V2.byteSize()).isEqualTo(40);
        assertThat(NvmlLibrary.offset(NvmlLibrary.MEMORY_V2, "total")).isEqualTo(8);
        assertThat(NvmlLibrary.MEMORY_V2_VERSION).isEqualTo(0x02000028);
        assertThat(NvmlLibrary.PCI_INFO.byteSize()).isEqualTo(68);
        assertThat(NvmlLibrary.offset(NvmlLibrary.PCI_INFO, "busId")).isEqualTo(36);
        assertThat(NvmlLibrary.UTILIZATION.byteSize()).isEqualTo(8);
        assertThat(NvmlLibrary.DEVICE_ATTRIBUTES.byteSize()).isEqualTo(40);
        assertThat(NvmlLibrary.offset(NvmlLibrary.DEVICE_ATTRIBUTES, "memorySizeMB")).isEqualTo(32);
        assertThat(NvmlLibrary.FIELD_VALUE.byteSize()).isEqualTo(40);
        assertThat(NvmlLibrary.offset(NvmlLibrary.FIELD_VALUE, "value")).isEqualTo(32);
        assertThat(NvmlLibrary.EVENT_DATA.byteSize()).isEqualTo(32);
        assertThat(NvmlLibrary.offset(NvmlLibrary.EVENT_DATA, "gpuInstanceId")).isEqualTo(24);
        assertThat(NvmlLibrary.VIOLATION_TIME.byteSize()).isEqualTo(16);
        assertThat(NvmlLibrary.GPM_SUPPORT.byteSize()).isEqualTo(8);
        assertThat(NvmlLibrary.GPM_METRIC.byteSize()).isEqualTo(40);
        assertThat(NvmlLibrary.GPM_GET_SAMPLE1).isEqualTo(8);
        assertThat(NvmlLibrary.GPM_GET_METRICS).isEqualTo(24);
        assertThat(NvmlLibrary.GPM_METRICS_GET.byteSize()).isEqualTo(24 + 333 * 40);
        assertThat(NvmlLibrary.PROCESS_INFO.byteSize()).isEqualTo(24);
        assertThat(NvmlLibrary.PROCESS_USED_MEMORY).isEqualTo(8);
        assertThat(NvmlLibrary.PROCESS_UTILIZATION_SAMPLE.byteSize()).isEqualTo(32);
        assertThat(NvmlLibrary.PROCESS_UTIL_SM).isEqualTo(16);
        assertThat(NvmlLibrary.PROCESS_UTIL_DEC).isEqualTo(28);
    }

    @Test
    void libraryIsSearchedUnderTheHostRootThenTheDriverContainerRoot() {
        var c = NvmlLibraryLocator.candidates(Path.of("/host"), "amd64");
        assertThat(c.getFirst())
                .isEqualTo(Path.of("/host/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1"));
        assertThat(c)
                .containsSubsequence(
                        Path.of("/host/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1"),
                        Path.of("/host/usr/lib64/libnvidia-ml.so.1"),
                        Path.of(
                                "/host/run/nvidia/driver/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.1"),
                        Path.of("/host/home/kubernetes/bin/nvidia/lib64/libnvidia-ml.so.1"));
        assertThat(c)
                .doesNotHaveDuplicates()
                .allSatisfy(p -> assertThat(p.startsWith("/host")).isTrue());
        assertThat(NvmlLibraryLocator.candidates(Path.of("/"), "aarch64").getFirst())
                .isEqualTo(Path.of("/usr/lib/aarch64-linux-gnu/libnvidia-ml.so.1"));
    }

    @Test
    void returnCodesMapToConstantsAndUnknownCodesStayReadable() {
        assertThat(NvmlReturn.of(15)).isEqualTo(NvmlReturn.ERROR_GPU_IS_LOST);
        assertThat(NvmlReturn.of(999)).isEqualTo(NvmlReturn.ERROR_UNKNOWN);
        assertThat(NvmlReturn.of(4242)).isEqualTo(NvmlReturn.ERROR_UNKNOWN);
        assertThat(NvmlReturn.ERROR_NOT_SUPPORTED.headerName())
                .isEqualTo("NVML_ERROR_NOT_SUPPORTED");
        assertThat(NvmlReturn.meansUnavailable(3)).isTrue();
        assertThat(NvmlReturn.meansUnavailable(13)).isTrue();
        assertThat(NvmlReturn.meansUnavailable(15)).isFalse();
        assertThat(NvmlReturn.meansUnavailable(999)).isFalse();
        NvmlException e = new NvmlException("nvmlDeviceGetFoo", 4242, "Something New", "for GPU 1");
        assertThat(e)
                .hasMessage(
                        "nvmlDeviceGetFoo failed for GPU 1: Something New (NVML_ERROR_UNKNOWN, code 4242)");
        assertThat(e.rawCode()).isEqualTo(4242);
    }

    @Test
    void migProfileComesFromTheDeviceNameElseFromSlicesAndMemory() {
        assertThat(NvmlGpuInventory.migProfile("NVIDIA H100 80GB HBM3 MIG 7g.80gb", 7, 7, 80896))
                .isEqualTo("7g.80gb");
        assertThat(NvmlGpuInventory.migProfile("NVIDIA A100-SXM4-40GB", 1, 1, 4864))
                .isEqualTo("1g.5gb");
        assertThat(NvmlGpuInventory.migProfile("", 2, 1, 9984)).isEqualTo("1c.2g.10gb");
    }

    @Test
    void busIdsAndTopologyLevelsTranslate() {
        assertThat(NvmlGpuInventory.sysfsBusId("00000000:4E:00.0")).isEqualTo("0000:4e:00.0");
        assertThat(NvmlGpuInventory.sysfsBusId("0000:4e:00.0")).isEqualTo("0000:4e:00.0");
        assertThat(NvmlGpuInventory.topologyLevel(10)).isEqualTo(GpuLink.Level.PCIE_SINGLE_SWITCH);
        assertThat(NvmlGpuInventory.topologyLevel(20))
                .isEqualTo(GpuLink.Level.PCIE_MULTIPLE_SWITCHES);
        assertThat(NvmlGpuInventory.topologyLevel(30)).isEqualTo(GpuLink.Level.PCIE_HOST_BRIDGE);
        assertThat(NvmlGpuInventory.topologyLevel(40)).isEqualTo(GpuLink.Level.NUMA_NODE);
        assertThat(NvmlGpuInventory.topologyLevel(50)).isEqualTo(GpuLink.Level.SYSTEM);
        assertThat(NvmlGpuInventory.topologyLevel(7)).isNull();
    }

    @Test
    void fieldValuesAreDecodedByTheirValueType() {
        try (Arena a = Arena.ofConfined()) {
            MemorySegment f = a.allocate(NvmlLibrary.FIELD_VALUE);
            long type = NvmlLibrary.offset(NvmlLibrary.FIELD_VALUE, "valueType");
            long ret = NvmlLibrary.offset(NvmlLibrary.FIELD_VALUE, "nvmlReturn");
            long value = NvmlLibrary.offset(NvmlLibrary.FIELD_VALUE, "value");
            f.set(JAVA_INT, type, NvmlLibrary.VALUE_TYPE_DOUBLE);
            f.set(JAVA_DOUBLE, value, 2.5);
            assertThat(NvmlGpuInventory.fieldValue(f)).hasValue(2.5);
            f.set(JAVA_INT, type, NvmlLibrary.VALUE_TYPE_UNSIGNED_INT);
            f.set(JAVA_LONG, value, 0);
            f.set(JAVA_INT, value, -1); // 0xFFFFFFFF unsigned
            assertThat(NvmlGpuInventory.fieldValue(f)).hasValue(4294967295.0);
            f.set(JAVA_INT, type, NvmlLibrary.VALUE_TYPE_UNSIGNED_LONG_LONG);
            f.set(JAVA_LONG, value, 1L << 40);
            assertThat(NvmlGpuInventory.fieldValue(f)).hasValue((double) (1L << 40));
            f.set(JAVA_INT, ret, NvmlReturn.ERROR_NOT_SUPPORTED.code());
            assertThat(NvmlGpuInventory.fieldValue(f)).isEmpty();
        }
    }
}
