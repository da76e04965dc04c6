package org.gpuoperator.toolkit.simulated;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.tomlj.Toml;

class RuntimeConfigTest {

    @Test
    void rendersValidTomlInUpstreamsLayoutAndReadsItBack() throws Exception {
        RuntimeConfig c =
                new RuntimeConfig(
                        "/run/nvidia/driver",
                        "node \"q\" \\ a",
                        "simulated:t4-x1",
                        "/tmp/h",
                        "/p.yaml");
        String text = c.render();
        var toml = Toml.parse(text);
        assertThat(toml.errors()).isEmpty();
        assertThat(toml.getString("nvidia-container-cli.root")).isEqualTo("/run/nvidia/driver");
        assertThat(toml.getString("simulated.node-name")).isEqualTo("node \"q\" \\ a");
        assertThat(RuntimeConfig.parse(text, Path.of("c.toml"))).isEqualTo(c);
        assertThat(
                        RuntimeConfig.parse(
                                text + "\n[nvidia-container-cli]\ndebug = true\n",
                                Path.of("c.toml")))
                .isEqualTo(c);
    }

    @Test
    void theCdiAnnotationPrefixIsUpstreamsKeyAndDefaultsToCdiK8sIo() throws Exception {
        RuntimeConfig c = new RuntimeConfig("/", "n", "simulated:t4-x1", "/", null, "cdi.\"x\"/");
        var toml = Toml.parse(c.render());
        assertThat(toml.errors()).isEmpty();
        assertThat(
                        toml.getArray("nvidia-container-runtime.modes.cdi.annotation-prefixes")
                                .getString(0))
                .isEqualTo("cdi.\"x\"/");
        assertThat(RuntimeConfig.parse(c.render(), Path.of("c.toml"))).isEqualTo(c);
        assertThat(new RuntimeConfig("/", "n", "simulated:t4-x1", "/", null).cdiAnnotationPrefix())
                .isEqualTo("cdi.k8s.io/");
    }

    @Test
    void theCdiDefaultKindIsUpstreamsKeyAndDefaultsToNvidiaComGpu() throws Exception {
        RuntimeConfig c =
                new RuntimeConfig(
                        "/", "n", "simulated:t4-x1", "/", null, null, "management.nvidia.com/gpu");
        var toml = Toml.parse(c.render());
        assertThat(toml.errors()).isEmpty();
        assertThat(toml.getString("nvidia-container-runtime.modes.cdi.default-kind"))
                .isEqualTo("management.nvidia.com/gpu");
        assertThat(RuntimeConfig.parse(c.render(), Path.of("c.toml")).cdiDefaultKind())
                .isEqualTo("management.nvidia.com/gpu");
        assertThat(new RuntimeConfig("/", "n", "simulated:t4-x1", "/", null).cdiDefaultKind())
                .isEqualTo("nvidia.com/gpu");
    }

    @Test
    void aBrokenOrIncompleteFileNamesItself() {
        assertThatThrownBy(
                        () ->
                                RuntimeConfig.parse(
                                        "[simulated]\nnode-name = \"a\n",
                                        Path.of("/x/config.toml")))
                .hasMessage("/x/config.toml:2: expected key = \"string\"");
        assertThatThrownBy(
                        () ->
                                RuntimeConfig.parse(
                                        "[simulated]\nnode-name = \"a\"\n",
                                        Path.of("/x/config.toml")))
                .hasMessage(
                        "/x/config.toml: simulated.node-name and simulated.gpu-source are required");
    }
}
