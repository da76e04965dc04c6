package org.gpuoperator.node.inventory.nvml;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.gpuoperator.node.inventory.GpuProcess;
import org.gpuoperator.node.inventory.nvml.NvmlProcesses.Running;
import org.gpuoperator.node.inventory.nvml.NvmlProcesses.UtilSample;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Per-process accounting: the pure merge, and the binding against the mock libnvidia-ml. */
class NvmlProcessesTest {

    private static final long MIB = 1024L * 1024L;

    @TempDir Path hostRoot;

    private Path library;
    private MockNvml mock;

    private static GpuProcess process(long pid, long mem, int sm, int memUtil, int enc, int dec) {
        return new GpuProcess(
                pid,
                OptionalLong.of(mem),
                OptionalInt.of(sm),
                OptionalInt.of(memUtil),
                OptionalInt.of(enc),
                OptionalInt.of(dec));
    }

    @Test
    void mergeAveragesEachProcessSamplesAndGivesAnIdleProcessZero() {
        List<GpuProcess> merged =
                NvmlProcesses.merge(
                        List.of(
                                new Running(10, OptionalLong.of(100)),
                                new Running(11, OptionalLong.empty())),
                        Optional.of(
                                List.of(
                                        new UtilSample(10, 1, 40, 10, 0, 2),
                                        new UtilSample(10, 2, 61, 11, 0, 2),
                                        new UtilSample(99, 2, 30, 30, 30, 30))));
        assertThat(merged)
                .containsExactly(
                        process(10, 100, 51, 11, 0, 2),
                        new GpuProcess(
                                11,
                                OptionalLong.empty(),
                                OptionalInt.of(0),
                                OptionalInt.of(0),
                                OptionalInt.of(0),
                                OptionalInt.of(0)));
    }

    @Test
    void mergeWithoutUtilizationKeepsTheMemoryAndLeavesUtilizationUnknown() {
        assertThat(
                        NvmlProcesses.merge(
                                List.of(new Running(7, OptionalLong.of(5))), Optional.empty()))
                .containsExactly(
                        new GpuProcess(
                                7,
                                OptionalLong.of(5),
                                OptionalInt.empty(),
                                OptionalInt.empty(),
                                OptionalInt.empty(),
                                OptionalInt.empty()));
    }

    @BeforeEach
    void compileMock() {
        Optional<Path> lib = MockNvml.library();
        Assumptions.assumeTrue(
                lib.isPresent(),
                "SKIPPED: no gcc/cc on PATH, so the mock libnvidia-ml.so cannot be built");
        library = lib.get();
        mock = MockNvml.control();
        mock.reset();
    }

    @AfterEach
    void resetMock() {
        if (mock != null) {
            assertThat(mock.initCount()).isZero();
            mock.reset();
        }
    }

    @Test
    void readsEachGpuProcessesWithMemoryAndUtilization() {
        mock.processes("2:4242:1024:35:12:0:3,2:4343:-:10:4:1:0,5:77:2048:90:50:0:0");
        try (NvmlGpuInventory inv = NvmlGpuInventory.open(hostRoot, library)) {
            assertThat(inv.processes(2))
                    .contains(
                            List.of(
                                    process(4242, 1024 * MIB, 35, 12, 0, 3),
                                    new GpuProcess(
                                            4343,
                                            OptionalLong.empty(),
                                            OptionalInt.of(10),
                                            OptionalInt.of(4),
                                            OptionalInt.of(1),
                                            OptionalInt.of(0))));
            assertThat(inv.processes(5)).contains(List.of(process(77, 2048 * MIB, 90, 50, 0, 0)));
            assertThat(inv.processes(0)).contains(List.of());
        }
    }

    @Test
    void eachReadAsksForUtilizationSinceThePreviousOne() {
        mock.processes("1:10:1:1:1:1:1");
        try (NvmlGpuInventory inv = NvmlGpuInventory.open(hostRoot, library)) {
            inv.processes(1);
            assertThat(mock.lastSeenTimestamp()).isZero();
            inv.processes(1);
            long first = mock.lastSeenTimestamp();
            assertThat(first).isPositive();
            inv.processes(1);
            assertThat(mock.lastSeenTimestamp()).isGreaterThan(first);
        }
    }

    @Test
    void moreProcessesThanTheFirstBufferHoldsAreAllRead() {
        String spec =
                IntStream.range(0, 40)
                        .mapToObj(i -> "3:" + (1000 + i) + ":1:1:1:1:1")
                        .collect(Collectors.joining(","));
        mock.processes(spec);
        try (NvmlGpuInventory inv = NvmlGpuInventory.open(hostRoot, library)) {
            assertThat(inv.processes(3).orElseThrow()).hasSize(40);
        }
    }

    @Test
    void unsupportedProcessListingIsEmptyAndUnsupportedUtilizationIsUnknown() {
        mock.processes("4:10:8:20:20:0:0");
        mock.failures("nvmlDeviceGetComputeRunningProcesses_v3@4:3");
        try (NvmlGpuInventory inv = NvmlGpuInventory.open(hostRoot, library)) {
            assertThat(inv.processes(4)).isEmpty();
        }
        mock.failures("nvmlDeviceGetProcessUtilization:3");
        try (NvmlGpuInventory inv = NvmlGpuInventory.open(hostRoot, library)) {
            GpuProcess p = inv.processes(4).orElseThrow().getFirst();
            assertThat(p.usedMemoryBytes()).hasValue(8 * MIB);
            assertThat(p.smUtil()).isEmpty();
        }
    }

    @Test
    void aLostGpuFails() {
        mock.processes("6:10:8:20:20:0:0");
        try (NvmlGpuInventory inv = NvmlGpuInventory.open(hostRoot, library)) {
            mock.loseGpu(6);
            assertThatThrownBy(() -> inv.processes(6)).isInstanceOf(NvmlException.class);
            mock.recoverGpu(6);
        }
    }
}
