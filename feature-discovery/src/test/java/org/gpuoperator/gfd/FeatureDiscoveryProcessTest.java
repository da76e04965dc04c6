package org.gpuoperator.gfd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.File;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The daemon as a real process: it waits for the device plugin's readiness file, writes the
 * features file, re-reads its config on SIGHUP, and on SIGTERM withdraws the file and its readiness
 * file.
 */
class FeatureDiscoveryProcessTest {

    private static final Duration WAIT = Duration.ofSeconds(60);

    @TempDir Path dir;

    private Process process;

    @AfterEach
    void kill() {
        if (process != null && process.isAlive()) {
            process.destroyForcibly();
        }
    }

    private static int freePort() throws Exception {
        try (ServerSocket s = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    private static void signal(Process p, String sig) throws Exception {
        new ProcessBuilder("kill", "-" + sig, Long.toString(p.pid())).inheritIO().start().waitFor();
    }

    private static int readyz(int port) {
        try {
            HttpResponse<String> r =
                    HttpClient.newHttpClient()
                            .send(
                                    HttpRequest.newBuilder(
                                                    URI.create(
                                                            "http://127.0.0.1:" + port + "/readyz"))
                                            .build(),
                                    HttpResponse.BodyHandlers.ofString());
            return r.statusCode();
        } catch (Exception e) {
            return -1;
        }
    }

    @Test
    void sighupReloadsTheConfigAndSigtermWithdrawsTheLabels() throws Exception {
        Path validations = Files.createDirectories(dir.resolve("validations"));
        Path out = dir.resolve("features.d/gfd");
        Path config = Files.writeString(dir.resolve("config.yaml"), "version: v1\n");
        int port = freePort();
        String java = ProcessHandle.current().info().command().orElse("java");
        ProcessBuilder pb =
                new ProcessBuilder(
                        java,
                        "--enable-native-access=ALL-UNNAMED",
                        "-cp",
                        System.getProperty("java.class.path"),
                        FeatureDiscoveryMain.class.getName(),
                        "--gpu-source",
                        "simulated:l4-x2",
                        "--node-name",
                        "proc-node",
                        "--host-root",
                        dir.toString(),
                        "--validations-dir",
                        validations.toString(),
                        "--health-address",
                        "127.0.0.1:" + port,
                        "--output-file",
                        out.toString(),
                        "--config-file",
                        config.toString(),
                        "--sleep-interval",
                        "1h");
        pb.redirectErrorStream(true).redirectOutput(dir.resolve("agent.log").toFile());
        pb.environment()
                .keySet()
                .removeIf(
                        k ->
                                k.startsWith("GFD_")
                                        || List.of(
                                                        "CONFIG_FILE",
                                                        "MIG_STRATEGY",
                                                        "NODE_NAME",
                                                        "GPU_SOURCE",
                                                        "HOST_ROOT")
                                                .contains(k));
        process = pb.start();

        // Nothing happens before the device plugin says it is ready.
        await().atMost(WAIT)
                .until(
                        () ->
                                Files.readString(dir.resolve("agent.log"))
                                        .contains("waiting-for-predecessor"));
        assertThat(out).doesNotExist();
        Files.writeString(validations.resolve("plugin-ready"), "resources=nvidia.com/gpu\n");

        await().atMost(WAIT).until(() -> Files.exists(out));
        assertThat(Files.readAllLines(out))
                .contains("nvidia.com/gpu.product=NVIDIA-L4", "nvidia.com/gpu.count=2");
        await().atMost(WAIT).until(() -> readyz(port) == 200);
        assertThat(validations.resolve("gfd-ready")).exists();

        Files.writeString(
                config,
                """
                version: v1
                sharing:
                  timeSlicing:
                    resources:
                    - name: nvidia.com/gpu
                      replicas: 2
                """);
        signal(process, "HUP");
        await().atMost(WAIT)
                .until(
                        () ->
                                Files.readString(out)
                                        .contains("nvidia.com/gpu.product=NVIDIA-L4-SHARED"));
        assertThat(Files.readAllLines(out))
                .contains(
                        "nvidia.com/gpu.sharing-strategy=time-slicing",
                        "nvidia.com/gpu.replicas=2");

        signal(process, "TERM");
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(out).doesNotExist();
        assertThat(validations.resolve("gfd-ready")).doesNotExist();
        String log = Files.readString(dir.resolve("agent.log"));
        assertThat(log)
                .contains("event=config-reloaded", "event=output-file-removed", "event=stopped")
                .doesNotContain("Exception");
        assertThat(new File(dir.toFile(), "features.d").list()).isEmpty();
    }
}
