package org.gpuoperator.e2e.images;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import javax.tools.ToolProvider;
import org.gpuoperator.kubelet.aot.TrainingCriServer;
import org.gpuoperator.node.aot.TrainingApiServer;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * images/StartFloor.java, the program images/bench-floor.sh measures, compiled once as the bench
 * compiles it and run with this module's class path (picocli, kubelet-api): each mode does its one
 * step against the same stand-ins the bench gives it and says what it got, and a wrong mode or a
 * missing input is an error that says which.
 */
class StartFloorTest {

    private static final Path REPO = Path.of("..").toAbsolutePath().normalize();
    private static final Path JAVA = Path.of(System.getProperty("java.home"), "bin", "java");

    @TempDir static Path classes;

    record Run(int exit, String out) {}

    @BeforeAll
    static void compile() {
        int javac =
                ToolProvider.getSystemJavaCompiler()
                        .run(
                                null,
                                null,
                                null,
                                "-d",
                                classes.toString(),
                                "-cp",
                                System.getProperty("java.class.path"),
                                REPO.resolve("images/StartFloor.java").toString());
        assertThat(javac).as("javac images/StartFloor.java").isZero();
    }

    @Test
    void theJvmAndPicocliModesAreReady() throws Exception {
        assertThat(floor(Map.of(), "jvm", "--exit")).isEqualTo(new Run(0, "event=ready mode=jvm"));
        Run picocli = floor(Map.of(), "picocli", "--exit");
        assertThat(picocli.exit()).as(picocli.out()).isZero();
        assertThat(picocli.out()).endsWith("event=ready mode=picocli node-name=floor");
    }

    @Test
    void theGrpcModeCallsTheCriSocketsStatus(@TempDir Path dir) throws Exception {
        Path socket = dir.resolve("containerd.sock");
        try (TrainingCriServer cri = TrainingCriServer.start(socket, "nvidia", "/bin/true")) {
            Run run = floor(Map.of(), "grpc", socket.toString(), "--exit");
            assertThat(run.exit()).as(run.out()).isZero();
            // the stand-in's Status has its runtime's two conditions
            assertThat(run.out()).endsWith("event=ready mode=grpc runtime-conditions=2");
        }
    }

    @Test
    void theHttpsModeGetsAnAnswerOverTlsTrustingTheGivenCa(@TempDir Path dir) throws Exception {
        Path keystore = dir.resolve("api.p12");
        keytool(keystore);
        Path kubeconfig = dir.resolve("kubeconfig");
        try (TrainingApiServer api =
                TrainingApiServer.start(
                        keystore, "training".toCharArray(), "start-floor", kubeconfig)) {
            Map<String, String> env = podEnv(dir.resolve("pod.env"));
            Run run = floor(env, "https", "--exit");
            assertThat(run.exit()).as(run.out()).isZero();
            // the stand-in serves no /version: its 404 came back over the verified connection
            assertThat(run.out()).endsWith("event=ready mode=https status=404");

            // trusting another CA, the handshake fails
            Path other = dir.resolve("other.p12");
            keytool(other);
            Path otherCa = dir.resolve("other-ca.crt");
            keytool(
                    "-exportcert",
                    "-rfc",
                    "-keystore",
                    other.toString(),
                    "-storepass",
                    "training",
                    "-alias",
                    "api",
                    "-file",
                    otherCa.toString());
            Map<String, String> untrusted = new HashMap<>(env);
            untrusted.put("KUBERNETES_CERTS_CA_FILE", otherCa.toString());
            Run refused = floor(untrusted, "https", "--exit");
            assertThat(refused.exit()).isNotZero();
            assertThat(refused.out())
                    .contains("SSLHandshakeException")
                    .doesNotContain("event=ready");
        }
    }

    @Test
    void aWrongModeOrAMissingInputIsAnErrorThatSaysWhich() throws Exception {
        assertThat(floor(Map.of(), "warm", "--exit"))
                .isEqualTo(
                        new Run(
                                2,
                                "StartFloor: error: unknown mode 'warm'; usage: StartFloor"
                                        + " jvm|picocli|https|grpc [CRI_SOCKET] [--exit]"));
        assertThat(floor(Map.of(), "grpc", "--exit").out())
                .startsWith("StartFloor: error: grpc needs the CRI socket's path;");
        assertThat(floor(Map.of(), "https", "--exit").out())
                .startsWith(
                        "StartFloor: error: https needs KUBERNETES_CERTS_CA_FILE in the"
                                + " environment;");
    }

    /**
     * Runs StartFloor with {@code env} (and none of this JVM's {@code KUBERNETES_*} variables); its
     * exit code and output, the ready line's timestamp cut off.
     */
    private static Run floor(Map<String, String> env, String... args) throws Exception {
        List<String> command = new ArrayList<>();
        command.add(JAVA.toString());
        command.add("-cp");
        command.add(classes + File.pathSeparator + System.getProperty("java.class.path"));
        command.add("StartFloor");
        command.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
        pb.environment().keySet().removeIf(k -> k.startsWith("KUBERNETES_"));
        pb.environment().putAll(env);
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
        return new Run(p.exitValue(), out.replaceFirst("(?m)^ts=\\S+ ", ""));
    }

    private static Map<String, String> podEnv(Path file) throws Exception {
        Map<String, String> env = new HashMap<>();
        for (String line : Files.readAllLines(file)) {
            int eq = line.indexOf('=');
            if (eq > 0) {
                env.put(line.substring(0, eq), line.substring(eq + 1));
            }
        }
        return env;
    }

    /** A key as images/aot-training.sh makes it for the stand-in API server. */
    private static void keytool(Path keystore) throws Exception {
        keytool(
                "-genkeypair",
                "-keystore",
                keystore.toString(),
                "-storetype",
                "PKCS12",
                "-storepass",
                "training",
                "-keypass",
                "training",
                "-alias",
                "api",
                "-keyalg",
                "EC",
                "-groupname",
                "secp256r1",
                "-dname",
                "CN=start-floor",
                "-ext",
                "san=ip:127.0.0.1",
                "-validity",
                "2");
    }

    private static void keytool(String... args) throws Exception {
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
        command.addAll(List.of(args));
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(out).isZero();
    }
}
