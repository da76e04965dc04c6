package org.gpuoperator.node.inventory.nvml;

import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.gpuoperator.node.inventory.GpuSample;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Warmup;
import org.openjdk.jmh.infra.Blackhole;

/**
 * The cost of one full sample of all 8 GPUs through the FFM binding, against the mock libnvidia-ml
 * (so it measures the binding: downcalls, struct access, the sample map; not a driver). Target:
 * under 1 ms for all 8. Not a test: run by hand, see the module README.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(value = 1, jvmArgsAppend = "--enable-native-access=ALL-UNNAMED")
public class NvmlSampleBenchmark {

    private NvmlGpuInventory inventory;

    @Setup(Level.Trial)
    public void open() {
        Path library =
                MockNvml.library()
                        .orElseThrow(
                                () ->
                                        new IllegalStateException(
                                                "gcc is needed to build the mock libnvidia-ml.so for this benchmark"));
        MockNvml.control().reset();
        inventory = NvmlGpuInventory.open(Path.of("/nonexistent-host-root"), library);
        if (inventory.gpus().size() != 8) {
            throw new IllegalStateException(
                    "expected 8 GPUs from the mock, got " + inventory.gpus().size());
        }
    }

    @Benchmark
    public void sampleAllEightGpus(Blackhole bh) {
        for (int i = 0; i < 8; i++) {
            GpuSample s = inventory.sample(i);
            bh.consume(s);
        }
    }

    @TearDown(Level.Trial)
    public void close() {
        inventory.close();
    }
}
