package org.gpuoperator.toolkit.cdi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.gpuoperator.node.cdi.CdiFixtures;
import org.gpuoperator.node.cdi.CdiSpec;
import org.gpuoperator.node.cdi.CdiSpecGenerator;
import org.gpuoperator.node.cdi.CdiYaml;
import org.gpuoperator.node.cdi.DriverDiscovery;
import org.gpuoperator.node.cdi.HostFs;
import org.gpuoperator.toolkit.CommandLineRun;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code toolkit-agent cdi generate} and {@code cdi list}, through the real command line. */
class CdiCommandTest {

    static final String VERSION = CdiFixtures.VERSION;
    static final String LIB = CdiFixtures.LIB;
    static final String HOOK = "/usr/local/nvidia/toolkit/nvidia-cdi-hook";

    @TempDir Path host;

    static CommandLineRun run(String... args) {
        return CommandLineRun.of(args);
    }

    /** {@code cdi generate} for simulated GPUs of {@code profile} on node-a of the host root. */
    CommandLineRun generate(String profile, String... more) {
        List<String> args =
                new java.util.ArrayList<>(
                        List.of(
                                "cdi",
                                "generate",
                                "--gpu-source",
                                "simulated:" + profile,
                                "--host-root",
                                host.toString(),
                                "--node-name",
                                "node-a"));
        args.addAll(List.of(more));
        return run(args.toArray(String[]::new));
    }

    List<Path> allFiles() throws Exception {
        try (var s = Files.walk(host)) {
            return s.sorted().toList();
        }
    }

    /** A host-installed driver: its libraries and nvidia-smi under / of the host root. */
    void hostDriver() throws Exception {
        for (String f :
                List.of(
                        LIB + "/libcuda.so." + VERSION,
                        LIB + "/libnvidia-ml.so." + VERSION,
                        "/usr/bin/nvidia-smi")) {
            Path p = host.resolve(f.substring(1));
            Files.createDirectories(p.getParent());
            Files.writeString(p, "");
        }
    }

    /** What the daemon's generator makes for the same GPUs and driver files. */
    CdiSpec expected(String profile, boolean management) throws Exception {
        var driver = new DriverDiscovery(new HostFs(host)).discover("/", VERSION);
        var gpus = CdiFixtures.gpus(profile, host);
        return management
                ? CdiSpecGenerator.managementSpec(gpus, driver, HOOK)
                : CdiSpecGenerator.gpuSpec(gpus, driver, HOOK);
    }

    @Test
    void generatePrintsTheDaemonsSpecAndWritesNothing() throws Exception {
        hostDriver();
        List<Path> before = allFiles();

        CommandLineRun r = generate("a100-40gb-x8-mig-mixed");

        assertThat(r.exit()).as(r.err()).isZero();
        CdiSpec printed = CdiYaml.parse(r.out(), "stdout");
        assertThat(printed).isEqualTo(expected("a100-40gb-x8-mig-mixed", false));
        assertThat(printed.kind()).isEqualTo("nvidia.com/gpu");
        assertThat(printed.containerEdits().mounts())
                .extracting(CdiSpec.Mount::hostPath)
                .contains(LIB + "/libcuda.so." + VERSION, "/usr/bin/nvidia-smi");
        assertThat(allFiles()).isEqualTo(before);
    }

    @Test
    void generateWritesJsonToTheOutputFileByItsExtensionAndTheManagementSpecOnAsk()
            throws Exception {
        hostDriver();
        Path out = host.resolve("out/nvidia.json");
        Files.createDirectories(out.getParent());

        CommandLineRun r =
                generate(
                        "t4-x1",
                        // the T4 profile's driver is 535: name the host driver's version
                        "--driver-version",
                        VERSION,
                        "--output",
                        out.toString());

        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).isEmpty();
        String json = Files.readString(out);
        assertThat(json).startsWith("{");
        assertThat(CdiYaml.parse(json, out.toString())).isEqualTo(expected("t4-x1", false));

        CommandLineRun m =
                generate(
                        "t4-x1",
                        "--driver-version",
                        VERSION,
                        "--mode",
                        "management",
                        "--format",
                        "json");
        assertThat(m.exit()).as(m.err()).isZero();
        assertThat(CdiYaml.parse(m.out(), "stdout")).isEqualTo(expected("t4-x1", true));
    }

    @Test
    void disableHooksLeavesThoseHooksOutAsNvidiaCtkDoes() throws Exception {
        hostDriver();

        CommandLineRun some =
                generate(
                        "t4-x1",
                        "--driver-version",
                        VERSION,
                        "--disable-hooks",
                        "disable-device-node-modification,enable-cuda-compat");
        CommandLineRun none =
                generate("t4-x1", "--driver-version", VERSION, "--disable-hooks", "all");
        CommandLineRun every = generate("t4-x1", "--driver-version", VERSION);

        assertThat(some.exit()).as(some.err()).isZero();
        assertThat(hookNames(some.out())).containsExactly("create-symlinks", "update-ldcache");
        assertThat(none.exit()).as(none.err()).isZero();
        assertThat(hookNames(none.out())).isEmpty();
        assertThat(hookNames(every.out()))
                .containsExactly(
                        "create-symlinks",
                        "enable-cuda-compat",
                        "update-ldcache",
                        "disable-device-node-modification");

        CommandLineRun bad = generate("t4-x1", "--disable-hooks", "chmod");
        assertThat(bad.exit()).isEqualTo(2);
        assertThat(bad.err())
                .contains("--disable-hooks: unknown hook 'chmod' (known: all, create-symlinks,");
    }

    /** The nvidia-cdi-hook subcommands of a printed spec's common hooks, in order. */
    static List<String> hookNames(String yaml) throws Exception {
        return CdiYaml.parse(yaml, "stdout").containerEdits().hooks().stream()
                .map(h -> h.args().get(1))
                .toList();
    }

    @Test
    void listNamesEveryDeviceOfTheNodesSpecs() throws Exception {
        hostDriver();
        Path dir = host.resolve("var/run/cdi");
        Files.createDirectories(dir);
        for (String mode : List.of("gpu", "management")) {
            CommandLineRun g =
                    generate(
                            "t4-x1",
                            "--mode",
                            mode,
                            "--output",
                            dir.resolve(mode + ".yaml").toString());
            assertThat(g.exit()).as(g.err()).isZero();
        }
        String uuid = CdiFixtures.gpus("t4-x1", host).getFirst().uuid();

        CommandLineRun r = run("cdi", "list", "--host-root", host.toString());

        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out().lines())
                .containsExactly(
                        "management.nvidia.com/gpu=all",
                        "nvidia.com/gpu=0",
                        "nvidia.com/gpu=" + uuid,
                        "nvidia.com/gpu=all");
        assertThat(r.err())
                .contains(
                        "found 4 CDI devices in /var/run/cdi/gpu.yaml,"
                                + " /var/run/cdi/management.yaml");
    }

    @Test
    void badInputIsOneErrorLineNamingTheFileOrFlag() throws Exception {
        Path etc = host.resolve("etc/cdi");
        Files.createDirectories(etc);
        Files.writeString(etc.resolve("x.yaml"), "cdiVersion: 0.3.0\nkind: nokind\ndevices: []\n");

        CommandLineRun list = run("cdi", "list", "--host-root", host.toString());
        assertThat(list.exit()).isEqualTo(1);
        assertThat(list.err())
                .isEqualTo(
                        "toolkit-agent: error: /etc/cdi/x.yaml: kind: 'nokind' is not"
                                + " vendor/class\n");

        CommandLineRun format = generate("t4-x1", "--format", "xml");
        assertThat(format.exit()).isEqualTo(2);
        assertThat(format.err()).contains("--format").contains("xml");
    }

    @Test
    void generateOnThisMachinesRealDebianDriverFilesNamesTheirLibraries() throws Exception {
        Path soname = Path.of("/usr/lib/x86_64-linux-gnu/nvidia/current/libnvidia-ml.so.1");
        assumeTrue(Files.exists(soname), "Debian's libnvidia-ml1 is not installed");
        String real = soname.toRealPath().toString();
        String version = real.substring(real.indexOf(".so.") + 4);

        CommandLineRun r =
                run(
                        "cdi",
                        "generate",
                        "--gpu-source",
                        "simulated:t4-x1",
                        "--host-root",
                        "/",
                        "--node-name",
                        "node-a",
                        "--driver-version",
                        version);

        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(CdiYaml.parse(r.out(), "stdout").containerEdits().mounts())
                .extracting(CdiSpec.Mount::hostPath)
                .contains(real);
    }
}
