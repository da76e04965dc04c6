package org.gpuoperator.deviceplugin.allocation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.gpuoperator.deviceplugin.Fixtures.gpu;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.gpuoperator.deviceplugin.Fixtures;
import org.gpuoperator.deviceplugin.config.Flag;
import org.gpuoperator.deviceplugin.config.PluginConfig;
import org.gpuoperator.deviceplugin.resources.GpuTopology;
import org.gpuoperator.deviceplugin.resources.Resource;
import org.gpuoperator.deviceplugin.resources.ResourcePlanner;
import org.gpuoperator.node.deviceconfig.AllocationPolicy;
import org.gpuoperator.node.deviceconfig.ConfigFile;
import org.gpuoperator.node.inventory.Gpu;
import org.gpuoperator.node.inventory.GpuLink;
import org.gpuoperator.node.inventory.GpuLink.Level;
import org.junit.jupiter.api.Test;

class PreferredAllocationTest {

    static PreferredAllocation preferred(
            List<Gpu> gpus,
            List<GpuLink> links,
            String yaml,
            AllocationPolicy policy,
            Map<Flag, String> flags) {
        PluginConfig c =
                PluginConfig.resolve(
                        flags,
                        Map.of(),
                        yaml == null ? ConfigFile.empty() : ConfigFile.parse(yaml, "cfg.yaml"));
        Resource r = ResourcePlanner.plan(gpus, c, Fixtures::noMigNodes).get(0);
        return new PreferredAllocation(r, new GpuTopology(gpus, links), policy);
    }

    static PreferredAllocation preferred(String profile) {
        var inv = Fixtures.inventory(profile);
        return preferred(inv.gpus(), inv.links(), null, AllocationPolicy.DISTRIBUTED, Map.of());
    }

    static List<String> gpus(int... idx) {
        return IntStream.of(idx).mapToObj(i -> gpu(i)).toList();
    }

    @Test
    void h100PrefersOneNumaNodeWhenEveryPairIsNvlinked() {
        PreferredAllocation p = preferred("h100-80gb-x8");
        assertThat(p.choose(gpus(0, 1, 2, 3, 4, 5, 6, 7), List.of(), 4))
                .containsExactly(gpus(0, 1, 2, 3).toArray(String[]::new));
        assertThat(p.choose(gpus(7, 1, 2, 5, 4, 6), List.of(), 3))
                .containsExactlyInAnyOrder(gpu(4), gpu(5), gpu(6));
        assertThat(p.choose(gpus(0, 1, 2, 3, 4, 5, 6, 7), gpus(6), 4))
                .containsExactly(gpu(6), gpu(4), gpu(5), gpu(7));
        assertThat(p.choose(gpus(0, 1, 2, 3, 4, 5, 6, 7), List.of(), 8)).hasSize(8);
    }

    /** Two NVLink pairs (0-2, 1-3) across NUMA nodes: NVLink wins over NUMA locality. */
    @Test
    void nvlinkPairsWinOverNumaLocality() {
        List<Gpu> four =
                Fixtures.inventory("h100-80gb-x8").gpus().subList(0, 4).stream()
                        .map(
                                g ->
                                        new Gpu(
                                                g.index(),
                                                g.minorNumber(),
                                                g.uuid(),
                                                g.productName(),
                                                g.memoryMiB(),
                                                g.pciBusId(),
                                                g.index() / 2,
                                                g.compute(),
                                                g.mig()))
                        .toList();
        List<GpuLink> links =
                List.of(
                        new GpuLink(0, 1, Level.PCIE_HOST_BRIDGE, 0),
                                new GpuLink(2, 3, Level.PCIE_HOST_BRIDGE, 0),
                        new GpuLink(0, 2, Level.NVLINK, 4), new GpuLink(1, 3, Level.NVLINK, 12),
                        new GpuLink(0, 3, Level.SYSTEM, 0), new GpuLink(1, 2, Level.SYSTEM, 0));
        PreferredAllocation p =
                preferred(four, links, null, AllocationPolicy.DISTRIBUTED, Map.of());
        assertThat(p.choose(gpus(0, 1, 2, 3), List.of(), 2))
                .containsExactlyInAnyOrder(gpu(1), gpu(3));
        assertThat(p.choose(gpus(0, 1, 2, 3), gpus(0), 2)).containsExactly(gpu(0), gpu(2));
    }

    /** PCIe only, two NUMA nodes: the set stays on one NUMA node. */
    @Test
    void pcieNodesKeepTheSetOnOneNumaNode() {
        List<Gpu> four =
                Fixtures.inventory("h100-80gb-x8").gpus().subList(0, 4).stream()
                        .map(
                                g ->
                                        new Gpu(
                                                g.index(),
                                                g.minorNumber(),
                                                g.uuid(),
                                                "NVIDIA L4",
                                                g.memoryMiB(),
                                                g.pciBusId(),
                                                g.index() % 2,
                                                g.compute(),
                                                g.mig()))
                        .toList();
        List<GpuLink> links = new ArrayList<>();
        for (int a = 0; a < 4; a++) {
            for (int b = a + 1; b < 4; b++) {
                links.add(
                        new GpuLink(
                                a, b, a % 2 == b % 2 ? Level.PCIE_HOST_BRIDGE : Level.SYSTEM, 0));
            }
        }
        PreferredAllocation p =
                preferred(four, links, null, AllocationPolicy.DISTRIBUTED, Map.of());
        assertThat(p.choose(gpus(0, 1, 2, 3), gpus(1), 2)).containsExactly(gpu(1), gpu(3));
        assertThat(p.choose(gpus(1, 2, 3), List.of(), 2)).containsExactlyInAnyOrder(gpu(1), gpu(3));
    }

    @Test
    void l4PairIsChosenWhole() {
        assertThat(preferred("l4-x2").choose(gpus(1, 0), List.of(), 2))
                .containsExactlyInAnyOrder(gpu(0), gpu(1));
    }

    @Test
    void replicasSpreadOverGpusOrPackOntoOne() {
        var inv = Fixtures.inventory("l4-x2");
        String yaml = "sharing: {timeSlicing: {resources: [{name: gpu, replicas: 4}]}}";
        List<String> all = new ArrayList<>();
        for (int g = 0; g < 2; g++) {
            for (int n = 0; n < 4; n++) {
                all.add(gpu(g) + "::" + n);
            }
        }
        PreferredAllocation spread =
                preferred(inv.gpus(), inv.links(), yaml, AllocationPolicy.DISTRIBUTED, Map.of());
        assertThat(spread.choose(all, List.of(), 2))
                .containsExactly(gpu(0) + "::0", gpu(1) + "::0");
        // GPU 0 already has two replicas in use: the next goes to GPU 1
        List<String> gpu0Busy = all.subList(2, 8);
        assertThat(spread.choose(gpu0Busy, List.of(), 1)).containsExactly(gpu(1) + "::0");

        PreferredAllocation packed =
                preferred(inv.gpus(), inv.links(), yaml, AllocationPolicy.PACKED, Map.of());
        assertThat(packed.choose(all, List.of(), 2))
                .containsExactly(gpu(0) + "::0", gpu(0) + "::1");
        assertThat(packed.choose(gpu0Busy, List.of(), 1)).containsExactly(gpu(0) + "::2");
    }

    @Test
    void badRequestsNameTheProblem() {
        PreferredAllocation p = preferred("l4-x2");
        assertThatThrownBy(() -> p.choose(List.of(gpu(0), "GPU-x"), List.of(), 1))
                .isInstanceOf(InvalidRequestException.class)
                .hasMessageContaining("unknown device: GPU-x");
        assertThatThrownBy(() -> p.choose(gpus(0), List.of(), 2))
                .hasMessageContaining(
                        "not enough available devices to satisfy allocation: requested 2, available 1");
        assertThatThrownBy(() -> p.choose(gpus(0, 1), gpus(0, 1), 1))
                .hasMessageContaining("smaller than the 2");
    }

    @Test
    void largeNodesFallBackToAGreedyChoice() {
        assertThat(PreferredAllocation.combinations(8, 4)).isEqualTo(70);
        assertThat(PreferredAllocation.combinations(64, 16))
                .isGreaterThan(PreferredAllocation.EXHAUSTIVE_LIMIT);
    }
}
