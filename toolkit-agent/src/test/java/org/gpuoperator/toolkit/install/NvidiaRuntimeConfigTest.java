package org.gpuoperator.toolkit.install;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.gpuoperator.toolkit.toml.TomlCheck;
import org.junit.jupiter.api.Test;
import org.tomlj.TomlParseResult;

/** The runtime's mode and CDI annotation prefixes, as the operator's env sets them. */
class NvidiaRuntimeConfigTest {

    static TomlParseResult render(NvidiaRuntimeConfig.Modes modes) throws Exception {
        return TomlCheck.parse(
                "config.toml",
                new NvidiaRuntimeConfig("/usr/local/nvidia/toolkit", "/", "/sbin/ldconfig", modes)
                        .render());
    }

    @Test
    void defaultsAreAutoModeAndTheCdiK8sIoPrefix() throws Exception {
        TomlParseResult t = render(NvidiaRuntimeConfig.Modes.DEFAULTS);
        assertThat(t.getString("nvidia-container-runtime.mode")).isEqualTo("auto");
        assertThat(
                        t.getArray(
                                        List.of(
                                                "nvidia-container-runtime",
                                                "modes",
                                                "cdi",
                                                "annotation-prefixes"))
                                .toList())
                .containsExactly("cdi.k8s.io/");
        assertThat(t.getString(List.of("nvidia-container-runtime", "modes", "cdi", "default-kind")))
                .isEqualTo("nvidia.com/gpu");
    }

    @Test
    void cdiDefaultModeAndOtherPrefixes() throws Exception {
        TomlParseResult t =
                render(
                        new NvidiaRuntimeConfig.Modes(
                                "cdi", List.of("cdi.k8s.io/", "example.com/")));
        assertThat(t.getString("nvidia-container-runtime.mode")).isEqualTo("cdi");
        assertThat(
                        t.getArray(
                                        List.of(
                                                "nvidia-container-runtime",
                                                "modes",
                                                "cdi",
                                                "annotation-prefixes"))
                                .toList())
                .containsExactly("cdi.k8s.io/", "example.com/");
    }

    @Test
    void theDefaultKindIsTheOperatorsManagementKindWhenAskedFor() throws Exception {
        TomlParseResult t =
                render(
                        new NvidiaRuntimeConfig.Modes(
                                "cdi", List.of("cdi.k8s.io/"), "management.nvidia.com/gpu"));
        assertThat(t.getString(List.of("nvidia-container-runtime", "modes", "cdi", "default-kind")))
                .isEqualTo("management.nvidia.com/gpu");
        assertThatThrownBy(
                        () ->
                                new NvidiaRuntimeConfig.Modes(
                                        "cdi", List.of("cdi.k8s.io/"), "nvidia.com/gpu=0"))
                .hasMessageContaining("CDI default kind must be vendor/class")
                .hasMessageContaining("'nvidia.com/gpu=0'");
        assertThatThrownBy(
                        () -> new NvidiaRuntimeConfig.Modes("cdi", List.of("cdi.k8s.io/"), "gpu"))
                .hasMessageContaining("'gpu'");
    }

    @Test
    void badValuesAreRefusedByName() {
        assertThatThrownBy(() -> new NvidiaRuntimeConfig.Modes("csv", List.of("cdi.k8s.io/")))
                .hasMessageContaining("runtime mode must be one of [auto, cdi, legacy], got 'csv'");
        assertThatThrownBy(() -> new NvidiaRuntimeConfig.Modes("auto", List.of("cdi.k8s.io")))
                .hasMessageContaining("must each end with '/'");
    }
}
