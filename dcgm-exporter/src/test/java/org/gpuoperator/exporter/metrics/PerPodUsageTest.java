package org.gpuoperator.exporter.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;
import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.TreeMap;
import org.gpuoperator.exporter.counters.CountersFile;
import org.gpuoperator.exporter.entity.GpuEntity;
import org.gpuoperator.exporter.podresources.Attribution;
import org.gpuoperator.exporter.podresources.ContainerDevices;
import org.gpuoperator.exporter.podresources.ContainerRef;
import org.gpuoperator.exporter.podresources.DeviceCheckpoint;
import org.gpuoperator.exporter.sampling.ProcessUse;
import org.gpuoperator.exporter.sampling.Samples;
import org.gpuoperator.node.deviceconfig.MigStrategy;
import org.gpuoperator.node.inventory.GpuMetric;
import org.gpuoperator.node.inventory.GpuProcess;
import org.gpuoperator.node.inventory.GpuSample;
import org.gpuoperator.node.inventory.simulated.SimulatedGpuInventory;
import org.gpuoperator.node.inventory.simulated.SimulatedProfiles;
import org.junit.jupiter.api.Test;

/** The pure per-pod computation, and the families it gives on shared and exclusive GPUs. */
class PerPodUsageTest {

    private static final long MIB = 1024L * 1024L;
    private static final String NODE = "n1";
    private static final List<GpuEntity> ENTITIES =
            GpuEntity.of(
                    new SimulatedGpuInventory(
                                    SimulatedProfiles.withUserFile(null).get("h100-80gb-x8"),
                                    NODE,
                                    Path.of("/nonexistent"),
                                    Clock.systemUTC())
                            .gpus());
    private static final String G5 = SimulatedGpuInventory.gpuUuid(NODE, 5);
    private static final String G6 = SimulatedGpuInventory.gpuUuid(NODE, 6);
    private static final ContainerRef A = new ContainerRef("notebook-1", "team-a", "jupyter");
    private static final ContainerRef B = new ContainerRef("notebook-2", "team-b", "jupyter");
    private static final ContainerRef C = new ContainerRef("notebook-3", "team-c", "jupyter");
    private static final ContainerRef T = new ContainerRef("trainer", "ml", "main");

    /** GPU 5 time-sliced among A, B and C; GPU 6 held whole by T. */
    private static final Attribution ATTRIBUTION =
            Attribution.compute(
                    ENTITIES,
                    List.of(
                            devices(A, G5 + "::0"),
                            devices(B, G5 + "::1"),
                            devices(C, G5 + "::2"),
                            devices(T, G6)),
                    List.of(
                            entry("uid-a", A, G5 + "::0"),
                            entry("uid-b", B, G5 + "::1"),
                            entry("uid-c", C, G5 + "::2"),
                            entry("uid-t", T, G6)),
                    MigStrategy.NONE);

    private static ContainerDevices devices(ContainerRef r, String id) {
        return new ContainerDevices(
                r.pod(), r.namespace(), r.container(), "nvidia.com/gpu", List.of(id));
    }

    private static DeviceCheckpoint.Entry entry(String uid, ContainerRef r, String id) {
        return new DeviceCheckpoint.Entry(uid, r.container(), "nvidia.com/gpu", List.of(id));
    }

    private static ProcessUse use(long pid, String podUid, long memMiB, int sm) {
        return new ProcessUse(
                new GpuProcess(
                        pid,
                        OptionalLong.of(memMiB * MIB),
                        OptionalInt.of(sm),
                        OptionalInt.of(sm / 2),
                        OptionalInt.of(0),
                        OptionalInt.of(1)),
                Optional.ofNullable(podUid),
                true);
    }

    private static GpuEntity gpu(int i) {
        return ENTITIES.stream()
                .filter(e -> e.key().equals(Integer.toString(i)))
                .findFirst()
                .orElseThrow();
    }

    @Test
    void eachHolderSumsItsOwnProcessesAndAHolderWithoutAProcessUsesNothing() {
        Map<ContainerRef, Map<GpuMetric, Double>> usage =
                PerPodUsage.of(
                        gpu(5),
                        ATTRIBUTION,
                        List.of(
                                use(10, "uid-a", 1000, 30),
                                use(11, "uid-a", 500, 20),
                                use(20, "uid-b", 2000, 70),
                                use(21, "uid-b", 100, 60),
                                use(30, null, 4000, 5), // not in a pod
                                use(40, "uid-t", 4000, 5))); // its pod holds another GPU
        assertThat(usage.keySet()).containsExactly(A, B, C);
        assertThat(usage.get(A))
                .containsEntry(GpuMetric.GPU_UTIL, 50.0)
                .containsEntry(GpuMetric.MEM_COPY_UTIL, 25.0)
                .containsEntry(GpuMetric.DEC_UTIL, 2.0)
                .containsEntry(GpuMetric.FB_USED_MIB, 1500.0);
        assertThat(usage.get(B))
                .as("utilization summed over processes is capped at 100 %")
                .containsEntry(GpuMetric.GPU_UTIL, 100.0)
                .containsEntry(GpuMetric.FB_USED_MIB, 2100.0);
        assertThat(usage.get(C))
                .containsOnlyKeys(PerPodUsage.METRICS)
                .allSatisfy((m, v) -> assertThat(v).isZero());
    }

    @Test
    void aValueOneProcessCannotTellIsAbsentForItsHolder() {
        ProcessUse noUtil =
                new ProcessUse(
                        new GpuProcess(
                                12,
                                OptionalLong.of(MIB),
                                OptionalInt.empty(),
                                OptionalInt.empty(),
                                OptionalInt.empty(),
                                OptionalInt.empty()),
                        Optional.of("uid-a"),
                        true);
        Map<GpuMetric, Double> a =
                PerPodUsage.of(gpu(5), ATTRIBUTION, List.of(use(10, "uid-a", 1000, 30), noUtil))
                        .get(A);
        assertThat(a)
                .containsOnlyKeys(GpuMetric.FB_USED_MIB)
                .containsEntry(GpuMetric.FB_USED_MIB, 1001.0);
    }

    private static Map<String, Double> series(MetricSnapshots snapshots, String name) {
        Map<String, Double> out = new TreeMap<>();
        for (MetricSnapshot s : snapshots) {
            if (s.getMetadata().getPrometheusName().equals(name)) {
                for (var p : ((GaugeSnapshot) s).getDataPoints()) {
                    String pod = p.getLabels().get("pod");
                    out.put(
                            p.getLabels().get("gpu") + "/" + (pod == null ? "" : pod),
                            p.getValue());
                }
            }
        }
        return out;
    }

    @Test
    void aSharedGpuHasItsWholeSeriesAndOneOwnSeriesPerPodAnExclusiveOneKeepsTheGpuValue() {
        GpuMetricFamilies families =
                new GpuMetricFamilies(
                        CountersFile.parse(
                                        "test",
                                        "DCGM_FI_DEV_GPU_UTIL, gauge, GPU utilization (in %).\n"
                                                + "DCGM_FI_DEV_FB_USED, gauge, Framebuffer memory used (in MiB).\n"
                                                + "DCGM_FI_DEV_GPU_TEMP, gauge, GPU temperature (in C).\n")
                                .counters(),
                        null,
                        ENTITIES.stream()
                                .filter(e -> e.gpuIndex() >= 5 && e.gpuIndex() <= 6)
                                .toList(),
                        null,
                        NODE);
        Map<GpuMetric, Double> whole =
                Map.of(
                        GpuMetric.GPU_UTIL,
                        90.0,
                        GpuMetric.FB_USED_MIB,
                        9000.0,
                        GpuMetric.GPU_TEMP_C,
                        60.0);
        Samples samples =
                new Samples(
                        1,
                        Map.of(5, new GpuSample(5, 0, whole), 6, new GpuSample(6, 0, whole)),
                        Map.of(
                                5, List.of(use(10, "uid-a", 1000, 30), use(20, "uid-b", 2000, 50)),
                                6, List.of(use(50, "uid-t", 7000, 80))));
        MetricSnapshots built = families.build(samples, ATTRIBUTION);

        assertThat(series(built, "DCGM_FI_DEV_GPU_UTIL"))
                .containsExactlyInAnyOrderEntriesOf(
                        Map.of(
                                "5/", 90.0,
                                "5/notebook-1", 30.0,
                                "5/notebook-2", 50.0,
                                "5/notebook-3", 0.0,
                                "6/trainer", 90.0));
        assertThat(series(built, "DCGM_FI_DEV_FB_USED"))
                .containsEntry("5/", 9000.0)
                .containsEntry("5/notebook-1", 1000.0)
                .containsEntry("6/trainer", 9000.0);
        assertThat(series(built, "DCGM_FI_DEV_GPU_TEMP"))
                .as("a property of the GPU: every holder gets the GPU's value, as before")
                .containsExactlyInAnyOrderEntriesOf(
                        Map.of(
                                "5/notebook-1", 60.0,
                                "5/notebook-2", 60.0,
                                "5/notebook-3", 60.0,
                                "6/trainer", 60.0));

        // a process that could not be located (the exporter does not see the host's PIDs): a pod's
        // 0
        // could hide its use, so every holder gets the GPU's value, as without processes
        ProcessUse unlocated =
                new ProcessUse(use(60, null, 1, 1).process(), Optional.empty(), false);
        MetricSnapshots notLocated =
                families.build(
                        new Samples(3, samples.byGpuIndex(), Map.of(5, List.of(unlocated))),
                        ATTRIBUTION);
        assertThat(series(notLocated, "DCGM_FI_DEV_GPU_UTIL"))
                .containsEntry("5/notebook-1", 90.0)
                .doesNotContainKey("5/");

        // without the GPU's processes (source cannot list them): as before, the GPU value per
        // holder
        MetricSnapshots withoutProcesses =
                families.build(new Samples(2, samples.byGpuIndex()), ATTRIBUTION);
        assertThat(series(withoutProcesses, "DCGM_FI_DEV_GPU_UTIL"))
                .containsExactlyInAnyOrderEntriesOf(
                        Map.of(
                                "5/notebook-1", 90.0,
                                "5/notebook-2", 90.0,
                                "5/notebook-3", 90.0,
                                "6/trainer", 90.0));
    }

    @Test
    void ownValuesApplyOnlyWhenEveryProcessWasLocatedAndEveryHolderHasAKnownPod() {
        ProcessUse unlocated =
                new ProcessUse(use(10, null, 1, 1).process(), Optional.empty(), false);
        assertThat(PerPodUsage.applies(gpu(5), ATTRIBUTION, List.of(use(10, "uid-a", 1, 1))))
                .isTrue();
        assertThat(PerPodUsage.applies(gpu(5), ATTRIBUTION, List.of())).isTrue();
        assertThat(
                        PerPodUsage.applies(
                                gpu(5), ATTRIBUTION, List.of(use(10, "uid-a", 1, 1), unlocated)))
                .isFalse();
        Attribution withoutCheckpoint =
                Attribution.compute(
                        ENTITIES,
                        List.of(devices(A, G5 + "::0"), devices(B, G5 + "::1")),
                        MigStrategy.NONE);
        assertThat(PerPodUsage.applies(gpu(5), withoutCheckpoint, List.of())).isFalse();
    }
}
