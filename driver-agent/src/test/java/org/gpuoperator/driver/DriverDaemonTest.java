package org.gpuoperator.driver;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.awaitility.Awaitility;
import org.gpuoperator.node.agent.HealthServer;
import org.gpuoperator.node.agent.ReadinessFiles;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The daemon loop on a simulated node, with the health server kubelet probes. */
class DriverDaemonTest {

    static final Duration PATIENCE = Duration.ofSeconds(60);

    @TempDir Path tmp;

    private DriverDaemon daemon(DriverTestAccess.Wired w) {
        DriverAgentMain.Wiring wiring = w.wiring();
        return new DriverDaemon(
                wiring.agent(),
                wiring.readiness(),
                wiring.statusFile(),
                Duration.ofMillis(200),
                Duration.ofMillis(50),
                Duration.ofMillis(200),
                wiring.log(),
                Clock.systemUTC());
    }

    private static int readyz(HealthServer health) throws Exception {
        try (HttpClient http = HttpClient.newHttpClient()) {
            return http.send(
                            HttpRequest.newBuilder(
                                            URI.create(
                                                    "http://127.0.0.1:"
                                                            + health.port()
                                                            + "/readyz"))
                                    .build(),
                            HttpResponse.BodyHandlers.discarding())
                    .statusCode();
        }
    }

    @Test
    void readyOnceVerifiedAndDriverReadyRemovedWhenStopped() throws Exception {
        DriverTestAccess.Wired w = DriverTestAccess.wire(tmp, "node-a", "simulated:l4-x2");
        DriverDaemon daemon = daemon(w);
        Path driverReady = w.wiring().readiness().file(ReadinessFiles.DRIVER);
        Thread loop = Thread.ofVirtual().start(daemon::run);
        try (HealthServer health = HealthServer.start("127.0.0.1:0", daemon::ready)) {
            Awaitility.await().atMost(PATIENCE).until(daemon::ready);
            assertThat(readyz(health)).isEqualTo(200);
            assertThat(driverReady).isRegularFile();
            assertThat(Files.readString(w.wiring().statusFile()))
                    .startsWith("STATE=ready\nMODE=container\n");

            daemon.stop(PATIENCE);
            daemon.markStopped();

            assertThat(loop.join(PATIENCE)).isTrue();
            assertThat(driverReady).doesNotExist();
            assertThat(readyz(health)).isEqualTo(503);
            assertThat(Files.readString(w.wiring().statusFile()))
                    .contains("STATE=not-ready", "STEP=stopped");
        }
        assertThat(w.log()).containsOnlyOnce("event=driver-ready");
    }

    @Test
    void whileNotReadyTheProbeFailsDriverReadyIsAbsentAndTheAgentRetriesInsteadOfExiting()
            throws Exception {
        DriverTestAccess.Wired w =
                DriverTestAccess.wire(tmp, "node-a", "simulated:l4-x2", "--expected-gpus", "3");
        Path driverReady = w.wiring().readiness().file(ReadinessFiles.DRIVER);
        Files.createDirectories(driverReady.getParent());
        Files.writeString(driverReady, "IS_HOST_DRIVER=false\n"); // left over from an earlier run
        DriverDaemon daemon = daemon(w);
        Thread loop = Thread.ofVirtual().start(daemon::run);
        try (HealthServer health = HealthServer.start("127.0.0.1:0", daemon::ready)) {
            Awaitility.await()
                    .atMost(PATIENCE)
                    .until(() -> w.log().split("event=driver-not-ready", -1).length > 3);

            assertThat(readyz(health)).isEqualTo(503);
            assertThat(driverReady).doesNotExist();
            assertThat(loop.isAlive()).isTrue();
            assertThat(Files.readString(w.wiring().statusFile()))
                    .contains(
                            "STATE=not-ready",
                            "STEP=verify",
                            "MESSAGE=simulated:l4-x2 reports 2 GPU(s), expected 3");
            assertThat(w.log()).contains("level=error", "step=verify", "retry-in=");
        } finally {
            daemon.stop(PATIENCE);
        }
    }

    @Test
    void theRealProcessRemovesDriverReadyOnSigterm() throws Exception {
        String javaBin = ProcessHandle.current().info().command().orElse("java");
        List<String> cmd =
                new ArrayList<>(
                        List.of(
                                javaBin,
                                "--enable-native-access=ALL-UNNAMED",
                                "-cp",
                                System.getProperty("java.class.path"),
                                DriverAgentMain.class.getName()));
        cmd.addAll(DriverTestAccess.args(tmp, "node-a", "simulated:t4-x1"));
        Path out = tmp.resolve("agent.log");
        Process agent =
                new ProcessBuilder(cmd)
                        .redirectErrorStream(true)
                        .redirectOutput(out.toFile())
                        .start();
        Path driverReady =
                tmp.resolve("host/run/nvidia/validations").resolve(ReadinessFiles.DRIVER);
        try {
            Awaitility.await()
                    .atMost(PATIENCE)
                    .until(() -> Files.isRegularFile(driverReady) || !agent.isAlive());
            assertThat(driverReady).as(Files.readString(out)).isRegularFile();

            agent.destroy(); // SIGTERM, as kubelet sends it

            assertThat(agent.waitFor(60, TimeUnit.SECONDS)).isTrue();
            assertThat(driverReady).doesNotExist();
            assertThat(Files.readString(out)).contains("event=driver-ready", "event=stopped");
        } finally {
            agent.destroyForcibly();
        }
    }
}
