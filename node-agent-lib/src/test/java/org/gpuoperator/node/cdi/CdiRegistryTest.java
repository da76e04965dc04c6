package org.gpuoperator.node.cdi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.gpuoperator.node.inventory.Gpu;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CdiRegistryTest {

    @TempDir Path node;
    @TempDir Path inventoryRoot;

    private List<Gpu> writeGeneratedSpecs(String profile) throws Exception {
        List<Gpu> gpus = CdiFixtures.gpus(profile, inventoryRoot);
        Path dir = node.resolve("var/run/cdi");
        Files.createDirectories(dir);
        for (Map.Entry<String, CdiSpec> e :
                CdiSpecGenerator.specFiles(gpus, CdiFixtures.driver(), CdiFixtures.HOOK)
                        .entrySet()) {
            Files.writeString(dir.resolve(e.getKey()), CdiYaml.render(e.getValue()));
        }
        return gpus;
    }

    @Test
    void resolvesEveryGeneratedNameToSpecEditsPlusDeviceEdits() throws Exception {
        List<Gpu> gpus = writeGeneratedSpecs("a100-40gb-x8");
        CdiRegistry r = CdiRegistry.load(node);

        assertThat(r.sources())
                .containsExactly(
                        "/var/run/cdi/management.nvidia.com-gpu.yaml", "/var/run/cdi/nvidia.yaml");
        assertThat(r.deviceNames())
                .contains(
                        "nvidia.com/gpu=0",
                        "nvidia.com/gpu=all",
                        "nvidia.com/gpu=" + gpus.get(2).uuid(),
                        "management.nvidia.com/gpu=all");
        CdiSpec.ContainerEdits e = r.resolve(List.of("nvidia.com/gpu=1", "nvidia.com/gpu=0"));
        assertThat(e.deviceNodes())
                .extracting(CdiSpec.DeviceNode::path)
                .containsExactly(
                        "/dev/nvidiactl",
                        "/dev/nvidia-uvm",
                        "/dev/nvidia-uvm-tools",
                        "/dev/nvidia-modeset",
                        "/dev/nvidia1",
                        "/dev/nvidia0");
        assertThat(e.mounts()).hasSize(4);
        // create-symlinks, enable-cuda-compat, update-ldcache, disable-device-node-modification
        assertThat(e.hooks()).hasSize(4);
        assertThat(e.env()).containsExactly("NVIDIA_VISIBLE_DEVICES=void");
        // a device asked for twice, and one inside "all", are there once
        assertThat(
                        r
                                .resolve(List.of("nvidia.com/gpu=all", "nvidia.com/gpu=0"))
                                .deviceNodes()
                                .stream()
                                .filter(n -> n.path().equals("/dev/nvidia0")))
                .hasSize(1);
    }

    @Test
    void aWholeGpuInMigModeIsUnresolvableWhileItsMigDevicesResolve() throws Exception {
        List<Gpu> gpus = writeGeneratedSpecs("a100-40gb-x8-mig-mixed");
        CdiRegistry r = CdiRegistry.load(node);
        // a container given GPU 0 would see none of its MIG devices: the runtime refuses it
        assertThatThrownBy(() -> r.resolve(List.of("nvidia.com/gpu=0")))
                .isInstanceOf(CdiException.class)
                .hasMessage("unresolvable CDI devices nvidia.com/gpu=0");
        assertThatThrownBy(() -> r.resolve(List.of("nvidia.com/gpu=" + gpus.getFirst().uuid())))
                .hasMessageStartingWith("unresolvable CDI devices nvidia.com/gpu=GPU-");
        Gpu.MigDevice m = gpus.getFirst().mig().devices().getFirst();
        assertThat(r.resolve(List.of("nvidia.com/gpu=0:0")).deviceNodes())
                .extracting(CdiSpec.DeviceNode::path)
                .contains("/dev/nvidia0")
                .containsAll(
                        r.resolve(List.of("nvidia.com/gpu=" + m.uuid())).deviceNodes().stream()
                                .map(CdiSpec.DeviceNode::path)
                                .toList());
    }

    @Test
    void unknownNamesFailWithTheCdiErrorText() throws Exception {
        writeGeneratedSpecs("h100-80gb-x8");
        CdiRegistry r = CdiRegistry.load(node);
        assertThatThrownBy(
                        () ->
                                r.resolve(
                                        List.of(
                                                "nvidia.com/gpu=0",
                                                "nvidia.com/gpu=9",
                                                "k8s.device-plugin.nvidia.com/gpu=0")))
                .isInstanceOf(CdiException.class)
                .hasMessage(
                        "unresolvable CDI devices nvidia.com/gpu=9, k8s.device-plugin.nvidia.com/gpu=0");
        assertThatThrownBy(
                        () -> CdiRegistry.load(inventoryRoot).resolve(List.of("nvidia.com/gpu=0")))
                .hasMessage("unresolvable CDI devices nvidia.com/gpu=0");
    }

    @Test
    void aDeviceInVarRunShadowsTheSameInEtc() throws Exception {
        Files.createDirectories(node.resolve("etc/cdi"));
        Files.createDirectories(node.resolve("var/run/cdi"));
        Files.writeString(
                node.resolve("etc/cdi/v.yaml"),
                "cdiVersion: 0.3.0\nkind: v.com/d\ndevices:\n- name: x\n  containerEdits:\n"
                        + "    env: [FROM=etc]\n");
        Files.writeString(
                node.resolve("var/run/cdi/v.json"),
                "{\"cdiVersion\":\"0.3.0\",\"kind\":\"v.com/d\",\"devices\":[{\"name\":\"x\","
                        + "\"containerEdits\":{\"env\":[\"FROM=run\"]}}]}");
        assertThat(CdiRegistry.load(node).resolve(List.of("v.com/d=x")).env())
                .containsExactly("FROM=run");
    }

    @Test
    void badSpecFilesAreErrorsNamingTheFile() throws Exception {
        Path dir = node.resolve("etc/cdi");
        Files.createDirectories(dir);
        Files.writeString(dir.resolve("a.yaml"), "cdiVersion: 0.3.0\nkind: nokind\ndevices: []\n");
        assertThatThrownBy(() -> CdiRegistry.load(node))
                .isInstanceOf(CdiException.class)
                .hasMessage("/etc/cdi/a.yaml: kind: 'nokind' is not vendor/class");
        Files.writeString(
                dir.resolve("a.yaml"),
                "cdiVersion: 0.3.0\nkind: v.com/d\ndevices:\n- name: '0'\n  containerEdits: {}\n");
        assertThatThrownBy(() -> CdiRegistry.load(node))
                .hasMessage(
                        "/etc/cdi/a.yaml: cdiVersion: the spec version must be at least v0.5.0");
        Files.writeString(
                dir.resolve("a.yaml"), "cdiVersion: 0.3.0\nkind: v.com/d\ndevices:\n- x\n");
        assertThatThrownBy(() -> CdiRegistry.load(node))
                .hasMessageStartingWith("/etc/cdi/a.yaml: devices[0]: expected an object");
    }
}
