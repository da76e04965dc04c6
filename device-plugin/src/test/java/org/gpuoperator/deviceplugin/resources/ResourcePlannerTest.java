package org.gpuoperator.deviceplugin.resources;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.gpuoperator.deviceplugin.Fixtures.gpu;
import static org.gpuoperator.deviceplugin.Fixtures.mig;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.gpuoperator.deviceplugin.Fixtures;
import org.gpuoperator.deviceplugin.config.Flag;
import org.gpuoperator.deviceplugin.config.PluginConfig;
import org.gpuoperator.node.deviceconfig.ConfigFile;
import org.gpuoperator.node.inventory.Gpu;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ResourcePlannerTest {

    static List<Resource> plan(String profile, String migStrategy, String configYaml) {
        PluginConfig c =
                PluginConfig.resolve(
                        Map.of(Flag.MIG_STRATEGY, migStrategy),
                        Map.of(),
                        configYaml == null
                                ? ConfigFile.empty()
                                : ConfigFile.parse(configYaml, "cfg.yaml"));
        return ResourcePlanner.plan(Fixtures.inventory(profile).gpus(), c, Fixtures::noMigNodes);
    }

    static PluginConfig config(String migStrategy) {
        return PluginConfig.resolve(
                Map.of(Flag.MIG_STRATEGY, migStrategy), Map.of(), ConfigFile.empty());
    }

    @Test
    void wholeGpusAreNvidiaComGpuByUuidWithIndexAndNuma() {
        List<Resource> rs = plan("h100-80gb-x8", "none", null);
        assertThat(rs).extracting(Resource::name).containsExactly("nvidia.com/gpu");
        Resource r = rs.get(0);
        assertThat(r.socketName()).isEqualTo("nvidia-gpu.sock");
        assertThat(r.devices()).hasSize(8);
        PluginDevice d5 = r.devices().get(5);
        assertThat(d5.id()).isEqualTo(gpu(5));
        assertThat(d5.index()).isEqualTo("5");
        assertThat(d5.numaNode()).isEqualTo(1);
        assertThat(d5.paths()).containsExactly("/dev/nvidia5");
    }

    @Test
    void migMixedGivesOneResourcePerProfile() {
        List<Resource> rs = plan("a100-40gb-x8-mig-mixed", "mixed", null);
        assertThat(rs)
                .extracting(Resource::name)
                .containsExactly(
                        "nvidia.com/mig-1g.5gb",
                        "nvidia.com/mig-2g.10gb",
                        "nvidia.com/mig-3g.20gb");
        assertThat(rs)
                .extracting(Resource::socketName)
                .containsExactly(
                        "nvidia-mig-1g.5gb.sock",
                        "nvidia-mig-2g.10gb.sock",
                        "nvidia-mig-3g.20gb.sock");
        Resource small = rs.get(0);
        assertThat(small.devices()).hasSize(16);
        // devices [3g.20gb, 2g.10gb, 1g.5gb, 1g.5gb]: the 1g.5gb ones are the 3rd and 4th MIG
        // devices (gi 3, 4)
        assertThat(small.devices().get(0).id()).isEqualTo(mig(0, 3));
        assertThat(small.devices().get(0).index()).isEqualTo("0:2");
        assertThat(small.devices().get(1).index()).isEqualTo("0:3");
        assertThat(small.devices()).allMatch(PluginDevice::mig);
    }

    @Test
    void migNoneAdvertisesMigEnabledGpusWholeAndNamesThemForAWarning() {
        List<Resource> rs = plan("a100-40gb-x8-mig-mixed", "none", null);
        assertThat(rs).extracting(Resource::name).containsExactly("nvidia.com/gpu");
        assertThat(rs.get(0).devices()).hasSize(8).noneMatch(PluginDevice::mig);
        var gpus = Fixtures.inventory("a100-40gb-x8-mig-mixed").gpus();
        assertThat(ResourcePlanner.migGpusAdvertisedWhole(gpus, config("none"))).hasSize(8);
        assertThat(ResourcePlanner.migGpusAdvertisedWhole(gpus, config("mixed"))).isEmpty();
        // MIG off: nothing to warn about
        assertThat(
                        ResourcePlanner.migGpusAdvertisedWhole(
                                Fixtures.inventory("a100-40gb-x8").gpus(), config("none")))
                .isEmpty();
    }

    @Test
    void migSingleNeedsOneProfileAndSameModeEverywhere() {
        assertThatThrownBy(() -> plan("a100-40gb-x8-mig-mixed", "single", null))
                .isInstanceOf(PlanException.class)
                .hasMessageContaining("more than one MIG device type");
        // MIG off everywhere: single behaves like none
        assertThat(plan("a100-40gb-x8", "single", null).get(0).devices()).hasSize(8);

        List<Gpu> gpus = new ArrayList<>(Fixtures.inventory("a100-40gb-x8-mig-mixed").gpus());
        List<Gpu> uniform =
                gpus.stream()
                        .map(
                                g ->
                                        new Gpu(
                                                g.index(),
                                                g.minorNumber(),
                                                g.uuid(),
                                                g.productName(),
                                                g.memoryMiB(),
                                                g.pciBusId(),
                                                g.numaNode(),
                                                g.compute(),
                                                new Gpu.Mig(
                                                        true,
                                                        true,
                                                        g.mig().devices().subList(2, 4))))
                        .toList();
        List<Resource> rs = ResourcePlanner.plan(uniform, config("single"), Fixtures::noMigNodes);
        assertThat(rs).extracting(Resource::name).containsExactly("nvidia.com/gpu");
        assertThat(rs.get(0).devices()).hasSize(16).allMatch(PluginDevice::mig);

        List<Gpu> mixedModes = new ArrayList<>(Fixtures.inventory("a100-40gb-x8").gpus());
        mixedModes.set(0, uniform.get(0));
        assertThatThrownBy(
                        () ->
                                ResourcePlanner.plan(
                                        mixedModes, config("single"), Fixtures::noMigNodes))
                .hasMessageContaining("same migEnabled value");
    }

    @Test
    void timeSlicingReplicatesEveryDeviceWithAnnotatedIds() {
        Resource r =
                plan(
                                "l4-x2",
                                "none",
                                """
                sharing:
                  timeSlicing:
                    resources: [{name: nvidia.com/gpu, replicas: 3}]
                """)
                        .get(0);
        assertThat(r.name()).isEqualTo("nvidia.com/gpu");
        assertThat(r.replicas()).isEqualTo(3);
        assertThat(r.devices())
                .extracting(PluginDevice::id)
                .containsExactly(
                        gpu(0) + "::0",
                        gpu(0) + "::1",
                        gpu(0) + "::2",
                        gpu(1) + "::0",
                        gpu(1) + "::1",
                        gpu(1) + "::2");
        assertThat(r.devices().get(4).uuid()).isEqualTo(gpu(1));
        assertThat(r.devices()).allMatch(d -> d.id().length() <= 63);
    }

    @Test
    void timeSlicingRenamesAndSharesMigResources() {
        List<Resource> rs =
                plan(
                        "a100-40gb-x8-mig-mixed",
                        "mixed",
                        """
                sharing:
                  timeSlicing:
                    renameByDefault: true
                    resources: [{name: mig-1g.5gb, replicas: 2}]
                """);
        assertThat(rs)
                .extracting(Resource::name)
                .containsExactly(
                        "nvidia.com/mig-1g.5gb.shared",
                        "nvidia.com/mig-2g.10gb",
                        "nvidia.com/mig-3g.20gb");
        assertThat(rs.get(0).socketName()).isEqualTo("nvidia-mig-1g.5gb.shared.sock");
        assertThat(rs.get(0).devices()).hasSize(32);
    }

    @Test
    void migCapabilityNodesComeFromTheDriversProcFiles(@TempDir Path host) throws Exception {
        Gpu g = Fixtures.inventory("a100-40gb-x8-mig-mixed").gpus().get(2);
        Gpu.MigDevice m = g.mig().devices().get(0);
        Path gi =
                Files.createDirectories(
                        host.resolve("proc/driver/nvidia/capabilities/gpu2/mig/gi1/ci0"));
        Files.writeString(
                gi.resolveSibling("access"), "DeviceFileMinor: 21\nDeviceFileMode: 292\n");
        Files.writeString(gi.resolve("access"), "DeviceFileMinor: 22\nDeviceFileMode: 292\n");
        assertThat(new DeviceNodes(host, "/").migCapabilityNodes(g, m))
                .containsExactly("/dev/nvidia-caps/nvidia-cap21", "/dev/nvidia-caps/nvidia-cap22");
        assertThat(new DeviceNodes(host, "/").migCapabilityNodes(g, g.mig().devices().get(1)))
                .isEmpty();

        Files.createDirectories(host.resolve("dev"));
        Files.writeString(host.resolve("dev/nvidia-uvm"), "");
        assertThat(new DeviceNodes(host, "/").controlNodes())
                .containsExactly("/dev/nvidiactl", "/dev/nvidia-uvm");
    }

    @Test
    void mpsReplicatesWholeGpusWithUpstreamsLimitsAndRefusesMigModeGpus() {
        String mps = "sharing: {mps: {resources: [{name: gpu, replicas: 4}]}}";
        List<Resource> rs = plan("a100-40gb-x8", "none", mps);
        assertThat(rs).hasSize(1);
        Resource r = rs.getFirst();
        assertThat(r.name()).isEqualTo("nvidia.com/gpu");
        assertThat(r.devices()).hasSize(32);
        assertThat(r.failRequestsGreaterThanOne()).isTrue();
        long memory = Fixtures.inventory("a100-40gb-x8").gpus().getFirst().memoryMiB();
        assertThat(r.mps().resource()).isEqualTo("nvidia.com/gpu");
        assertThat(r.mps().activeThreadPercentage()).isEqualTo(25);
        assertThat(r.mps().pinnedMemoryMiB()).hasSize(8).containsEntry(3, memory / 4);
        assertThat(r.mps().pinnedLimitEnv(List.of(5, 3, 5)))
                .isEqualTo("0=" + memory / 4 + "M,1=" + memory / 4 + "M");
        assertThat(plan("a100-40gb-x8", "none", null).getFirst().mps()).isNull();
        assertThat(
                        plan(
                                        "a100-40gb-x8",
                                        "none",
                                        "sharing: {timeSlicing: {resources: [{name: gpu, replicas: 4}]}}")
                                .getFirst()
                                .mps())
                .isNull();

        assertThatThrownBy(() -> plan("a100-40gb-x8-mig-mixed", "mixed", mps))
                .isInstanceOf(PlanException.class)
                .hasMessageStartingWith("sharing.mps: GPU 0 (")
                .hasMessageContaining("is in MIG mode; MPS shares whole GPUs only");
    }
}
