package org.gpuoperator.toolkit.simulated;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Clock;
import java.util.List;
import java.util.Set;
import org.gpuoperator.node.inventory.Gpu;
import org.gpuoperator.node.inventory.simulated.SimulatedGpuInventory;
import org.gpuoperator.node.inventory.simulated.SimulatedProfiles;
import org.junit.jupiter.api.Test;

/**
 * NVIDIA_VISIBLE_DEVICES parsing and resolution against a node's simulated GPUs, with the real
 * error texts.
 */
class VisibleGpusTest {

    static List<Gpu> node(String profile) {
        return new SimulatedGpuInventory(
                        SimulatedProfiles.builtIn().get(profile),
                        "node-a",
                        Path.of("/nonexistent"),
                        Clock.systemUTC())
                .gpus();
    }

    final List<Gpu> h100 = node("h100-80gb-x8");
    final List<Gpu> mig = node("a100-40gb-x8-mig-mixed");

    static List<Integer> indices(VisibleGpus v) {
        return v.gpus().stream().map(g -> g.gpu().index()).toList();
    }

    @Test
    void parsesEveryFormOfTheRealRuntime() {
        assertThat(VisibleDevices.parse(null).requested()).isFalse();
        assertThat(VisibleDevices.parse("").requested()).isFalse();
        assertThat(VisibleDevices.parse("void").requested()).isFalse();
        assertThat(VisibleDevices.parse("none").kind()).isEqualTo(VisibleDevices.Kind.NONE);
        assertThat(VisibleDevices.parse("all").kind()).isEqualTo(VisibleDevices.Kind.ALL);
        assertThat(VisibleDevices.parse("0, 2,GPU-x,MIG-y,1:0").ids())
                .containsExactly("0", "2", "GPU-x", "MIG-y", "1:0");
        assertThat(VisibleDevices.parse("1,all").kind()).isEqualTo(VisibleDevices.Kind.ALL);
        assertThat(
                        VisibleDevices.fromEnv(
                                List.of(
                                        "PATH=/bin",
                                        "NVIDIA_VISIBLE_DEVICES=1",
                                        "NVIDIA_VISIBLE_DEVICES=2")))
                .isEqualTo("2");
        assertThat(VisibleDevices.fromEnv(List.of("PATH=/bin"))).isNull();
    }

    @Test
    void resolvesIndicesAndUuidsInHostOrder() throws Exception {
        String u1 = SimulatedGpuInventory.gpuUuid("node-a", 1);
        String u3 = SimulatedGpuInventory.gpuUuid("node-a", 3);
        VisibleGpus v =
                VisibleGpus.resolve(VisibleDevices.parse(u3 + "," + u1 + ",3"), h100, Set.of());
        assertThat(indices(v)).containsExactly(1, 3);
        assertThat(v.gpus().getFirst().gpu().uuid()).isEqualTo(u1);
        assertThat(indices(VisibleGpus.resolve(VisibleDevices.parse("all"), h100, Set.of())))
                .hasSize(8);
        assertThat(VisibleGpus.resolve(VisibleDevices.parse("none"), h100, Set.of()).gpus())
                .isEmpty();
        assertThat(
                        indices(
                                VisibleGpus.resolve(
                                        VisibleDevices.parse(u1.toLowerCase()), h100, Set.of())))
                .containsExactly(1);
    }

    @Test
    void resolvesMigDevicesByUuidAndByGpuColonMig() throws Exception {
        Gpu.MigDevice d = mig.get(2).mig().devices().get(1);
        VisibleGpus byUuid = VisibleGpus.resolve(VisibleDevices.parse(d.uuid()), mig, Set.of());
        assertThat(indices(byUuid)).containsExactly(2);
        assertThat(byUuid.gpus().getFirst().migDevices()).containsExactly(d);
        VisibleGpus byPair = VisibleGpus.resolve(VisibleDevices.parse("2:1,2:0"), mig, Set.of());
        assertThat(byPair.gpus().getFirst().migDevices())
                .containsExactly(mig.get(2).mig().devices().get(0), d);
        assertThat(
                        VisibleGpus.resolve(VisibleDevices.parse("2"), mig, Set.of())
                                .gpus()
                                .getFirst()
                                .migDevices())
                .hasSize(4);
    }

    @Test
    void refusesUnknownDevicesWithTheRealText() {
        assertThatThrownBy(
                        () ->
                                VisibleGpus.resolve(
                                        VisibleDevices.parse("0,GPU-deadbeef"), h100, Set.of()))
                .isInstanceOf(RuntimeRefusal.class)
                .hasMessage("nvidia-container-cli: device error: GPU-deadbeef: unknown device");
        assertThatThrownBy(() -> VisibleGpus.resolve(VisibleDevices.parse("8"), h100, Set.of()))
                .hasMessage("nvidia-container-cli: device error: 8: unknown device");
        assertThatThrownBy(() -> VisibleGpus.resolve(VisibleDevices.parse("0:0"), h100, Set.of()))
                .hasMessage("nvidia-container-cli: device error: 0:0: unknown device");
        // another node's UUID is unknown here
        assertThatThrownBy(
                        () ->
                                VisibleGpus.resolve(
                                        VisibleDevices.parse(
                                                SimulatedGpuInventory.gpuUuid("node-b", 0)),
                                        h100,
                                        Set.of()))
                .hasMessageEndingWith(": unknown device");
    }

    @Test
    void aLostGpuFailsEveryGpuContainerLikeNvmlEnumeration() throws Exception {
        assertThatThrownBy(() -> VisibleGpus.resolve(VisibleDevices.parse("0"), h100, Set.of(5)))
                .hasMessage("nvidia-container-cli: detection error: nvml error: gpu is lost");
        assertThat(VisibleGpus.resolve(VisibleDevices.parse(null), h100, Set.of(5)).gpus())
                .isEmpty();
    }
}
