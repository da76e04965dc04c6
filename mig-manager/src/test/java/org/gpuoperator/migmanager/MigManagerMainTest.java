package org.gpuoperator.migmanager;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import org.gpuoperator.node.agent.AgentCommand;
import org.junit.jupiter.api.Test;

/** The command line: upstream's defaults, and a bad value refused before anything starts. */
class MigManagerMainTest {

    @Test
    void defaultsAreUpstreamsMountAndOurRetryTimes() {
        MigManagerMain main = new MigManagerMain();
        AgentCommand.commandLine(main).parseArgs();

        assertThat(main.configFile).isEqualTo(Path.of("/mig-parted-config/config.yaml"));
        assertThat(main.resync).isEqualTo(Duration.ofSeconds(60));
        assertThat(main.clientWait).isEqualTo(Duration.ofMinutes(5));
        assertThat(main.allowGpuPods).isFalse();
        assertThat(main.cdiEnabled).isFalse();
    }

    @Test
    void flagsOverrideTheDefaults() {
        MigManagerMain main = new MigManagerMain();
        AgentCommand.commandLine(main)
                .parseArgs(
                        "--config-file",
                        "/tmp/layouts.yaml",
                        "--default-config",
                        "all-disabled",
                        "--allow-repartition-with-gpu-pods",
                        "--cdi-enabled",
                        "--resync",
                        "5s",
                        "--client-wait",
                        "90s");

        assertThat(main.configFile).isEqualTo(Path.of("/tmp/layouts.yaml"));
        assertThat(main.defaultConfig).isEqualTo("all-disabled");
        assertThat(main.allowGpuPods).isTrue();
        assertThat(main.cdiEnabled).isTrue();
        assertThat(main.resync).isEqualTo(Duration.ofSeconds(5));
        assertThat(main.clientWait).isEqualTo(Duration.ofSeconds(90));
    }

    @Test
    void aBadDurationIsAUsageError() {
        assertThat(AgentCommand.run(new MigManagerMain(), "--resync", "soon"))
                .isEqualTo(AgentCommand.USAGE);
    }
}
