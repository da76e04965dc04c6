package org.gpuoperator.e2e.images;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Every image definition builds an AOT cache for its component and runs with it, and the local
 * image build takes the same step. Reads the Dockerfiles, jvm.flags and the training script; no
 * Docker, no jars.
 */
class AotCacheDefinitionTest {

    private static final Path REPO = Path.of("..").toAbsolutePath().normalize();

    private static ReleaseDockerfile dockerfile(String c) throws IOException {
        Path f = REPO.resolve("images").resolve(c).resolve("Dockerfile");
        return ReleaseDockerfile.parse(REPO.relativize(f).toString(), Files.readString(f));
    }

    @Test
    void everyImageTrainsItsOwnCacheInsideTheImageAfterCopyingWhatItRuns() throws IOException {
        for (String c : ImageLayout.COMPONENTS) {
            ReleaseDockerfile d = dockerfile(c);
            AotTraining step = AotTraining.of("images/" + c + "/Dockerfile", d);
            assertThat(step)
                    .as("AOT training step of %s", c)
                    .isEqualTo(
                            new AotTraining(
                                    c, ImageLayout.APP_DIR, ImageLayout.aotCache(c), "java"));
            // in the final stage (the image's own JRE) and after the jar, lib/ and jvm.flags are
            // in /app: the cache is made with the class path and flags the entrypoint runs
            ReleaseDockerfile.Run run =
                    d.runs().stream()
                            .filter(r -> r.bindMounts().containsValue(AotTraining.SCRIPT))
                            .findFirst()
                            .orElseThrow();
            List<String> copiedBefore =
                    d.copies().subList(0, run.copiesBefore()).stream()
                            .map(ReleaseDockerfile.Copy::destination)
                            .toList();
            assertThat(copiedBefore)
                    .as("what %s's image holds in /app before its training run", c)
                    .contains(ImageLayout.jar(c), ImageLayout.LIB_DIR, ImageLayout.JVM_FLAGS);
        }
    }

    @Test
    void everyImageRunsWithItsCacheAndTheLocalImagesRunTheSameEntrypoint() throws IOException {
        for (String c : ImageLayout.COMPONENTS) {
            List<String> entrypoint = dockerfile(c).entrypoint();
            assertThat(entrypoint)
                    .as("entrypoint of %s", c)
                    .containsExactly(
                            "java",
                            "-XX:AOTCache=/app/" + c + ".aot",
                            "@/app/jvm.flags",
                            "-jar",
                            "/app/" + c + ".jar")
                    .isEqualTo(ImageLayout.entrypoint(c));
        }
    }

    @Test
    void noJvmFlagsFileHasAnOptionThatAnAotCacheCannotRunWith() throws IOException {
        for (String c : ImageLayout.COMPONENTS) {
            List<String> flags =
                    Files.readAllLines(REPO.resolve("images").resolve(c).resolve("jvm.flags"))
                            .stream()
                            .filter(l -> !l.strip().startsWith("#"))
                            .flatMap(l -> Arrays.stream(l.strip().split("\\s+")))
                            .toList();
            // -Xshare:* and SharedArchiveFile make the JVM refuse -XX:AOTCache; a cache named in
            // jvm.flags would be looked for in process mode, where there is none
            assertThat(flags)
                    .as("jvm.flags of %s", c)
                    .noneMatch(
                            f ->
                                    f.startsWith("-Xshare")
                                            || f.contains("SharedArchiveFile")
                                            || f.startsWith("-XX:AOT"));
        }
    }

    @Test
    void theLocalImageBuildRunsTheDockerfilesStepWithItsOwnRuntimeOnAStagedAppDirectory()
            throws IOException {
        for (String c : ImageLayout.COMPONENTS) {
            AotTraining step = AotTraining.of(c, dockerfile(c));
            Path staged = Path.of("/build/aot").resolve(c).resolve("app");
            Path java = Path.of("/build/java-runtime/bin/java");
            assertThat(step.hostCommand(REPO, staged, java))
                    .containsExactly(
                            "bash",
                            REPO.resolve("images/aot-training.sh").toString(),
                            c,
                            staged.toString(),
                            staged.resolve(c + ".aot").toString(),
                            java.toString());
        }
    }

    @Test
    void theTrainingScriptHasAWorkloadAndAReadyLineForEveryComponentAndRefusesOthers()
            throws Exception {
        for (String c : ImageLayout.COMPONENTS) {
            Result r = script("workload_ready " + c + " && workload_args " + c + " \"$W\"");
            assertThat(r.exit()).as("%s: %s", c, r.out()).isZero();
            List<String> lines = r.out().lines().toList();
            assertThat(lines.getFirst()).as("ready line of %s", c).isNotBlank();
            assertThat(lines.subList(1, lines.size()))
                    .as("arguments of %s's training run: no cluster, nothing on fixed ports", c)
                    .allMatch(a -> a.startsWith("--"))
                    .noneMatch(a -> a.matches(".*address=.*:(?!0$)\\d+"));
        }
        Result unknown = script("workload_args nvidia-fabricmanager \"$W\"");
        assertThat(unknown.exit()).isNotZero();
        assertThat(unknown.out()).contains("unknown component 'nvidia-fabricmanager'");
    }

    @Test
    void theAgentsThatTalkToTheApiServerAtStartTrainAgainstTheStandInOverTls() throws Exception {
        assertThat(
                        script(
                                        "workload_api feature-discovery && workload_api validator"
                                                + " && workload_api mig-manager")
                                .exit())
                .isZero();
        for (String c :
                List.of("driver-agent", "toolkit-agent", "device-plugin", "dcgm-exporter")) {
            assertThat(script("workload_api " + c).exit()).as(c).isNotZero();
        }
        assertThat(script("workload_args feature-discovery \"$W\"").out())
                .as("labels go through the API, as in a cluster")
                .doesNotContain("--output-file");

        // the script's own start of the server, with node-agent-lib from the app's lib/
        Path app = Files.createTempDirectory("aot-app");
        Files.createDirectories(app.resolve("lib"));
        Files.copy(
                REPO.resolve("node-agent-lib/target/node-agent-lib.jar"),
                app.resolve("lib/node-agent-lib.jar"));
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Result r =
                script(
                        "training_api_start \"$W\" "
                                + app
                                + " "
                                + java
                                + "; trap 'kill $api_pid' EXIT; cat \"$W/kubeconfig\";"
                                + " workload_env feature-discovery \"$W\"");
        assertThat(r.exit()).as(r.out()).isZero();
        String kubeconfig = r.out().substring(r.out().indexOf("apiVersion"));
        assertThat(kubeconfig).contains("server: \"https://127.0.0.1:");
        assertThat(r.out().lines())
                .as(
                        "the agent reaches it as a pod does: service variables, service account, no kubeconfig")
                .contains("KUBERNETES_SERVICE_HOST=127.0.0.1")
                .anyMatch(l -> l.matches("KUBERNETES_SERVICE_PORT=\\d+"))
                .anyMatch(
                        l ->
                                l.matches(
                                        "KUBERNETES_AUTH_SERVICEACCOUNT_TOKEN=.*/serviceaccount/token"))
                .anyMatch(l -> l.matches("KUBECONFIG=.*/no-kubeconfig"));
    }

    @Test
    void theCriChecksTrainAgainstTheStandInSocketToolkitAgentsWithItsDefaultRestartMode()
            throws Exception {
        assertThat(script("workload_cri toolkit-agent && workload_cri validator").exit()).isZero();
        for (String c : ImageLayout.COMPONENTS) {
            if (!c.equals("toolkit-agent") && !c.equals("validator")) {
                assertThat(script("workload_cri " + c).exit()).as(c).isNotZero();
            }
        }
        assertThat(script("workload_args toolkit-agent \"$W\"").out().lines())
                .as("the restart mode of a pod (the default), whose reload the CRI check follows")
                .contains("--restart-mode=signal")
                .noneMatch(a -> a.startsWith("--socket"));
        assertThat(script("workload_args validator \"$W\"").out().lines())
                .as("the validator is given the same socket, in its run's host root")
                .anyMatch(
                        a ->
                                a.matches(
                                        "--runtime-socket=.*/host/run/containerd/containerd\\.sock"));

        // the script's own start of the socket, with kubelet-api and gRPC from the app's lib/
        Path app = Files.createTempDirectory("aot-app");
        Files.createSymbolicLink(app.resolve("lib"), REPO.resolve("toolkit-agent/target/lib"));
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Result r =
                script(
                        "workload_args toolkit-agent \"$W\" > /dev/null; training_cri_start \"$W\" "
                                + app
                                + " "
                                + java
                                + "; trap 'kill $cri_pid' EXIT;"
                                + " [ -S \"$W/host/run/containerd/containerd.sock\" ] && echo socket;"
                                + " kill -HUP $cri_pid; sleep 0.5; kill -0 $cri_pid && echo alive");
        assertThat(r.exit()).as(r.out()).isZero();
        assertThat(r.out().lines())
                .as(
                        "the agent's default socket under the run's host root, still served after SIGHUP")
                .contains("socket", "alive");
    }

    @Test
    void theDevicePluginTrainsUntilTheStandInKubeletTookItsRegister() throws Exception {
        assertThat(script("workload_kubelet device-plugin").exit()).isZero();
        for (String c : ImageLayout.COMPONENTS) {
            if (!c.equals("device-plugin")) {
                assertThat(script("workload_kubelet " + c).exit()).as(c).isNotZero();
            }
        }
        assertThat(script("workload_ready device-plugin").out())
                .as("ready is registered with the kubelet, as its /readyz says")
                .isEqualTo("event=registered \n");
        assertThat(script("workload_ready mig-manager").out())
                .as("ready is its first reconcile's end, as its /readyz says")
                .isEqualTo("event=mig-config-applied \n");

        // the script's own start of the socket, with kubelet-api and gRPC from the app's lib/,
        // where the
        // plugin's --device-plugin-path looks for it
        Path app = Files.createTempDirectory("aot-app");
        Files.createSymbolicLink(app.resolve("lib"), REPO.resolve("device-plugin/target/lib"));
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Result r =
                script(
                        "workload_args device-plugin \"$W\" | grep -- --device-plugin-path=; training_kubelet_start \"$W\" "
                                + app
                                + " "
                                + java
                                + "; trap 'kill $kubelet_pid' EXIT;"
                                + " [ -S \"$W/plugins/kubelet.sock\" ] && echo socket;"
                                + " ls -A \"$W/plugins\"");
        assertThat(r.exit()).as(r.out()).isZero();
        assertThat(r.out().lines())
                .as(
                        "the kubelet's socket in the plugin directory the plugin is given, and nothing else there")
                .anyMatch(l -> l.matches("--device-plugin-path=.*/plugins"))
                .contains("socket")
                .endsWith("kubelet.sock");
    }

    @Test
    void theCleanUpKillsEveryStandInEvenAfterAProcessAlreadyGone() throws Exception {
        // as the EXIT trap runs it under set -e when the agent died during training
        Result r =
                script(
                        "bash -c 'exit 0' & gone=$!; wait $gone;"
                                + " sleep 60 & api=$!; sleep 60 & cri=$!;"
                                + " kill_all_quietly \"$gone\" \"\" \"$api\" \"$cri\"; echo cleaned;"
                                + " wait $api $cri 2>/dev/null || true;"
                                + " kill -0 $api 2>/dev/null || kill -0 $cri 2>/dev/null && echo alive || echo gone");
        assertThat(r.exit()).as(r.out()).isZero();
        assertThat(r.out().lines()).containsExactly("cleaned", "gone");
    }

    @Test
    void aDefinitionWithoutTheStepOrWithAnotherCommandIsRejectedNamingTheFile() {
        String base =
                """
                FROM eclipse-temurin:25.0.1_8-jre-noble
                COPY x/target/x.jar /app/x.jar
                %s
                ENTRYPOINT ["java", "-XX:AOTCache=/app/x.aot", "@/app/jvm.flags", "-jar", "/app/x.jar"]
                """;
        assertThatThrownBy(
                        () ->
                                AotTraining.of(
                                        "images/x/Dockerfile",
                                        ReleaseDockerfile.parse("f", base.formatted(""))))
                .hasMessageStartingWith("images/x/Dockerfile: expected one RUN --mount");
        assertThatThrownBy(
                        () ->
                                AotTraining.of(
                                        "images/x/Dockerfile",
                                        ReleaseDockerfile.parse(
                                                "f",
                                                base.formatted(
                                                        "RUN --mount=type=bind,source=images/aot-training.sh,"
                                                                + "target=/t.sh java -XX:AOTCacheOutput=/app/x.aot -jar /app/x.jar"))))
                .hasMessageContaining("the AOT training RUN must be `bash /t.sh");
        assertThatThrownBy(
                        () ->
                                AotTraining.of(
                                        "images/x/Dockerfile",
                                        ReleaseDockerfile.parse(
                                                "f",
                                                base.formatted(
                                                        "RUN --mount=type=bind,source=images/aot-training.sh,"
                                                                + "target=/t.sh bash /t.sh x /app /tmp/x.aot java"))))
                .hasMessageContaining("the AOT cache /tmp/x.aot must be a file directly in /app");
    }

    private record Result(int exit, String out) {}

    /** Runs {@code commands} in bash after sourcing the script as a library; $W is a temp dir. */
    private static Result script(String commands) throws Exception {
        ProcessBuilder pb =
                new ProcessBuilder(
                                "bash",
                                "-c",
                                "set -euo pipefail; AOT_TRAINING_LIB=1 source \"$S\"; " + commands)
                        .redirectErrorStream(true);
        pb.environment().put("S", REPO.resolve(AotTraining.SCRIPT).toString());
        pb.environment().put("W", Files.createTempDirectory("aot-script").toString());
        Process p = pb.start();
        p.getOutputStream().close();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IOException("bash did not finish: " + commands);
        }
        return new Result(p.exitValue(), out);
    }
}
