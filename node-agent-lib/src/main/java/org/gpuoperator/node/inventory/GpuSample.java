package org.gpuoperator.node.inventory;

import java.util.Collections;
import java.util.EnumMap;
import java.util.Map;
import java.util.OptionalDouble;

/**
 * One reading of one GPU, taken in one call. Metrics the GPU does not support are absent.
 *
 * @param gpuIndex index of the GPU
 * @param timestampMillis when the sample was taken (epoch milliseconds)
 * @param values the readings
 */
public record GpuSample(int gpuIndex, long timestampMillis, Map<GpuMetric, Double> values) {

    public GpuSample {
        EnumMap<GpuMetric, Double> copy = new EnumMap<>(GpuMetric.class);
        copy.putAll(values);
        values = Collections.unmodifiableMap(copy);
    }

    public OptionalDouble get(GpuMetric metric) {
        Double v = values.get(metric);
        return v == null ? OptionalDouble.empty() : OptionalDouble.of(v);
    }
}
