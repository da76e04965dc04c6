package org.gpuoperator.toolkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The admin's preview and the one-shot commands, run through the real command line. */
class CommandLineTest {

    @TempDir Path host;

    CommandLineRun run(String... args) {
        return CommandLineRun.of(args);
    }

    List<Path> allFiles() throws Exception {
        try (var s = Files.walk(host)) {
            return s.sorted().toList();
        }
    }

    @Test
    void dryRunPrintsTheWouldBeFileAndWritesNothing() throws Exception {
        Path cfg = host.resolve("etc/containerd/config.toml");
        Files.createDirectories(cfg.getParent());
        String original =
                "version = 2\n# keep me\n[plugins.\"io.containerd.grpc.v1.cri\".containerd.runtimes.runc]\n"
                        + "  runtime_type = \"io.containerd.runc.v2\"\n";
        Files.writeString(cfg, original);
        List<Path> before = allFiles();
        CommandLineRun r =
                run(
                        "configure",
                        "--runtime",
                        "containerd",
                        "--config",
                        "/etc/containerd/config.toml",
                        "--set-as-default",
                        "--dry-run",
                        "--host-root",
                        host.toString(),
                        "--containerd-executable",
                        "/no/such/containerd",
                        "--skip-containerd-validation");
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out())
                .startsWith(
                        "# ==> /etc/containerd/config.toml <==\nversion = 2\n"
                                + "imports = [\"/etc/containerd/conf.d/*.toml\"]\n# keep me\n")
                .contains("# ==> /etc/containerd/conf.d/99-nvidia.toml <==\n")
                .contains("default_runtime_name = \"nvidia\"")
                .contains("BinaryName = \"/usr/local/nvidia/toolkit/nvidia-container-runtime\"");
        assertThat(Files.readString(cfg)).isEqualTo(original);
        assertThat(allFiles()).isEqualTo(before);
    }

    /** A containerd that says its version and validates every config (dumps it back). */
    Path fakeContainerd(String version) throws Exception {
        Path bin = host.resolve("containerd-" + version);
        Files.writeString(
                bin,
                "#!/bin/sh\n"
                        + "if [ \"$1\" = --version ]; then echo \"containerd"
                        + " github.com/containerd/containerd "
                        + version
                        + " x\"; exit 0; fi\n"
                        + "if [ \"$1\" = --config ]; then cat \"$2\"; exit 0; fi\n"
                        + "exit 1\n");
        assertThat(bin.toFile().setExecutable(true)).isTrue();
        return bin;
    }

    @Test
    void unsetNvidiaBecomesContainerdsDefaultOnlyWhereItsCriDoesNotInjectCdi() throws Exception {
        Path cfg = host.resolve("config.toml");
        Files.writeString(cfg, "version = 2\n");
        java.util.function.BiFunction<String, String[], CommandLineRun> configure =
                (version, extra) -> {
                    try {
                        return run(
                                concat(
                                        new String[] {
                                            "configure",
                                            "--runtime",
                                            "containerd",
                                            "--config",
                                            cfg.toString(),
                                            "--dry-run",
                                            "--host-root",
                                            "/",
                                            "--containerd-executable",
                                            fakeContainerd(version).toString()
                                        },
                                        extra));
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                };
        assumeTrue(
                System.getenv("NVIDIA_RUNTIME_SET_AS_DEFAULT") == null
                        && System.getenv("CONTAINERD_SET_AS_DEFAULT") == null,
                "the set-as-default env is set here: the unset default cannot be seen");

        // 1.6 has no CDI in its CRI: the CDI devices a pod asks for reach it only through nvidia
        // (enable_cdi is written all the same; 1.6 ignores it)
        CommandLineRun cdiOn16 = configure.apply("1.6.20~ds1", new String[] {"--cdi-enabled"});
        assertThat(cdiOn16.exit()).as(cdiOn16.err()).isZero();
        assertThat(cdiOn16.out())
                .contains("default_runtime_name = \"nvidia\"")
                .contains("enable_cdi = true");
        // 1.7 injects them itself: runc stays the default, as upstream's operator has it
        CommandLineRun cdiOn17 = configure.apply("v1.7.20", new String[] {"--cdi-enabled"});
        assertThat(cdiOn17.exit()).as(cdiOn17.err()).isZero();
        assertThat(cdiOn17.out())
                .contains("enable_cdi = true")
                .doesNotContain("default_runtime_name");
        // CDI off: the device plugin's env reaches the container only through nvidia
        CommandLineRun cdiOff17 = configure.apply("v1.7.20", new String[0]);
        assertThat(cdiOff17.out()).contains("default_runtime_name = \"nvidia\"");
        // what the admin asks for wins either way
        assertThat(
                        configure
                                .apply(
                                        "1.6.20~ds1",
                                        new String[] {"--cdi-enabled", "--set-as-default=false"})
                                .out())
                .doesNotContain("default_runtime_name");
        assertThat(
                        configure
                                .apply(
                                        "v1.7.20",
                                        new String[] {"--cdi-enabled", "--set-as-default"})
                                .out())
                .contains("default_runtime_name = \"nvidia\"");
        assertThat(Files.readString(cfg)).isEqualTo("version = 2\n");
    }

    @Test
    void aMissingContainerdBinaryIsAnErrorUnlessSkippingIsAskedForAndThenItIsLogged()
            throws Exception {
        Path cfg = host.resolve("etc/containerd/config.toml");
        Files.createDirectories(cfg.getParent());
        String original = "version = 2\n";
        Files.writeString(cfg, original);
        String[] args = {
            "configure",
            "--config",
            "/etc/containerd/config.toml",
            "--restart-mode",
            "none",
            "--host-root",
            host.toString(),
            "--containerd-executable",
            "/usr/bin/containerd"
        };
        CommandLineRun refused = run(args);
        assertThat(refused.exit()).isEqualTo(1);
        assertThat(refused.err())
                .startsWith(
                        "toolkit-agent: error: containerd binary '/usr/bin/containerd' not found")
                .contains(host.resolve("usr/bin/containerd").toString())
                .contains("--skip-containerd-validation");
        assertThat(Files.readString(cfg)).isEqualTo(original);

        CommandLineRun skipped = run(concat(args, new String[] {"--skip-containerd-validation"}));
        assertThat(skipped.exit()).as(skipped.err()).isZero();
        assertThat(Files.readString(cfg)).contains("imports = [\"/etc/containerd/conf.d/*.toml\"]");
        assertThat(Files.readString(host.resolve("etc/containerd/conf.d/99-nvidia.toml")))
                .contains("nvidia-container-runtime");
    }

    @Test
    void theRuntimeNameIsTheHandlerRegisteredForEachRuntime() throws Exception {
        Path cfg = host.resolve("etc/containerd/config.toml");
        Files.createDirectories(cfg.getParent());
        Files.writeString(cfg, "version = 2\n");
        CommandLineRun containerd =
                run(
                        "configure",
                        "--runtime-name",
                        "nvidia-gpu",
                        "--set-as-default",
                        "--dry-run",
                        "--skip-containerd-validation",
                        "--host-root",
                        host.toString());
        assertThat(containerd.exit()).as(containerd.err()).isZero();
        assertThat(containerd.out())
                .contains("runtimes.nvidia-gpu]")
                .contains("default_runtime_name = \"nvidia-gpu\"")
                .doesNotContain("runtimes.nvidia]");
        CommandLineRun docker =
                run(
                        "configure",
                        "--runtime",
                        "docker",
                        "--runtime-name",
                        "nvidia-gpu",
                        "--dry-run",
                        "--host-root",
                        host.toString());
        assertThat(docker.out()).contains("\"nvidia-gpu\"").doesNotContain("\"nvidia\"");
        CommandLineRun crio =
                run(
                        "configure",
                        "--runtime",
                        "crio",
                        "--runtime-name",
                        "nvidia-gpu",
                        "--dry-run",
                        "--host-root",
                        host.toString());
        assertThat(crio.out()).contains("[crio.runtime.runtimes.nvidia-gpu]");
    }

    @Test
    void dryRunForDockerAndCrio() {
        CommandLineRun docker =
                run(
                        "configure",
                        "--runtime",
                        "docker",
                        "--config",
                        "/etc/docker/daemon.json",
                        "--dry-run",
                        "--host-root",
                        host.toString());
        assertThat(docker.exit()).as(docker.err()).isZero();
        assertThat(docker.out()).contains("\"nvidia\"").contains("nvidia-container-runtime");
        CommandLineRun crio =
                run("configure", "--runtime", "crio", "--dry-run", "--host-root", host.toString());
        assertThat(crio.exit()).as(crio.err()).isZero();
        assertThat(crio.out())
                .contains("[crio.runtime.runtimes.nvidia]")
                .contains("runtime_type = \"oci\"");
        assertThat(host.resolve("etc")).doesNotExist();
    }

    @Test
    void invalidInputExitsNonZeroWithOneLineOnStderr() throws Exception {
        Path cfg = host.resolve("etc/containerd/config.toml");
        Files.createDirectories(cfg.getParent());
        Files.writeString(cfg, "version = 2\n\n[plugins\n");
        CommandLineRun r =
                run(
                        "configure",
                        "--config",
                        "/etc/containerd/config.toml",
                        "--dry-run",
                        "--skip-containerd-validation",
                        "--host-root",
                        host.toString());
        assertThat(r.exit()).isEqualTo(1);
        assertThat(r.out()).isEmpty();
        assertThat(r.err())
                .startsWith("toolkit-agent: error: /etc/containerd/config.toml:3:")
                .doesNotContain("\tat ");
        assertThat(r.err().strip().lines()).hasSize(1);

        CommandLineRun badRuntime =
                run(
                        "configure",
                        "--runtime",
                        "podman",
                        "--dry-run",
                        "--host-root",
                        host.toString());
        assertThat(badRuntime.exit()).isEqualTo(2);
        assertThat(badRuntime.err()).startsWith("toolkit-agent: error: ").contains("podman");

        CommandLineRun badDuration =
                run("--resync-interval", "soon", "--host-root", host.toString());
        assertThat(badDuration.exit()).isEqualTo(2);
        assertThat(badDuration.err())
                .startsWith(
                        "toolkit-agent: error: Invalid value for option '--resync-interval': "
                                + "'soon' is not a duration");
    }

    @Test
    void durationsTakeSecondsUnitsOrIso() {
        ToolkitAgentMain main = new ToolkitAgentMain();
        org.gpuoperator.node.agent.AgentCommand.commandLine(main).parseArgs();
        assertThat(main.daemon.driverReadyTimeout).isZero();
        assertThat(main.daemon.resyncInterval).isEqualTo(java.time.Duration.ofSeconds(60));
        assertThat(main.daemon.verifyTimeout).isEqualTo(java.time.Duration.ofSeconds(60));
        // what a pod's env may still say (ISO-8601), and the kit's forms
        org.gpuoperator.node.agent.AgentCommand.commandLine(main)
                .parseArgs(
                        "--driver-ready-timeout",
                        "PT0S",
                        "--resync-interval",
                        "PT60S",
                        "--verify-timeout",
                        "90");
        assertThat(main.daemon.driverReadyTimeout).isZero();
        assertThat(main.daemon.resyncInterval).isEqualTo(java.time.Duration.ofSeconds(60));
        assertThat(main.daemon.verifyTimeout).isEqualTo(java.time.Duration.ofSeconds(90));
        org.gpuoperator.node.agent.AgentCommand.commandLine(main)
                .parseArgs(
                        "--driver-ready-timeout",
                        "5m",
                        "--resync-interval",
                        "0",
                        "--verify-timeout",
                        "1m30s");
        assertThat(main.daemon.driverReadyTimeout).isEqualTo(java.time.Duration.ofMinutes(5));
        assertThat(main.daemon.resyncInterval).isZero();
        assertThat(main.daemon.verifyTimeout).isEqualTo(java.time.Duration.ofSeconds(90));
    }

    @Test
    void configureThenCleanupRoundTripsTheBytes() throws Exception {
        Path cfg = host.resolve("etc/docker/daemon.json");
        Files.createDirectories(cfg.getParent());
        String original = "{\n  \"log-driver\": \"journald\"\n}\n";
        Files.writeString(cfg, original);
        String[] common = {
            "--runtime", "docker", "--host-root", host.toString(), "--restart-mode", "none"
        };
        CommandLineRun c = run(concat(new String[] {"configure"}, common));
        assertThat(c.exit()).as(c.err()).isZero();
        assertThat(Files.readString(cfg)).contains("nvidia-container-runtime");
        CommandLineRun cl =
                run(
                        concat(
                                new String[] {
                                    "cleanup", "--validations-dir", host.resolve("v").toString()
                                },
                                common));
        assertThat(cl.exit()).as(cl.err()).isZero();
        assertThat(Files.readString(cfg)).isEqualTo(original);
    }

    @Test
    void helpAndVersion() {
        assertThat(run("--help").out())
                .contains("configure")
                .contains("cleanup")
                .contains("--restart-mode");
        assertThat(run("configure", "--help").out())
                .contains("--dry-run")
                .contains("--set-as-default");
        assertThat(run("--version").exit()).isZero();
        assertThat(run("--version").out()).startsWith("toolkit-agent ");
        assertThat(run("cleanup", "--version").out()).startsWith("toolkit-agent cleanup ");
    }

    static String[] concat(String[] a, String[] b) {
        String[] out = new String[a.length + b.length];
        System.arraycopy(a, 0, out, 0, a.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
