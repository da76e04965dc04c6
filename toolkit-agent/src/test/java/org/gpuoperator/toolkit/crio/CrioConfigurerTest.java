package org.gpuoperator.toolkit.crio;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.Optional;
import org.gpuoperator.toolkit.NvidiaRuntimes;
import org.gpuoperator.toolkit.apply.RuntimeConfigurer;
import org.gpuoperator.toolkit.toml.TomlCheck;
import org.junit.jupiter.api.Test;
import org.tomlj.TomlParseResult;

class CrioConfigurerTest {

    static final String DROP_IN = "/etc/crio/crio.conf.d/99-nvidia.toml";
    static final String BASE =
            """
            [crio.runtime]
            default_runtime = "crun"

            [crio.runtime.runtimes.crun]
            runtime_path = "/usr/bin/crun"
            runtime_type = "oci"
            runtime_root = "/run/crun"
            monitor_path = "/usr/libexec/crio/conmon"
            allowed_annotations = ["io.containers.trace-syscall"]
            """;

    CrioConfigurer crio(boolean setAsDefault) {
        return new CrioConfigurer(
                DROP_IN,
                "/etc/crio/crio.conf",
                Optional.of(BASE),
                new NvidiaRuntimes("/usr/local/nvidia/toolkit", false, setAsDefault));
    }

    @Test
    void dropInCopiesTheDefaultRuntimesOptionsAndPointsAtOurBinary() throws Exception {
        RuntimeConfigurer.Plan p =
                crio(true).configure(Map.of(DROP_IN, Optional.empty()), Map.of());
        TomlParseResult t = TomlCheck.parse("drop-in", p.files().get(DROP_IN).orElseThrow());
        assertThat(t.getString("crio.runtime.default_runtime")).isEqualTo("nvidia");
        assertThat(t.getString("crio.runtime.runtimes.nvidia.runtime_path"))
                .isEqualTo("/usr/local/nvidia/toolkit/nvidia-container-runtime");
        assertThat(t.getString("crio.runtime.runtimes.nvidia.runtime_type")).isEqualTo("oci");
        assertThat(t.getString("crio.runtime.runtimes.nvidia.runtime_root")).isEqualTo("/run/crun");
        assertThat(t.getString("crio.runtime.runtimes.nvidia.monitor_path"))
                .isEqualTo("/usr/libexec/crio/conmon");
        assertThat(p.remember()).containsEntry("previousDefault", "crun");
        assertThat(crio(true).configured(p.files())).isTrue();

        // idempotent, and cleanup removes the whole drop-in (CRI-O's own default comes back)
        assertThat(crio(true).configure(p.files(), p.remember()).files()).isEqualTo(p.files());
        assertThat(crio(true).unconfigure(p.files(), p.remember()).get(DROP_IN)).isEmpty();
    }

    @Test
    void someoneElsesKeysInTheDropInSurviveCleanup() throws Exception {
        String ours =
                crio(false)
                        .configure(Map.of(DROP_IN, Optional.empty()), Map.of())
                        .files()
                        .get(DROP_IN)
                        .orElseThrow();
        String mixed = ours + "\n[crio.image]\npause_image = \"registry.example/pause:3.9\"\n";
        String after =
                crio(false)
                        .unconfigure(Map.of(DROP_IN, Optional.of(mixed)), Map.of())
                        .get(DROP_IN)
                        .orElseThrow();
        TomlParseResult t = TomlCheck.parse("after", after);
        assertThat(t.getString("crio.image.pause_image")).isEqualTo("registry.example/pause:3.9");
        assertThat(t.get("crio.runtime.runtimes.nvidia")).isNull();
    }
}
