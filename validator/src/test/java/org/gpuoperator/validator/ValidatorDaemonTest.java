package org.gpuoperator.validator;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.gpuoperator.node.agent.Backoff;
import org.gpuoperator.node.agent.EventLog;
import org.gpuoperator.node.agent.ReadinessFiles;
import org.gpuoperator.validator.report.CheckResult;
import org.gpuoperator.validator.report.Layer;
import org.gpuoperator.validator.report.NodeReport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ValidatorDaemonTest {

    @TempDir Path dir;

    final List<NodeReport> published = new ArrayList<>();
    final AtomicReference<CheckResult> driver =
            new AtomicReference<>(
                    CheckResult.ready(Map.of("IS_HOST_DRIVER", "true", "NVIDIA_DRIVER_ROOT", "/")));
    final AtomicInteger toolkitRuns = new AtomicInteger();
    final AtomicReference<CheckResult> plugin = new AtomicReference<>(CheckResult.ready());
    Backoff backoff = new Backoff(Duration.ofMillis(10), Duration.ofMillis(20));

    final java.util.concurrent.atomic.AtomicLong nanos =
            new java.util.concurrent.atomic.AtomicLong();

    ValidatorDaemon daemon(boolean driverManaged, boolean toolkitManaged, boolean pluginManaged) {
        Map<Layer, ValidatorDaemon.Check> checks = new EnumMap<>(Layer.class);
        checks.put(Layer.DRIVER, driver::get);
        checks.put(
                Layer.TOOLKIT,
                () -> {
                    toolkitRuns.incrementAndGet();
                    return CheckResult.ready();
                });
        checks.put(Layer.CUDA, CheckResult::ready);
        checks.put(Layer.PLUGIN, plugin::get);
        return new ValidatorDaemon(
                checks,
                Map.of(
                        Layer.DRIVER, driverManaged,
                        Layer.TOOLKIT, toolkitManaged,
                        Layer.PLUGIN, pluginManaged),
                new ReadinessFiles(dir),
                r -> published.add(r),
                new EventLog("test", new PrintStream(new ByteArrayOutputStream())),
                Duration.ofMinutes(5),
                backoff,
                nanos::get);
    }

    static List<Duration> seconds(long... s) {
        List<Duration> out = new ArrayList<>();
        for (long v : s) {
            out.add(Duration.ofSeconds(v));
        }
        return out;
    }

    List<Duration> nextWaits(ValidatorDaemon d, int rounds) throws InterruptedException {
        List<Duration> waits = new ArrayList<>();
        for (int i = 0; i < rounds; i++) {
            waits.add(d.nextWait(d.round()));
        }
        return waits;
    }

    @Test
    void whileLayersOnlyWaitTheNextRoundComesWithinFiveSecondsAndSoonerAfterAChange()
            throws Exception {
        backoff = new Backoff(Duration.ofSeconds(2), Duration.ofSeconds(30));
        ValidatorDaemon d = daemon(false, false, true); // the device plugin's file is not there
        assertThat(nextWaits(d, 5)).as("not 8, 16, 30 s").isEqualTo(seconds(2, 4, 5, 5, 5));

        // the plugin is up but its GPUs are not advertised yet: something else to wait for
        new ReadinessFiles(dir).markReady("plugin-ready", Map.of());
        plugin.set(CheckResult.waiting("node n has no allocatable nvidia.com/gpu"));
        assertThat(nextWaits(d, 4)).isEqualTo(seconds(2, 4, 5, 5));

        plugin.set(CheckResult.ready());
        assertThat(d.nextWait(d.round()))
                .as("the recheck interval")
                .isEqualTo(Duration.ofMinutes(5));
    }

    @Test
    void afterAFailedCheckTheNextRoundBacksOffToThirtySeconds() throws Exception {
        backoff = new Backoff(Duration.ofSeconds(2), Duration.ofSeconds(30));
        ValidatorDaemon d = daemon(false, false, true);
        new ReadinessFiles(dir).markReady("plugin-ready", Map.of());
        driver.set(CheckResult.failed("no usable host driver"));
        assertThat(nextWaits(d, 6)).isEqualTo(seconds(2, 4, 8, 16, 30, 30));

        // the driver is back; the plugin now only waits: polled again, not backed off
        driver.set(CheckResult.ready(Map.of("IS_HOST_DRIVER", "true", "NVIDIA_DRIVER_ROOT", "/")));
        plugin.set(CheckResult.waiting("node n has no allocatable nvidia.com/gpu"));
        assertThat(nextWaits(d, 3)).isEqualTo(seconds(2, 4, 5));

        driver.set(CheckResult.failed("no usable host driver"));
        assertThat(nextWaits(d, 2))
                .as("the failure back-off starts again")
                .isEqualTo(seconds(2, 4));
    }

    @Test
    void whileALaterLayerWaitsAPassedLayerIsCheckedAgainOnlyAfterTheRecheckInterval()
            throws Exception {
        ValidatorDaemon d = daemon(false, false, true); // the device plugin's file is not there
        ReadinessFiles files = new ReadinessFiles(dir);
        assertThat(d.round().reason())
                .contains("plugin: waiting for plugin-ready from device-plugin");
        assertThat(toolkitRuns).hasValue(1);

        nanos.addAndGet(Duration.ofSeconds(30).toNanos()); // back-off rounds
        assertThat(d.round().annotation())
                .isEqualTo("driver=ready toolkit=ready cuda=ready plugin=waiting");
        assertThat(d.round().ready()).isFalse();
        assertThat(toolkitRuns).as("kept from the first round").hasValue(1);
        assertThat(files.read("toolkit-ready")).isPresent();

        nanos.addAndGet(Duration.ofMinutes(5).toNanos());
        d.round();
        assertThat(toolkitRuns).as("older than the recheck interval").hasValue(2);

        files.markReady("plugin-ready", Map.of());
        assertThat(d.round().ready()).isTrue();
        assertThat(toolkitRuns).hasValue(2);
        d.round();
        assertThat(toolkitRuns)
                .as("once all are ready, every round checks every layer")
                .hasValue(3);
    }

    @Test
    void aLayerThatWaitedForItsPredecessorIsCheckedAgainWhenItComesBack() throws Exception {
        ValidatorDaemon d = daemon(false, false, true);
        d.round();
        assertThat(toolkitRuns).hasValue(1);

        driver.set(CheckResult.failed("no usable host driver"));
        assertThat(d.round().annotation()).startsWith("driver=failed toolkit=waiting");
        driver.set(CheckResult.ready(Map.of("IS_HOST_DRIVER", "true", "NVIDIA_DRIVER_ROOT", "/")));
        assertThat(d.round().annotation()).startsWith("driver=ready toolkit=ready");
        assertThat(toolkitRuns).hasValue(2);
    }

    @Test
    void aValidatedHostDriverGetsItsReadyFileWithFactsAndLosesItWhenItBreaks() throws Exception {
        ValidatorDaemon d = daemon(false, false, false);
        NodeReport r = d.round();
        assertThat(r.annotation())
                .isEqualTo("driver=ready toolkit=ready cuda=ready plugin=disabled");
        assertThat(r.ready()).isTrue();
        ReadinessFiles files = new ReadinessFiles(dir);
        assertThat(files.read("driver-ready"))
                .contains(Map.of("IS_HOST_DRIVER", "true", "NVIDIA_DRIVER_ROOT", "/"));
        assertThat(files.read("toolkit-ready")).isPresent();
        assertThat(files.read("cuda-ready")).isPresent();
        assertThat(files.read("plugin-ready")).isEmpty();

        driver.set(CheckResult.failed("no usable host driver: /dev/nvidiactl missing under /host"));
        r = d.round();
        assertThat(r.annotation())
                .isEqualTo("driver=failed toolkit=waiting cuda=waiting plugin=disabled");
        assertThat(r.reason())
                .contains("driver: no usable host driver: /dev/nvidiactl missing under /host");
        assertThat(files.read("driver-ready")).isEmpty();
        assertThat(files.read("toolkit-ready")).isEmpty();
        assertThat(files.read("cuda-ready")).isEmpty();
        assertThat(published).hasSize(2);
    }

    @Test
    void aManagedLayerWaitsForItsOperandWithoutRunningItsCheckAndItsFileIsNeverTouched()
            throws Exception {
        ValidatorDaemon d = daemon(true, true, true);
        NodeReport r = d.round();
        assertThat(r.annotation())
                .isEqualTo("driver=waiting toolkit=waiting cuda=waiting plugin=waiting");
        assertThat(r.reason()).contains("driver: waiting for driver-ready from driver-agent");

        ReadinessFiles files = new ReadinessFiles(dir);
        files.markReady("driver-ready", Map.of("NVIDIA_DRIVER_ROOT", "/run/nvidia/driver"));
        r = d.round();
        assertThat(r.reason()).contains("toolkit: waiting for toolkit-ready from toolkit-agent");
        assertThat(toolkitRuns).hasValue(0);

        files.markReady("toolkit-ready", Map.of());
        files.markReady("plugin-ready", Map.of());
        r = d.round();
        assertThat(r.ready()).isTrue();
        assertThat(toolkitRuns).hasValue(1);

        d.close();
        assertThat(files.read("driver-ready")).isPresent();
        assertThat(files.read("toolkit-ready")).isPresent();
        assertThat(files.read("plugin-ready")).isPresent();
        assertThat(files.read("cuda-ready")).as("cuda-ready is the validator's own").isEmpty();
    }

    @Test
    void stoppingRemovesTheFilesTheValidatorWrote() throws Exception {
        ValidatorDaemon d = daemon(false, false, false);
        d.round();
        d.close();
        ReadinessFiles files = new ReadinessFiles(dir);
        assertThat(files.read("driver-ready")).isEmpty();
        assertThat(files.read("toolkit-ready")).isEmpty();
        assertThat(files.read("cuda-ready")).isEmpty();
    }

    @Test
    void aCheckThatThrowsIsReportedAsFailedWithItsMessage() throws Exception {
        Map<Layer, ValidatorDaemon.Check> checks = new EnumMap<>(Layer.class);
        checks.put(
                Layer.DRIVER,
                () -> {
                    throw new IllegalStateException("boom");
                });
        ValidatorDaemon throwing =
                new ValidatorDaemon(
                        checks,
                        Map.of(),
                        new ReadinessFiles(dir),
                        r -> false,
                        new EventLog("test", new PrintStream(new ByteArrayOutputStream())),
                        Duration.ofMinutes(5),
                        new Backoff(Duration.ofMillis(10), Duration.ofMillis(20)));
        assertThat(throwing.round().reason()).contains("driver: boom");
    }

    @Test
    void runEndsPromptlyOnStop() throws Exception {
        ValidatorDaemon d = daemon(false, false, false);
        Thread t =
                Thread.ofPlatform()
                        .start(
                                () -> {
                                    try {
                                        d.run();
                                    } catch (InterruptedException e) {
                                        Thread.currentThread().interrupt();
                                    }
                                });
        Thread.sleep(100);
        d.stop();
        t.join(2000);
        assertThat(t.isAlive()).isFalse();
        assertThat(d.report().ready()).isTrue();
    }
}
