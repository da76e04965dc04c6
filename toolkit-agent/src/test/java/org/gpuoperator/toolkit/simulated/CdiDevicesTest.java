package org.gpuoperator.toolkit.simulated;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CdiDevicesTest {

    @TempDir Path root;

    @Test
    void theModeDecidesWhichRequestsGoThroughCdi() {
        List<String> annotations = List.of("nvidia.com/gpu=1");
        // auto: annotations and qualified env names via CDI, plain ids the legacy way
        CdiDevices.Request auto =
                CdiDevices.request(annotations, "0,nvidia.com/gpu=2", RuntimeMode.AUTO);
        assertThat(auto.cdiNames()).containsExactly("nvidia.com/gpu=1", "nvidia.com/gpu=2");
        assertThat(auto.legacy().ids()).containsExactly("0");
        // cdi: plain ids get the default kind
        CdiDevices.Request cdi = CdiDevices.request(List.of(), "0,GPU-a", RuntimeMode.CDI);
        assertThat(cdi.cdiNames()).containsExactly("nvidia.com/gpu=0", "nvidia.com/gpu=GPU-a");
        assertThat(cdi.legacy().requested()).isFalse();
        assertThat(CdiDevices.request(List.of(), "all", RuntimeMode.CDI).cdiNames())
                .containsExactly("nvidia.com/gpu=all");
        // legacy: annotations ignored
        CdiDevices.Request legacy = CdiDevices.request(annotations, "0", RuntimeMode.LEGACY);
        assertThat(legacy.cdiNames()).isEmpty();
        assertThat(legacy.legacy().ids()).containsExactly("0");
        // void: not a GPU container in any mode
        assertThat(CdiDevices.request(List.of(), "void", RuntimeMode.CDI).cdiNames()).isEmpty();
    }

    @Test
    void aBareNameResolvesInTheDefaultKind() throws Exception {
        // the operator's CDI default: NVIDIA_VISIBLE_DEVICES=all of a management container
        CdiDevices.Request r =
                CdiDevices.request(List.of(), "all", RuntimeMode.CDI, "management.nvidia.com/gpu");
        assertThat(r.cdiNames()).containsExactly("management.nvidia.com/gpu=all");
        assertThat(r.legacy().requested()).isFalse();
        // qualified names and the annotations keep their kind; auto mode still goes legacy
        assertThat(
                        CdiDevices.request(
                                        List.of("nvidia.com/gpu=1"),
                                        "nvidia.com/gpu=0",
                                        RuntimeMode.CDI,
                                        "management.nvidia.com/gpu")
                                .cdiNames())
                .containsExactly("nvidia.com/gpu=1", "nvidia.com/gpu=0");
        assertThat(
                        CdiDevices.request(
                                        List.of(),
                                        "all",
                                        RuntimeMode.AUTO,
                                        "management.nvidia.com/gpu")
                                .cdiNames())
                .isEmpty();
        // the management spec's all stands for every GPU
        Files.createDirectories(root.resolve("var/run/cdi"));
        Files.writeString(
                root.resolve("var/run/cdi/management.nvidia.com-gpu.yaml"),
                "cdiVersion: 0.5.0\nkind: management.nvidia.com/gpu\ndevices:\n- name: all\n"
                        + "  containerEdits:\n    deviceNodes: [{path: /dev/nvidiactl}]\n");
        CdiDevices.Resolved resolved = CdiDevices.resolve(r.cdiNames(), root);
        assertThat(resolved.visible().kind()).isEqualTo(VisibleDevices.Kind.ALL);
    }

    @Test
    void unknownNamesAreUnresolvableWithTheRealText() throws Exception {
        assertThatThrownBy(() -> CdiDevices.resolve(List.of("nvidia.com/gpu=0"), root))
                .hasMessage(
                        "error modifying OCI spec: failed to inject CDI devices: unresolvable CDI devices nvidia.com/gpu=0");
        Files.createDirectories(root.resolve("var/run/cdi"));
        Files.writeString(
                root.resolve("var/run/cdi/nvidia.yaml"),
                "cdiVersion: 0.5.0\nkind: nvidia.com/gpu\ndevices:\n- name: '0'\n"
                        + "  containerEdits:\n    env: [A=1]\n");
        assertThatThrownBy(
                        () ->
                                CdiDevices.resolve(
                                        List.of("nvidia.com/gpu=0", "nvidia.com/gpu=9"), root))
                .hasMessage(
                        "error modifying OCI spec: failed to inject CDI devices: unresolvable CDI devices nvidia.com/gpu=9");
        CdiDevices.Resolved r = CdiDevices.resolve(List.of("nvidia.com/gpu=0"), root);
        assertThat(r.edits().env()).containsExactly("A=1");
        assertThat(r.visible().ids()).containsExactly("0");
    }

    @Test
    void aBadSpecFileIsNamed() throws Exception {
        Files.createDirectories(root.resolve("etc/cdi"));
        Files.writeString(root.resolve("etc/cdi/x.yaml"), "kind: a.com/b\ndevices: []\n");
        assertThatThrownBy(() -> CdiDevices.resolve(List.of("a.com/b=x"), root))
                .hasMessage(
                        "error modifying OCI spec: failed to load CDI specs: /etc/cdi/x.yaml: cdiVersion: required");
    }

    @Test
    void namesStandForTheirGpus() {
        assertThat(
                        CdiDevices.visible(
                                        List.of(
                                                "nvidia.com/gpu=1",
                                                "nvidia.com/gpu=0:1",
                                                "nvidia.com/gpu=1"))
                                .ids())
                .containsExactly("1", "0:1");
        assertThat(CdiDevices.visible(List.of("management.nvidia.com/gpu=all")).kind())
                .isEqualTo(VisibleDevices.Kind.ALL);
        assertThat(CdiDevices.visible(List.of("nvidia.com/gpu=all")).kind())
                .isEqualTo(VisibleDevices.Kind.ALL);
        assertThat(CdiDevices.visible(List.of("example.com/net=a")).requested()).isFalse();
        assertThat(CdiDevices.union(VisibleDevices.parse("0"), VisibleDevices.parse("1,0")).ids())
                .containsExactly("0", "1");
    }
}
