package org.gpuoperator.exporter.podresources;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import org.gpuoperator.exporter.entity.GpuEntity;
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
                                        "nic", "ns", "c", "example.com/nic", List.of(g0))));
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
                                                        + "::1"))));
        assertThat(a.holders()).containsOnlyKeys("2-3", "5-1");
        assertThat(a.holders().get("2-3")).containsExactly(new ContainerRef("p", "ns", "c"));
        assertThat(a.unmapped()).isZero();
    }
}
