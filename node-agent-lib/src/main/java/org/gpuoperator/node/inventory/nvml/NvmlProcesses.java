package org.gpuoperator.node.inventory.nvml;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.concurrent.atomic.AtomicLongArray;
import org.gpuoperator.node.inventory.GpuProcess;
import org.gpuoperator.node.inventory.nvml.NvmlLibrary.Fn;

/**
 * The compute processes of each GPU with their memory ({@code
 * nvmlDeviceGetComputeRunningProcesses_v3}) and their utilization ({@code
 * nvmlDeviceGetProcessUtilization}) since the previous read: each GPU remembers the newest sample
 * time it was given and asks for later ones only. Thread-safe.
 */
final class NvmlProcesses {

    private static final int SUCCESS = NvmlReturn.SUCCESS.code();
    private static final int INSUFFICIENT_SIZE = NvmlReturn.ERROR_INSUFFICIENT_SIZE.code();
    private static final int NOT_FOUND = NvmlReturn.ERROR_NOT_FOUND.code();

    /** Room for this many entries first; a busier GPU says how many it needs. */
    private static final int FIRST_CAPACITY = 16;

    /** Processes may start between the count and the read: ask again this often at most. */
    private static final int ATTEMPTS = 4;

    /** One entry of the running-processes answer. */
    record Running(long pid, OptionalLong usedMemoryBytes) {}

    /** One entry of the utilization answer. */
    record UtilSample(long pid, long timeStampMicros, int sm, int mem, int enc, int dec) {}

    private final NvmlLibrary nvml;
    private final MemorySegment[] devices;
    private final AtomicLongArray lastSeenMicros;

    NvmlProcesses(NvmlLibrary nvml, MemorySegment[] devices) {
        this.nvml = nvml;
        this.devices = devices.clone();
        this.lastSeenMicros = new AtomicLongArray(devices.length);
    }

    /**
     * The GPU's processes; empty when this driver or GPU has no per-process accounting.
     *
     * @throws NvmlException on another error (e.g. the GPU is lost)
     */
    Optional<List<GpuProcess>> read(int gpuIndex, String at) {
        MemorySegment dev = devices[gpuIndex];
        Optional<List<Running>> running = running(dev, at);
        if (running.isEmpty()) {
            return Optional.empty();
        }
        Optional<List<UtilSample>> util = utilization(gpuIndex, dev, at);
        util.ifPresent(
                samples ->
                        samples.stream()
                                .mapToLong(UtilSample::timeStampMicros)
                                .max()
                                .ifPresent(
                                        t ->
                                                lastSeenMicros.accumulateAndGet(
                                                        gpuIndex, t, Math::max)));
        return Optional.of(merge(running.get(), util));
    }

    private Optional<List<Running>> running(MemorySegment dev, String at) {
        Fn fn = Fn.nvmlDeviceGetComputeRunningProcesses_v3;
        int capacity = FIRST_CAPACITY;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment count = arena.allocate(JAVA_INT);
            for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
                MemorySegment infos = arena.allocate(NvmlLibrary.PROCESS_INFO, capacity);
                count.set(JAVA_INT, 0, capacity);
                int rc = nvml.call(fn, dev, count, infos);
                if (rc == INSUFFICIENT_SIZE) {
                    capacity = Math.max(capacity * 2, count.get(JAVA_INT, 0) + 4);
                    continue;
                }
                if (NvmlReturn.meansUnavailable(rc)) {
                    return Optional.empty();
                }
                nvml.check(fn, rc, at);
                int n = Math.min(count.get(JAVA_INT, 0), capacity);
                List<Running> out = new ArrayList<>(n);
                long size = NvmlLibrary.PROCESS_INFO.byteSize();
                for (int i = 0; i < n; i++) {
                    long mem = infos.get(JAVA_LONG, i * size + NvmlLibrary.PROCESS_USED_MEMORY);
                    out.add(
                            new Running(
                                    Integer.toUnsignedLong(
                                            infos.get(
                                                    JAVA_INT, i * size + NvmlLibrary.PROCESS_PID)),
                                    mem == NvmlLibrary.VALUE_NOT_AVAILABLE
                                            ? OptionalLong.empty()
                                            : OptionalLong.of(mem)));
                }
                return Optional.of(out);
            }
        }
        throw nvml.exception(fn, INSUFFICIENT_SIZE, at + " (process count kept growing)");
    }

    /** Samples newer than the last seen; empty when utilization cannot be read at all. */
    private Optional<List<UtilSample>> utilization(int gpuIndex, MemorySegment dev, String at) {
        Fn fn = Fn.nvmlDeviceGetProcessUtilization;
        long since = lastSeenMicros.get(gpuIndex);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment count = arena.allocate(JAVA_INT);
            // NULL first: NVML answers how many samples it holds
            MemorySegment samples = MemorySegment.NULL;
            for (int attempt = 0; attempt < ATTEMPTS; attempt++) {
                int rc = nvml.call(fn, dev, samples, count, since);
                if (rc == NOT_FOUND) {
                    return Optional.of(List.of()); // nothing ran since the last read
                }
                if (rc == INSUFFICIENT_SIZE) {
                    int capacity = count.get(JAVA_INT, 0) + 4;
                    samples = arena.allocate(NvmlLibrary.PROCESS_UTILIZATION_SAMPLE, capacity);
                    count.set(JAVA_INT, 0, capacity);
                    continue;
                }
                if (NvmlReturn.meansUnavailable(rc)) {
                    return Optional.empty();
                }
                nvml.check(fn, rc, at);
                if (samples.equals(MemorySegment.NULL)) {
                    return Optional.of(List.of());
                }
                int n =
                        (int)
                                Math.min(
                                        count.get(JAVA_INT, 0),
                                        samples.byteSize()
                                                / NvmlLibrary.PROCESS_UTILIZATION_SAMPLE
                                                        .byteSize());
                List<UtilSample> out = new ArrayList<>(n);
                long size = NvmlLibrary.PROCESS_UTILIZATION_SAMPLE.byteSize();
                for (int i = 0; i < n; i++) {
                    long b = i * size;
                    out.add(
                            new UtilSample(
                                    Integer.toUnsignedLong(
                                            samples.get(
                                                    JAVA_INT, b + NvmlLibrary.PROCESS_UTIL_PID)),
                                    samples.get(JAVA_LONG, b + NvmlLibrary.PROCESS_UTIL_TIME),
                                    samples.get(JAVA_INT, b + NvmlLibrary.PROCESS_UTIL_SM),
                                    samples.get(JAVA_INT, b + NvmlLibrary.PROCESS_UTIL_MEM),
                                    samples.get(JAVA_INT, b + NvmlLibrary.PROCESS_UTIL_ENC),
                                    samples.get(JAVA_INT, b + NvmlLibrary.PROCESS_UTIL_DEC)));
                }
                return Optional.of(out);
            }
        }
        throw nvml.exception(fn, INSUFFICIENT_SIZE, at + " (sample count kept growing)");
    }

    /**
     * Pure: one entry per running process, in NVML's order, with the mean of its utilization
     * samples. A running process without a sample did not run in the interval (0 %); with {@code
     * util} empty (not supported) its utilization is unknown. Samples of processes no longer
     * running are dropped: their memory is gone and nobody is left to charge.
     */
    static List<GpuProcess> merge(List<Running> running, Optional<List<UtilSample>> util) {
        Map<Long, List<UtilSample>> byPid = new LinkedHashMap<>();
        util.ifPresent(
                us ->
                        us.forEach(
                                u ->
                                        byPid.computeIfAbsent(u.pid(), k -> new ArrayList<>())
                                                .add(u)));
        List<GpuProcess> out = new ArrayList<>(running.size());
        for (Running r : running) {
            if (util.isEmpty()) {
                OptionalInt none = OptionalInt.empty();
                out.add(new GpuProcess(r.pid(), r.usedMemoryBytes(), none, none, none, none));
                continue;
            }
            List<UtilSample> s = byPid.getOrDefault(r.pid(), List.of());
            out.add(
                    new GpuProcess(
                            r.pid(),
                            r.usedMemoryBytes(),
                            mean(s, UtilSample::sm),
                            mean(s, UtilSample::mem),
                            mean(s, UtilSample::enc),
                            mean(s, UtilSample::dec)));
        }
        return out;
    }

    private static OptionalInt mean(
            List<UtilSample> samples, java.util.function.ToIntFunction<UtilSample> field) {
        if (samples.isEmpty()) {
            return OptionalInt.of(0);
        }
        long sum = 0;
        for (UtilSample s : samples) {
            sum += Integer.toUnsignedLong(field.applyAsInt(s));
        }
        return OptionalInt.of((int) Math.round((double) sum / samples.size()));
    }
}
