package org.gpuoperator.toolkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.gpuoperator.node.agent.EventLog;
import org.gpuoperator.node.agent.ReadinessFiles;
import org.gpuoperator.toolkit.reload.Reloader;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.yaml.snakeyaml.Yaml;
import picocli.CommandLine;

/**
 * The daemon on a simulated node: gate, shim install, one reload, toolkit-ready, CDI spec, revert
 * on stop.
 */
class ToolkitDaemonTest {

    @TempDir Path host;

    @Test
    void waitsForTheDriverConfiguresOnceAndRevertsOnStop() throws Exception {
        Path cfg = host.resolve("etc/containerd/config.toml");
        Files.createDirectories(cfg.getParent());
        String original =
                "version = 2\n[plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.runc]\n"
                        + "  runtime_type = \"io.containerd.runc.v2\"\n  [plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.runc.options]\n"
                        + "    SystemdCgroup = true\n";
        Files.writeString(cfg, original);
        Path validations = host.resolve("run/nvidia/validations");
        ReadinessFiles readiness = new ReadinessFiles(validations);

        SimulatedToolkitDaemon simulated = new SimulatedToolkitDaemon(host, validations, "PT0.2S");
        AtomicInteger reloads = simulated.reloads;
        ByteArrayOutputStream logs = simulated.logs;
        ToolkitDaemon daemon = simulated.daemon;
        ExecutorService exec = Executors.newSingleThreadExecutor();
        try {
            Future<Integer> exit = exec.submit(daemon::run);
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> logs.toString().contains("waiting-for-predecessor"));
            assertThat(Files.readString(cfg)).isEqualTo(original);
            assertThat(host.resolve("etc/containerd/conf.d/99-nvidia.toml")).doesNotExist();
            assertThat(readiness.read(ReadinessFiles.TOOLKIT)).isEmpty();

            readiness.markReady(ReadinessFiles.DRIVER, java.util.Map.of("driver", "simulated"));
            await().atMost(Duration.ofSeconds(20)).until(daemon::ready);
            // the ready line says how the runtime was reloaded: kubectl logs may miss the
            // runtime-reloaded line written while containerd restarted. It follows the ready
            // state, so a busy machine may not have written it yet
            await().atMost(Duration.ofSeconds(10))
                    .untilAsserted(
                            () ->
                                    assertThat(logs.toString().lines())
                                            .anyMatch(
                                                    l ->
                                                            l.contains("event=ready")
                                                                    && l.contains(
                                                                            "runtime-reloaded=counting")));
            assertThat(readiness.read(ReadinessFiles.TOOLKIT))
                    .get()
                    .satisfies(
                            f -> {
                                assertThat(f).containsEntry("runtime", "containerd");
                                assertThat(f)
                                        .containsEntry(
                                                "binary",
                                                "/usr/local/nvidia/toolkit/nvidia-container-runtime");
                            });
            Path shim = host.resolve("usr/local/nvidia/toolkit/nvidia-container-runtime");
            assertThat(shim).isExecutable();
            assertThat(Files.readString(shim))
                    .contains("exec \"$runc\" \"$@\"")
                    .contains("org.gpuoperator.toolkit.simulated.SimulatedRuntimeMain");
            assertThat(host.resolve("usr/local/nvidia/toolkit/nvidia-smi")).isExecutable();
            assertThat(
                            Files.readString(
                                    host.resolve(
                                            "usr/local/nvidia/toolkit/.config/nvidia-container-runtime/config.toml")))
                    .contains("node-name = \"n1\"")
                    .contains("gpu-source = \"simulated:l4-x2\"")
                    // the runtime runs where containerd does, in the node's own mount namespace:
                    // its host root is /
                    .contains("host-root = \"/\"");
            assertThat(host.resolve("usr/local/nvidia/toolkit/nvidia-container-runtime.cdi"))
                    .isExecutable();
            assertThat(Files.readString(cfg))
                    .contains("imports = [\"/etc/containerd/conf.d/*.toml\"]");
            assertThat(Files.readString(host.resolve("etc/containerd/conf.d/99-nvidia.toml")))
                    .contains("runtimes.nvidia-legacy");
            // the simulated runtime's config carries the CDI default kind asked for
            assertThat(
                            Files.readString(
                                    host.resolve(
                                            "usr/local/nvidia/toolkit/.config/nvidia-container-runtime/config.toml")))
                    .contains("default-kind = \"management.nvidia.com/gpu\"");
            Object spec =
                    new Yaml().load(Files.readString(host.resolve("var/run/cdi/nvidia.yaml")));
            assertThat(spec.toString()).contains("nvidia.com/gpu").contains("/dev/nvidia1");
            assertThat(host.resolve("var/run/cdi/management.nvidia.com-gpu.yaml")).exists();

            // resyncs change nothing and restart nothing
            long lines = logs.toString().lines().count();
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> logs.toString().lines().count() >= lines + 3);
            assertThat(reloads.get()).isEqualTo(1);

            daemon.stop();
            assertThat(exit.get()).isZero();
            assertThat(Files.readString(cfg)).isEqualTo(original);
            assertThat(host.resolve("etc/containerd/conf.d/99-nvidia.toml")).doesNotExist();
            assertThat(readiness.read(ReadinessFiles.TOOLKIT)).isEmpty();
            assertThat(host.resolve("var/run/cdi/nvidia.yaml")).doesNotExist();
            assertThat(host.resolve("var/run/cdi/management.nvidia.com-gpu.yaml")).doesNotExist();
            assertThat(reloads.get()).isEqualTo(2);
        } finally {
            exec.shutdownNow();
        }
    }

    @Test
    void cdiDisableHooksLeavesThoseHooksOutOfTheWrittenSpecs() throws Exception {
        Path validations = host.resolve("run/nvidia/validations");
        ReadinessFiles readiness = new ReadinessFiles(validations);
        readiness.markReady(ReadinessFiles.DRIVER, java.util.Map.of("driver", "simulated"));
        Path spec = host.resolve("var/run/cdi/nvidia.yaml");
        ExecutorService exec = Executors.newSingleThreadExecutor();
        try {
            // every hook by default: the simulated driver root has no library, so only this one
            ToolkitDaemon every = new SimulatedToolkitDaemon(host, validations, "0s").daemon;
            Future<Integer> first = exec.submit(every::run);
            await().atMost(Duration.ofSeconds(20)).until(every::ready);
            assertThat(Files.readString(spec)).contains("disable-device-node-modification");
            every.stop();
            assertThat(first.get()).isZero();

            ToolkitDaemon without =
                    new SimulatedToolkitDaemon(
                                    host,
                                    validations,
                                    "0s",
                                    "--cdi-disable-hooks",
                                    "disable-device-node-modification")
                            .daemon;
            Future<Integer> second = exec.submit(without::run);
            await().atMost(Duration.ofSeconds(20)).until(without::ready);
            assertThat(Files.readString(spec))
                    .doesNotContain("disable-device-node-modification")
                    .doesNotContain("hooks:");
            without.stop();
            assertThat(second.get()).isZero();
        } finally {
            exec.shutdownNow();
        }

        // a name nvidia-cdi-hook does not know fails at start, before anything is written
        ToolkitDaemon bad =
                new SimulatedToolkitDaemon(host, validations, "0s", "--cdi-disable-hooks", "chmod")
                        .daemon;
        assertThatThrownBy(bad::run)
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("--cdi-disable-hooks (env CDI_DISABLE_HOOKS): unknown hook")
                .hasMessageContaining("'chmod'");
        assertThat(spec).doesNotExist();
    }

    @Test
    void aStopBeforeTheDriverIsReadyTouchesNothing() throws Exception {
        ToolkitAgentMain main = new ToolkitAgentMain();
        Path validations = host.resolve("v");
        new CommandLine(main)
                .parseArgs(
                        "--host-root",
                        host.toString(),
                        "--gpu-source",
                        "simulated:t4-x1",
                        "--validations-dir",
                        validations.toString(),
                        "--health-address",
                        "127.0.0.1:0");
        ByteArrayOutputStream logs = new ByteArrayOutputStream();
        ToolkitDaemon daemon =
                new ToolkitDaemon(
                        main.gpu,
                        main.agent,
                        main.runtime,
                        main.daemon,
                        new EventLog("toolkit-agent", new PrintStream(logs, true)),
                        Optional.of(Reloader.NONE),
                        false);
        ExecutorService exec = Executors.newSingleThreadExecutor();
        try {
            Future<Integer> exit = exec.submit(daemon::run);
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> logs.toString().contains("waiting-for-predecessor"));
            long stopping = System.nanoTime();
            daemon.stop();
            assertThat(exit.get()).isZero();
            // the kit's PredecessorWait ends at once on stop, not at its next poll
            assertThat(Duration.ofNanos(System.nanoTime() - stopping))
                    .isLessThan(Duration.ofMillis(450));
            assertThat(logs.toString()).contains("event=wait-stopped");
            assertThat(host.resolve("etc")).doesNotExist();
            assertThat(host.resolve("usr")).doesNotExist();
        } finally {
            exec.shutdownNow();
        }
    }

    @Test
    void aDriverThatNeverComesEndsTheDaemonAfterTheTimeoutTouchingNothing() throws Exception {
        ToolkitAgentMain main = new ToolkitAgentMain();
        Path validations = host.resolve("v");
        new CommandLine(main)
                .parseArgs(
                        "--host-root",
                        host.toString(),
                        "--gpu-source",
                        "simulated:t4-x1",
                        "--validations-dir",
                        validations.toString(),
                        "--health-address",
                        "127.0.0.1:0",
                        "--driver-ready-timeout",
                        "300ms");
        ByteArrayOutputStream logs = new ByteArrayOutputStream();
        ToolkitDaemon daemon =
                new ToolkitDaemon(
                        main.gpu,
                        main.agent,
                        main.runtime,
                        main.daemon,
                        new EventLog("toolkit-agent", new PrintStream(logs, true)),
                        Optional.of(Reloader.NONE),
                        false);
        assertThatThrownBy(daemon::run)
                .isInstanceOf(java.util.concurrent.TimeoutException.class)
                .hasMessage(
                        "timed out after 300ms waiting for " + validations.resolve("driver-ready"));
        assertThat(logs.toString()).contains("event=waiting-for-predecessor", "timeout=300ms");
        assertThat(host.resolve("etc")).doesNotExist();
        assertThat(host.resolve("usr")).doesNotExist();
    }
}
