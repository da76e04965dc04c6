package org.gpuoperator.toolkit;

import static org.assertj.core.api.Assertions.assertThat;

import org.gpuoperator.toolkit.RuntimeOptions.RestartMode;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/**
 * The restart mode defaults to upstream's per runtime, so a pod needs no RUNTIME_RESTART_MODE to
 * reload containerd.
 */
class RestartModeDefaultTest {

    @Command(name = "probe")
    static final class Probe {
        @Mixin RuntimeOptions runtime;
    }

    private static RuntimeOptions parse(String... args) {
        Probe p = new Probe();
        new CommandLine(p).parseArgs(args);
        return p.runtime;
    }

    @Test
    void containerdAndDockerDefaultToSignalCrioToSystemd() {
        assertThat(parse().restartMode()).isEqualTo(RestartMode.signal);
        assertThat(parse("--runtime", "docker").restartMode()).isEqualTo(RestartMode.signal);
        assertThat(parse("--runtime", "crio").restartMode()).isEqualTo(RestartMode.systemd);
    }

    @Test
    void anExplicitModeWins() {
        assertThat(parse("--restart-mode", "none").restartMode()).isEqualTo(RestartMode.none);
        assertThat(parse("--runtime", "crio", "--restart-mode", "none").restartMode())
                .isEqualTo(RestartMode.none);
        assertThat(parse("--restart-mode", "systemd").restartMode()).isEqualTo(RestartMode.systemd);
    }
}
