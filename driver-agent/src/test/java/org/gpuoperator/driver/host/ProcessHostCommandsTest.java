package org.gpuoperator.driver.host;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The real implementation on real processes: output capture, exit codes, error messages, timeouts
 * and kills.
 */
class ProcessHostCommandsTest {

    final ProcessHostCommands commands = new ProcessHostCommands();

    @TempDir Path tmp;

    @Test
    void unameReportsTheRunningKernelRelease() {
        CommandResult r = commands.runChecked(List.of("uname", "-r"), Duration.ofSeconds(30));

        assertThat(r.exitCode()).isZero();
        // The JVM reads the same kernel release through uname(2).
        assertThat(r.stdout().trim()).isEqualTo(System.getProperty("os.version"));
    }

    @Test
    void aFailingCommandGivesItsCommandLineExitCodeAndLastStderrLines() {
        List<String> argv =
                List.of(
                        "sh",
                        "-c",
                        "echo out; for i in 1 2 3 4 5 6 7; do echo err$i >&2; done; exit 3");

        CommandResult r = commands.run(argv, Duration.ofSeconds(30));
        assertThat(r.exitCode()).isEqualTo(3);
        assertThat(r.succeeded()).isFalse();
        assertThat(r.stdout()).isEqualTo("out\n");

        assertThatThrownBy(() -> commands.runChecked(argv, Duration.ofSeconds(30)))
                .isInstanceOf(CommandFailedException.class)
                .hasMessageStartingWith(
                        "command failed with exit code 3: sh -c 'echo out; for i in")
                .hasMessageEndingWith("last output: err3 | err4 | err5 | err6 | err7")
                .hasMessageNotContaining("err2");
    }

    @Test
    void aCommandPastItsTimeoutIsKilledWithItsChildren() throws Exception {
        Path pids = tmp.resolve("pids");
        // A shell with a child: both must be gone after the timeout, not left behind on the node.
        List<String> argv = List.of("sh", "-c", "sleep 60 & echo $$ $! > " + pids + "; wait");

        CommandResult r = commands.run(argv, Duration.ofMillis(500));

        assertThat(r.timedOut()).isTrue();
        assertThat(r.exitCode()).isEqualTo(-1);
        assertThat(r.elapsed()).isLessThan(Duration.ofSeconds(30));
        for (String pid : Files.readString(pids).trim().split(" ")) {
            // SIGKILL is delivered asynchronously; a killed child may linger as a zombie until it
            // is reaped.
            Awaitility.await()
                    .atMost(Duration.ofSeconds(20))
                    .untilAsserted(
                            () ->
                                    assertThat(running(Long.parseLong(pid)))
                                            .as("process %s runs", pid)
                                            .isFalse());
        }
        assertThatThrownBy(() -> commands.runChecked(argv, Duration.ofMillis(200)))
                .isInstanceOf(CommandFailedException.class)
                .hasMessageContaining("timed out after")
                .hasMessageContaining("and was killed: sh -c");
    }

    /** Alive and not a zombie. */
    static boolean running(long pid) {
        if (ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)) {
            try {
                String stat = Files.readString(Path.of("/proc/" + pid + "/stat"));
                return stat.charAt(stat.lastIndexOf(')') + 2) != 'Z';
            } catch (java.io.IOException e) {
                return false;
            }
        }
        return false;
    }

    @Test
    void aDaemonizingCommandReturnsWhenItsParentExits() throws Exception {
        Path pid = tmp.resolve("daemon.pid");
        // Like nvidia-persistenced: the parent exits at once, a child keeps running with the
        // inherited output.
        CommandResult r =
                commands.run(
                        List.of("sh", "-c", "sleep 60 & echo $! > " + pid + "; echo started"),
                        Duration.ofSeconds(30));
        try {
            assertThat(r.succeeded()).isTrue();
            assertThat(r.stdout()).isEqualTo("started\n");
            assertThat(r.elapsed()).isLessThan(Duration.ofSeconds(30));
        } finally {
            ProcessHandle.of(Long.parseLong(Files.readString(pid).trim()))
                    .ifPresent(ProcessHandle::destroyForcibly);
        }
    }

    @Test
    void aMissingProgramIsExit127WithTheReason() {
        CommandResult r =
                commands.run(List.of("/nonexistent/nvidia-smi", "-L"), Duration.ofSeconds(5));

        assertThat(r.exitCode()).isEqualTo(CommandResult.NOT_STARTED);
        assertThat(r.stderr()).contains("cannot run /nonexistent/nvidia-smi");
        assertThat(new CommandFailedException(r))
                .hasMessageStartingWith(
                        "command could not be run (exit 127): /nonexistent/nvidia-smi -L");
    }

    @Test
    void longOutputKeepsItsTail() {
        CommandResult r =
                commands.run(
                        List.of(
                                "sh",
                                "-c",
                                "i=0; while [ $i -lt 40000 ]; do echo line$i; i=$((i+1)); done"),
                        Duration.ofSeconds(60));

        assertThat(r.stdout().length()).isLessThanOrEqualTo(ProcessHostCommands.MAX_OUTPUT_BYTES);
        assertThat(r.stdout()).endsWith("line39999\n");
    }
}
