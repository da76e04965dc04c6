package org.gpuoperator.toolkit.docker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Map;
import java.util.Optional;
import org.gpuoperator.toolkit.ConfigException;
import org.gpuoperator.toolkit.NvidiaRuntimes;
import org.gpuoperator.toolkit.apply.RuntimeConfigurer;
import org.junit.jupiter.api.Test;

class DockerConfigurerTest {

    static final String FILE = "/etc/docker/daemon.json";
    static final String ORIGINAL =
            """
            {
                "log-driver": "json-file",
                "default-runtime": "crun",
                "runtimes": {
                    "crun": {
                        "path": "/usr/bin/crun"
                    }
                },
                "features": {
                    "buildkit": true
                }
            }
            """;

    static DockerConfigurer docker(boolean cdi, boolean setAsDefault) {
        return new DockerConfigurer(
                FILE, new NvidiaRuntimes("/usr/local/nvidia/toolkit", cdi, setAsDefault));
    }

    @Test
    void addsRuntimeKeepsOrderIndentAndOtherFeaturesAndRestoresThePreviousDefault()
            throws Exception {
        RuntimeConfigurer.Plan p =
                docker(true, true).configure(Map.of(FILE, Optional.of(ORIGINAL)), Map.of());
        String out = p.files().get(FILE).orElseThrow();
        assertThat(out)
                .isEqualTo(
                        """
                {
                    "log-driver": "json-file",
                    "default-runtime": "nvidia",
                    "runtimes": {
                        "crun": {
                            "path": "/usr/bin/crun"
                        },
                        "nvidia": {
                            "path": "/usr/local/nvidia/toolkit/nvidia-container-runtime",
                            "args": []
                        },
                        "nvidia-cdi": {
                            "path": "/usr/local/nvidia/toolkit/nvidia-container-runtime.cdi",
                            "args": []
                        },
                        "nvidia-legacy": {
                            "path": "/usr/local/nvidia/toolkit/nvidia-container-runtime.legacy",
                            "args": []
                        }
                    },
                    "features": {
                        "buildkit": true,
                        "cdi": true
                    }
                }
                """);
        assertThat(p.remember()).containsEntry("previousDefault", "crun");
        // second run: same content, not even re-rendered
        RuntimeConfigurer.Plan again =
                docker(true, true).configure(Map.of(FILE, Optional.of(out)), p.remember());
        assertThat(again.files().get(FILE)).contains(out);
        assertThat(again.remember()).containsEntry("previousDefault", "crun");

        Map<String, Optional<String>> removed =
                docker(true, true).unconfigure(Map.of(FILE, Optional.of(out)), p.remember());
        assertThat(removed.get(FILE)).contains(ORIGINAL);
    }

    @Test
    void missingFileGetsJustOurRuntimes() throws Exception {
        RuntimeConfigurer.Plan p =
                docker(false, false).configure(Map.of(FILE, Optional.empty()), Map.of());
        assertThat(p.files().get(FILE).orElseThrow())
                .as("the three runtimes with CDI off too, no features.cdi")
                .isEqualTo(
                        """
                {
                  "runtimes": {
                    "nvidia": {
                      "path": "/usr/local/nvidia/toolkit/nvidia-container-runtime",
                      "args": []
                    },
                    "nvidia-cdi": {
                      "path": "/usr/local/nvidia/toolkit/nvidia-container-runtime.cdi",
                      "args": []
                    },
                    "nvidia-legacy": {
                      "path": "/usr/local/nvidia/toolkit/nvidia-container-runtime.legacy",
                      "args": []
                    }
                  }
                }
                """);
        assertThat(
                        docker(false, false)
                                .unconfigure(Map.of(FILE, p.files().get(FILE)), p.remember())
                                .get(FILE))
                .contains("{}\n");
    }

    @Test
    void invalidJsonNamesFileAndLine() {
        assertThatThrownBy(
                        () ->
                                docker(false, false)
                                        .configure(
                                                Map.of(
                                                        FILE,
                                                        Optional.of("{\n  \"a\": 1,\n  oops\n}")),
                                                Map.of()))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith(FILE + ":3:");
        assertThatThrownBy(
                        () ->
                                docker(false, false)
                                        .configure(
                                                Map.of(FILE, Optional.of("{\"runtimes\": []}")),
                                                Map.of()))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("\"runtimes\" must be a JSON object");
    }
}
