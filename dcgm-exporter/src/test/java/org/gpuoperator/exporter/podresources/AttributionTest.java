package org.gpuoperator.exporter.podresources;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import org.gpuoperator.exporter.entity.GpuEntity;
import org.gpuoperator.node.deviceconfig.MigStrategy;
import org.gpuoperator.node.inventory.simulated.SimulatedGpuInventory;
import org.gpuoperator.node.inventory.simulated.SimulatedProfiles;
import org.junit.jupiter.api.Test;

class AttributionTest {

    private static List<GpuEntity> entities(String profile) {
        return GpuEntity.of(
                new SimulatedGpuInventory(
                                SimulatedProfiles.withUserFile(null).get(profile),
                                "n1",
                                Path.of("/nonexistent"),
                                Clock.systemUTC())
                        .gpus());
    }

    @Test
    void wholeGpusTimeSlicingReplicasAndUnknownIds() {
        List<GpuEntity> es = entities("h100-80gb-x8");
        String g0 = SimulatedGpuInventory.gpuUuid("n1", 0);
        String g3 = SimulatedGpuInventory.gpuUuid("n1", 3);
        Attribution a =
                Attribution.compute(
                        es,
                        List.of(
                                new ContainerDevices(
                                        "train", "ml", "main", "nvidia.com/gpu", List.of(g0)),
                                new ContainerDevices(
                                        "a",
                                        "ns",
                                        "c",
                                        "nvidia.com/gpu",
                                        List.of(g3 + "::0", g3 + "::1")),
                                new ContainerDevices(
                                        "b", "ns", "c", "nvidia.com/gpu", List.of(g3 + "::2")),
                                new ContainerDevices(
                                        "x",
                                        "ns",
                                        "c",
                                        "nvidia.com/gpu",
                                        List.of("GPU-not-on-this-node")),
                                new ContainerDevices(
                                        "nic", "ns", "c", "example.com/nic", List.of(g0))),
                        MigStrategy.NONE);
        assertThat(a.holders().get("0")).containsExactly(new ContainerRef("train", "ml", "main"));
        assertThat(a.holders().get("3"))
                .containsExactly(
                        new ContainerRef("a", "ns", "c"), new ContainerRef("b", "ns", "c"));
        assertThat(a.holders()).doesNotContainKey("1");
        assertThat(a.mapped()).isEqualTo(4);
        assertThat(a.unmapped()).isEqualTo(1);
    }

    @Test
    void migInstancesByMigUuidIncludingSharedOnes() {
        List<GpuEntity> es = entities("a100-40gb-x8-mig-mixed");
        Attribution a =
                Attribution.compute(
                        es,
                        List.of(
                                new ContainerDevices(
                                        "p",
                                        "ns",
                                        "c",
                                        "nvidia.com/mig-1g.5gb",
                                        List.of(SimulatedGpuInventory.migUuid("n1", 2, 3))),
                                new ContainerDevices(
                                        "q",
                                        "ns",
                                        "c",
                                        "nvidia.com/mig-3g.20gb",
                                        List.of(
                                                SimulatedGpuInventory.migUuid("n1", 5, 1)
                                                        + "::1"))),
                        MigStrategy.MIXED);
        assertThat(a.holders()).containsOnlyKeys("2-3", "5-1");
        assertThat(a.holders().get("2-3")).containsExactly(new ContainerRef("p", "ns", "c"));
        assertThat(a.unmapped()).isZero();
    }

    @Test
    void theMigStrategyDecidesWhichResourcesHoldGpus() {
        List<GpuEntity> es = entities("a100-40gb-x8-mig-mixed");
        String gpu2 = SimulatedGpuInventory.gpuUuid("n1", 2);
        String mig23 = SimulatedGpuInventory.migUuid("n1", 2, 3);
        ContainerDevices wholeGpu =
                new ContainerDevices("whole", "ns", "c", "nvidia.com/gpu", List.of(gpu2));
        ContainerDevices singleMig =
                new ContainerDevices("single", "ns", "c", "nvidia.com/gpu", List.of(mig23));
        ContainerDevices mixedMig =
                new ContainerDevices("mixed", "ns", "c", "nvidia.com/mig-1g.5gb", List.of(mig23));
        ContainerDevices sharedMig =
                new ContainerDevices(
                        "shared",
                        "ns",
                        "c",
                        "nvidia.com/mig-1g.5gb.shared",
                        List.of(mig23 + "::0"));
        ContainerDevices other =
                new ContainerDevices("other", "ns", "c", "nvidia.com/gpu-renamed", List.of(gpu2));
        List<ContainerDevices> all = List.of(wholeGpu, singleMig, mixedMig, sharedMig, other);
        List<String> instancesOfGpu2 =
                es.stream().filter(e -> e.gpuIndex() == 2).map(GpuEntity::key).toList();
        assertThat(instancesOfGpu2).hasSizeGreaterThan(1).contains("2-3");

        // none: nvidia.com/gpu holds whole GPUs; a whole GPU in MIG mode holds all its instances
        Attribution none = Attribution.compute(es, all, MigStrategy.NONE);
        for (String key : instancesOfGpu2) {
            assertThat(none.holdersOf(entity(es, key)))
                    .extracting(ContainerRef::pod)
                    .as(key)
                    .contains("whole")
                    .doesNotContain("mixed", "shared", "other");
        }
        assertThat(none.mapped()).isEqualTo(2);

        // single: nvidia.com/gpu holds MIG devices; nvidia.com/mig-* is not this strategy's
        Attribution single = Attribution.compute(es, all, MigStrategy.SINGLE);
        assertThat(single.holders().get("2-3"))
                .extracting(ContainerRef::pod)
                .containsExactly("single", "whole");
        assertThat(single.mapped()).isEqualTo(2);

        // mixed: nvidia.com/mig-<profile> too, also time-sliced as <name>.shared
        Attribution mixed = Attribution.compute(es, all, MigStrategy.MIXED);
        assertThat(mixed.holders().get("2-3"))
                .extracting(ContainerRef::pod)
                .containsExactly("mixed", "shared", "single", "whole");
        assertThat(mixed.mapped()).isEqualTo(4);
        assertThat(mixed.unmapped()).isZero();
    }

    private static GpuEntity entity(List<GpuEntity> es, String key) {
        return es.stream().filter(e -> e.key().equals(key)).findFirst().orElseThrow();
    }

    @Test
    void theDeviceCheckpointGivesEachHolderItsPodUidByASharedDeviceId() {
        List<GpuEntity> es = entities("h100-80gb-x8");
        String g5 = SimulatedGpuInventory.gpuUuid("n1", 5);
        String g6 = SimulatedGpuInventory.gpuUuid("n1", 6);
        ContainerRef a = new ContainerRef("notebook-1", "team-a", "jupyter");
        ContainerRef b = new ContainerRef("notebook-2", "team-b", "jupyter");
        ContainerRef sidecar = new ContainerRef("notebook-2", "team-b", "sidecar");
        ContainerRef exclusive = new ContainerRef("trainer", "ml", "main");
        Attribution att =
                Attribution.compute(
                        es,
                        List.of(
                                new ContainerDevices(
                                        "notebook-1",
                                        "team-a",
                                        "jupyter",
                                        "nvidia.com/gpu",
                                        List.of(g5 + "::0", g5 + "::2")),
                                new ContainerDevices(
                                        "notebook-2",
                                        "team-b",
                                        "jupyter",
                                        "nvidia.com/gpu",
                                        List.of(g5 + "::3")),
                                new ContainerDevices(
                                        "notebook-2",
                                        "team-b",
                                        "sidecar",
                                        "nvidia.com/gpu",
                                        List.of(g5 + "::1")),
                                new ContainerDevices(
                                        "trainer", "ml", "main", "nvidia.com/gpu", List.of(g6))),
                        List.of(
                                new DeviceCheckpoint.Entry(
                                        "uid-a",
                                        "jupyter",
                                        "nvidia.com/gpu",
                                        List.of(g5 + "::2", g5 + "::0")),
                                new DeviceCheckpoint.Entry(
                                        "uid-b", "jupyter", "nvidia.com/gpu", List.of(g5 + "::3")),
                                new DeviceCheckpoint.Entry(
                                        "uid-b", "sidecar", "nvidia.com/gpu", List.of(g5 + "::1")),
                                new DeviceCheckpoint.Entry(
                                        "uid-t", "main", "nvidia.com/gpu", List.of(g6)),
                                // a pod that ended: its devices match no pod-resources entry
                                new DeviceCheckpoint.Entry(
                                        "uid-gone",
                                        "jupyter",
                                        "nvidia.com/gpu",
                                        List.of(g5 + "::9"))),
                        MigStrategy.NONE);
        assertThat(att.shared()).containsExactly("5");
        assertThat(att.pods())
                .containsOnlyKeys("uid-a", "uid-b", "uid-t")
                .containsEntry("uid-a", List.of(a))
                .containsEntry("uid-b", List.of(b, sidecar));
        GpuEntity gpu5 = entity(es, "5");
        assertThat(att.holderInPod(gpu5, "uid-a")).contains(a);
        assertThat(att.holderInPod(gpu5, "uid-b"))
                .as(
                        "two containers of the pod hold the GPU: pod-resources cannot tell which runs the process")
                .isEmpty();
        assertThat(att.holderInPod(gpu5, "uid-t")).as("that pod holds another GPU").isEmpty();
        assertThat(att.holderInPod(entity(es, "6"), "uid-t")).contains(exclusive);
        assertThat(att.holderInPod(gpu5, "uid-unknown")).isEmpty();
    }
}
