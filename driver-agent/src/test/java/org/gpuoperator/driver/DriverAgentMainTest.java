package org.gpuoperator.driver;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.gpuoperator.driver.host.HostRoot;
import org.gpuoperator.driver.host.NvidiaProcFs;
import org.gpuoperator.driver.testing.FakeNode;
import org.gpuoperator.node.agent.AgentCommand;
import org.gpuoperator.node.agent.ReadinessFiles;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** The command line: subcommands, exit codes, one-line errors. */
class DriverAgentMainTest {

    @TempDir Path tmp;

    record Run(int exit, String out, String err) {}

    static Run run(List<String> args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = DriverAgentMain.commandLine();
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        int exit = cl.execute(args.toArray(String[]::new));
        return new Run(exit, out.toString(), err.toString());
    }

    List<String> sim(String... tail) {
        List<String> args =
                new ArrayList<>(DriverTestAccess.args(tmp, "node-a", "simulated:l4-x2"));
        args.addAll(List.of(tail));
        return args;
    }

    @Test
    void badInputIsOneClearLineAndANonZeroExit() {
        // found while the command runs: exit 1 (AgentCommand.FAILED), as every agent
        Run bogus = run(List.of("--gpu-source", "bogus", "--host-root", tmp.toString(), "detect"));
        assertThat(bogus.exit()).isEqualTo(1);
        assertThat(bogus.err().strip())
                .startsWith("driver-agent: error: invalid GPU source 'bogus'")
                .doesNotContain("\n\tat ");
        assertThat(bogus.err().strip().lines()).hasSize(1);

        Run profile =
                run(
                        List.of(
                                "--gpu-source",
                                "simulated:nope",
                                "--host-root",
                                tmp.toString(),
                                "detect"));
        assertThat(profile.exit()).isEqualTo(1);
        assertThat(profile.err()).contains("unknown simulated GPU profile 'nope'");

        // no version is no start-up error (see anImageWithoutTheWantedVersion...); detect needs
        // none
        Run detectNoVersion =
                run(List.of("--gpu-source", "nvml", "--host-root", tmp.toString(), "detect"));
        assertThat(detectNoVersion.exit()).isEqualTo(1);
        assertThat(detectNoVersion.out())
                .startsWith("no usable host driver: no NVIDIA kernel module loaded");

        // a bad command line: exit 2 (AgentCommand.USAGE)
        Run duration = run(List.of("--check-interval", "soon", "status"));
        assertThat(duration.exit()).isEqualTo(2);
        assertThat(duration.err())
                .startsWith(
                        "driver-agent: error: Invalid value for option '--check-interval': "
                                + "'soon' is not a duration");
    }

    @Test
    void helpAndVersionWork() {
        assertThat(run(List.of("--help")).exit()).isZero();
        assertThat(run(List.of("--help")).out())
                .contains(
                        "--gpu-source",
                        "--host-root",
                        "--driver-version",
                        "detect",
                        "status",
                        "unload");
        assertThat(run(List.of("unload", "--help")).exit()).isZero();
        assertThat(run(List.of("--version")).out()).startsWith("driver-agent ");
        assertThat(run(List.of("status", "--version")).out()).startsWith("driver-agent status ");
    }

    @Test
    void detectReportsAPreInstalledDriverOrWhyNot() throws Exception {
        Run none = run(sim("detect"));
        assertThat(none.exit()).isEqualTo(1);
        assertThat(none.out()).startsWith("no usable host driver: no NVIDIA kernel module loaded");

        Path host = tmp.resolve("host");
        FakeNode.write(
                host.resolve("proc/driver/nvidia/version"),
                "NVRM version: NVIDIA UNIX x86_64 Kernel Module  "
                        + "550.54.15  Tue Mar  5 22:23:56 UTC 2024\n");
        Path smi = host.resolve("usr/bin/nvidia-smi");
        FakeNode.write(smi, "#!/bin/sh\n");
        smi.toFile().setExecutable(true);

        Run found = run(sim("detect"));
        assertThat(found.exit()).isZero();
        assertThat(found.out())
                .startsWith("pre-installed host driver 550.54.15 (/usr/bin/nvidia-smi)");
    }

    @Test
    void statusPrintsTheStatusFileAndExitsByReadiness() throws Exception {
        Run missing = run(sim("status"));
        assertThat(missing.exit()).isEqualTo(1);
        assertThat(missing.out()).contains("STATE=unknown", "is driver-agent running?");

        DriverTestAccess.Wired w = DriverTestAccess.wire(tmp, "node-a", "simulated:l4-x2");
        Files.createDirectories(w.wiring().statusFile().getParent());
        Files.writeString(w.wiring().statusFile(), w.reconcile().render(java.time.Instant.EPOCH));

        Run ready = run(sim("status"));
        assertThat(ready.exit()).isZero();
        assertThat(ready.out()).startsWith("STATE=ready\nMODE=container\n");
    }

    @Test
    void unloadRefusesWhileAProcessHoldsAGpuAndUnloadsOnceItIsGone() throws Exception {
        DriverTestAccess.Wired w = DriverTestAccess.wire(tmp, "node-a", "simulated:l4-x2");
        assertThat(w.reconcile().ready()).isTrue();
        Path host = tmp.resolve("host");
        FakeNode.write(host.resolve("proc/4242/comm"), "python3\n");
        Files.createDirectories(host.resolve("proc/4242/fd"));
        Files.createSymbolicLink(host.resolve("proc/4242/fd/7"), Path.of("/dev/nvidia1"));
        NvidiaProcFs proc = new NvidiaProcFs(new HostRoot(host));

        assertThat(run(sim("unload")).exit()).isEqualTo(1);
        assertThat(w.wiring().readiness().read(ReadinessFiles.DRIVER)).isEmpty();
        assertThat(proc.loadedModules().isLoaded("nvidia")).isTrue();

        FakeNode.deleteTree(host.resolve("proc/4242"));
        assertThat(run(sim("unload")).exit()).isZero();
        assertThat(proc.loadedModules().byName()).isEmpty();
        assertThat(proc.loadedDriverVersion()).isEmpty();
    }

    @Test
    void buildModulesBuildsForANamedKernelAndSaysWhatIsMissing() throws Exception {
        Path headers = tmp.resolve("headers/linux-headers-6.1.0-57-amd64");
        Files.createDirectories(headers);

        Run built =
                run(
                        sim(
                                "build-modules",
                                "--kernel",
                                "6.1.0-57-amd64",
                                "--headers",
                                headers.toString()));
        assertThat(built.exit()).as(built.err()).isZero();
        assertThat(built.out().strip())
                .startsWith("built for kernel 6.1.0-57-amd64 in ")
                .endsWith("/kernel");
        Run again =
                run(
                        sim(
                                "build-modules",
                                "--kernel",
                                "6.1.0-57-amd64",
                                "--headers",
                                headers.toString()));
        assertThat(again.out().strip()).startsWith("already built for kernel 6.1.0-57-amd64 in ");
        // nothing loaded, no driver-ready
        assertThat(tmp.resolve("host/run/nvidia/validations/driver-ready")).doesNotExist();

        Run noHeaders = run(sim("build-modules", "--kernel", "6.2.0-1-amd64"));
        assertThat(noHeaders.exit()).isEqualTo(1);
        assertThat(noHeaders.err().strip().lines()).hasSize(1);
        assertThat(noHeaders.err())
                .startsWith("driver-agent: error: ")
                .contains(
                        "/usr/src/linux-headers-6.2.0-1-amd64",
                        "install linux-headers-6.2.0-1-amd64");

        assertThat(run(sim("build-modules")).exit()).isEqualTo(2);
        assertThat(run(sim("build-modules", "--kernel", "../x")).exit()).isEqualTo(2);
    }

    @Test
    void durationsReadLikeKubernetesOnes() {
        DriverAgentMain main = new DriverAgentMain();
        AgentCommand.commandLine(main)
                .parseArgs("--check-interval", "PT1H", "--max-retry-delay", "300");
        assertThat(main.checkInterval).isEqualTo(Duration.ofHours(1));
        assertThat(main.maxRetryDelay).isEqualTo(Duration.ofMinutes(5));
        AgentCommand.commandLine(main)
                .parseArgs("--check-interval", "250ms", "--max-retry-delay", "1h30m");
        assertThat(main.checkInterval).isEqualTo(Duration.ofMillis(250));
        assertThat(main.maxRetryDelay).isEqualTo(Duration.ofMinutes(90));
        DriverAgentMain defaults = new DriverAgentMain();
        AgentCommand.commandLine(defaults).parseArgs();
        assertThat(defaults.checkInterval).isEqualTo(Duration.ofSeconds(30));
        assertThat(defaults.maxRetryDelay).isEqualTo(Duration.ofMinutes(5));
    }

    @Test
    void anImageWithoutTheWantedVersionStartsAndReportsInsteadOfExiting() throws Exception {
        // a real node's wiring: no version set and no package in the image used to throw at start
        DriverTestAccess.Wired w =
                DriverTestAccess.wire(
                        tmp,
                        "node-a",
                        "nvml",
                        "--driver-install-root",
                        tmp.resolve("image").toString());
        assertThat(w.wiring().config().driverVersion()).isEmpty();
        assertThat(org.gpuoperator.driver.install.DriverPackages.problem(w.wiring().config()))
                .hasValueSatisfying(m -> assertThat(m).startsWith("no driver version"));
    }
}
