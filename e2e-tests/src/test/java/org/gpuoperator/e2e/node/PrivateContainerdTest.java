package org.gpuoperator.e2e.node;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PrivateContainerdTest {

    @TempDir Path dir;

    /** The signals a process ignores, from {@code SigIgn} in /proc/self/status (bit 0: SIGHUP). */
    private static long ignoredSignals(List<String> command) throws Exception {
        // a shell that ignores SIGHUP, as nohup leaves it, starts the command
        List<String> cmd = new ArrayList<>(List.of("sh", "-c", "trap '' HUP; exec \"$@\"", "sh"));
        cmd.addAll(command);
        cmd.addAll(List.of("grep", "SigIgn", "/proc/self/status"));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
        assertThat(p.waitFor(10, TimeUnit.SECONDS)).isTrue();
        assertThat(out).as(String.join(" ", cmd)).startsWith("SigIgn:");
        return Long.parseLong(out.substring("SigIgn:".length()).trim(), 16);
    }

    @Test
    void anInheritedIgnoreOfSighupDoesNotReachTheDaemon() throws Exception {
        assertThat(ignoredSignals(List.of()) & 1)
                .as("SIGHUP ignored without the reset")
                .isEqualTo(1);
        assertThat(ignoredSignals(PrivateContainerd.withDefaultSighup(List.of())) & 1)
                .as("SIGHUP ignored after the reset")
                .isZero();
    }

    @Test
    void aRestartThatFailsIsTriedAgainUntilTheDaemonRuns() throws Exception {
        assumeTrue(PrivateContainerd.installed(), "needs containerd on the PATH: skipped");
        PrivateContainerd containerd = new PrivateContainerd(dir.resolve("node"));
        try {
            containerd.writeInitialConfig();
            containerd.start();
            containerd.awaitCri(Duration.ofSeconds(30));

            containerd.failNextStarts(2);
            containerd.restart(); // SIGTERM: it exits, and its two next starts fail
            await().atMost(Duration.ofSeconds(30)).until(() -> containerd.starts() == 2);
            containerd.awaitCri(Duration.ofSeconds(30));
            assertThat(containerd.logLines())
                    .filteredOn(l -> l.startsWith("private-containerd: restart failed"))
                    .hasSize(2);
        } finally {
            containerd.close();
        }
    }
}
