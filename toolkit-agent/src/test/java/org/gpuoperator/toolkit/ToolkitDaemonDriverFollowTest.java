package org.gpuoperator.toolkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.ByteArrayOutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import org.gpuoperator.node.agent.ReadinessFiles;
import org.gpuoperator.node.inventory.simulated.SimulatedDriverFiles;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The daemon follows driver-ready after set-up: gone removes toolkit-ready and nothing else; back
 * or changed rewrites the CDI spec for the driver now and writes toolkit-ready again; unchanged
 * writes nothing. The resync is an hour away, so only the follow can have written.
 */
class ToolkitDaemonDriverFollowTest {

    private static final String OLD = "550.54.15";
    private static final String NEW = "560.35.03";
    private static final String ROOT = "/run/nvidia/driver";

    @TempDir Path host;

    private Path cfg;
    private ReadinessFiles readiness;
    private AtomicInteger reloads;
    private ByteArrayOutputStream logs;
    private ToolkitDaemon daemon;
    private ExecutorService exec;
    private Future<Integer> exit;

    @BeforeEach
    void setUpDaemonOnDriver() throws Exception {
        cfg = host.resolve("etc/containerd/config.toml");
        Files.createDirectories(cfg.getParent());
        Files.writeString(cfg, "version = 2\n");
        Path validations = host.resolve("run/nvidia/validations");
        readiness = new ReadinessFiles(validations);
        SimulatedDriverFiles.layDown(hostPath(ROOT), OLD);
        readiness.markReady(ReadinessFiles.DRIVER, driverReady(ROOT, OLD));

        SimulatedToolkitDaemon simulated = new SimulatedToolkitDaemon(host, validations, "PT1H");
        reloads = simulated.reloads;
        logs = simulated.logs;
        daemon = simulated.daemon;
        exec = Executors.newSingleThreadExecutor();
        exit = exec.submit(daemon::run);
        await().atMost(Duration.ofSeconds(20)).until(daemon::ready);
        assertThat(spec()).contains(ROOT + "/usr/lib/x86_64-linux-gnu/libcuda.so." + OLD);
        assertThat(reloads.get()).isEqualTo(1);
    }

    @AfterEach
    void stopDaemon() throws Exception {
        daemon.stop();
        assertThat(exit.get()).isZero();
        exec.shutdownNow();
        assertThat(readiness.read(ReadinessFiles.TOOLKIT)).isEmpty();
    }

    @Test
    void driverGoneRemovesToolkitReadyOnlyAndANewDriverGetsItsSpecAndToolkitReadyBack()
            throws Exception {
        String config = Files.readString(cfg);
        Map<String, String> toolkitReady = readiness.read(ReadinessFiles.TOOLKIT).orElseThrow();

        readiness.clear(ReadinessFiles.DRIVER);
        // the file goes first, then /readyz: await both
        await().atMost(Duration.ofSeconds(10))
                .until(() -> readiness.read(ReadinessFiles.TOOLKIT).isEmpty() && !daemon.ready());
        assertThat(logs.toString()).contains("event=driver-gone");
        // the runtime stays registered and containerd is left alone
        assertThat(Files.readString(cfg)).isEqualTo(config);
        assertThat(reloads.get()).isEqualTo(1);
        assertThat(host.resolve("var/run/cdi/nvidia.yaml")).exists();

        // the new driver replaces the old one's files under the same root
        for (String lib : SimulatedDriverFiles.libraries(OLD)) {
            Files.delete(hostPath(ROOT).resolve(lib));
        }
        SimulatedDriverFiles.layDown(hostPath(ROOT), NEW);
        readiness.markReady(ReadinessFiles.DRIVER, driverReady(ROOT, NEW));

        await().atMost(Duration.ofSeconds(10)).until(daemon::ready);
        assertThat(readiness.read(ReadinessFiles.TOOLKIT)).contains(toolkitReady);
        assertThat(spec())
                .contains(ROOT + "/usr/lib/x86_64-linux-gnu/libcuda.so." + NEW)
                .doesNotContain(OLD);
        assertThat(Files.readString(host.resolve("var/run/cdi/management.nvidia.com-gpu.yaml")))
                .doesNotContain(OLD);
        assertThat(logs.toString())
                .contains("event=driver-changed", "old-version=" + OLD, "new-version=" + NEW);
        assertThat(Files.readString(cfg)).isEqualTo(config);
        assertThat(reloads.get()).isEqualTo(1);
    }

    @Test
    void aNewVersionWithoutAGapRewritesTheSpecAndANewRootReinstallsTheRuntime() throws Exception {
        SimulatedDriverFiles.layDown(hostPath(ROOT), NEW);
        readiness.markReady(ReadinessFiles.DRIVER, driverReady(ROOT, NEW));
        await().atMost(Duration.ofSeconds(10)).until(() -> spec().contains("libcuda.so." + NEW));
        assertThat(spec()).doesNotContain("libcuda.so." + OLD);
        await().atMost(Duration.ofSeconds(10))
                .until(() -> logs.toString().contains("event=driver-changed"));
        assertThat(daemon.ready()).isTrue();
        assertThat(readiness.read(ReadinessFiles.TOOLKIT)).isPresent();

        String moved = "/run/nvidia/driver-b";
        SimulatedDriverFiles.layDown(hostPath(moved), NEW);
        readiness.markReady(ReadinessFiles.DRIVER, driverReady(moved, NEW));
        await().atMost(Duration.ofSeconds(10))
                .until(
                        () ->
                                spec().contains(
                                                moved
                                                        + "/usr/lib/x86_64-linux-gnu/libcuda.so."
                                                        + NEW));
        await().atMost(Duration.ofSeconds(10))
                .until(() -> logs.toString().contains("new-root=" + moved));
        assertThat(
                        Files.readString(
                                host.resolve(
                                        "usr/local/nvidia/toolkit/.config/nvidia-container-runtime/config.toml")))
                .contains("root = \"" + moved + "\"");
        assertThat(daemon.ready()).isTrue();
        // the containerd config does not name the driver root: nothing to reload
        assertThat(reloads.get()).isEqualTo(1);
    }

    @Test
    void anUnchangedDriverReadyWritesNothing() throws Exception {
        Object toolkitReady = fileKey(readiness.file(ReadinessFiles.TOOLKIT));
        Object gpuSpec = fileKey(host.resolve("var/run/cdi/nvidia.yaml"));
        assertThat(toolkitReady).isNotNull(); // a rewrite (temp file, rename) gets a new one
        // the same facts in a new file
        readiness.markReady(ReadinessFiles.DRIVER, driverReady(ROOT, OLD));

        int polls = daemon.driverPolls();
        await().atMost(Duration.ofSeconds(10)).until(() -> daemon.driverPolls() >= polls + 3);
        assertThat(fileKey(readiness.file(ReadinessFiles.TOOLKIT))).isEqualTo(toolkitReady);
        assertThat(fileKey(host.resolve("var/run/cdi/nvidia.yaml"))).isEqualTo(gpuSpec);
        assertThat(logs.toString()).doesNotContain("event=driver-");
        assertThat(reloads.get()).isEqualTo(1);
    }

    @Test
    void aMigLayoutPublishedByTheMigManagerIsFollowedByTheSpecAndAcknowledged() throws Exception {
        Map<String, String> layout = Map.of("layout", "0=1g.5gb+1g.5gb;1=off");
        readiness.markReady(ReadinessFiles.MIG_LAYOUT, layout);

        await().atMost(Duration.ofSeconds(10))
                .until(() -> readiness.read(ReadinessFiles.MIG_LAYOUT_CDI).isPresent());
        assertThat(readiness.read(ReadinessFiles.MIG_LAYOUT_CDI)).contains(layout);
        assertThat(logs.toString()).containsOnlyOnce("event=mig-layout-followed cdi=rewritten");

        // the same layout again: nothing more
        int polls = daemon.driverPolls();
        await().atMost(Duration.ofSeconds(10)).until(() -> daemon.driverPolls() >= polls + 3);
        assertThat(logs.toString()).containsOnlyOnce("event=mig-layout-followed");
    }

    @Test
    void theCleanUpOfAReplacedToolkitPodBehindItsBackIsUndone() throws Exception {
        String config = Files.readString(cfg);
        Map<String, String> toolkitReady = readiness.read(ReadinessFiles.TOOLKIT).orElseThrow();
        // what the pod this one replaced does when it stops after this one came up
        readiness.clear(ReadinessFiles.TOOLKIT);
        Files.writeString(cfg, "version = 2\n");

        await().atMost(Duration.ofSeconds(10))
                .until(() -> readiness.read(ReadinessFiles.TOOLKIT).isPresent());
        assertThat(readiness.read(ReadinessFiles.TOOLKIT)).contains(toolkitReady);
        assertThat(Files.readString(cfg)).isEqualTo(config);
        assertThat(reloads.get()).as("the restored config reloaded once").isEqualTo(2);
        assertThat(logs.toString()).contains("event=toolkit-ready-restored");
        assertThat(daemon.ready()).isTrue();
    }

    private static Map<String, String> driverReady(String root, String version) {
        return Map.of("NVIDIA_DRIVER_ROOT", root, "DRIVER_VERSION", version);
    }

    private Path hostPath(String hostAbsolute) {
        return host.resolve(hostAbsolute.substring(1));
    }

    private String spec() throws Exception {
        return Files.readString(host.resolve("var/run/cdi/nvidia.yaml"));
    }

    private static Object fileKey(Path file) throws Exception {
        return Files.readAttributes(file, BasicFileAttributes.class).fileKey();
    }
}
