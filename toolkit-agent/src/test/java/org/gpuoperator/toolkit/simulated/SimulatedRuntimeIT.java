package org.gpuoperator.toolkit.simulated;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.gpuoperator.node.agent.EventLog;
import org.gpuoperator.node.cdi.CdiSpecGenerator;
import org.gpuoperator.node.cdi.CdiYaml;
import org.gpuoperator.node.cdi.DriverDiscovery;
import org.gpuoperator.node.cdi.DriverFiles;
import org.gpuoperator.node.cdi.HostFs;
import org.gpuoperator.node.inventory.Gpu;
import org.gpuoperator.node.inventory.GpuMetric;
import org.gpuoperator.node.inventory.GpuSample;
import org.gpuoperator.node.inventory.simulated.SimulatedDriverFiles;
import org.gpuoperator.node.inventory.simulated.SimulatedFaults;
import org.gpuoperator.node.inventory.simulated.SimulatedGpuInventory;
import org.gpuoperator.node.inventory.simulated.SimulatedProfiles;
import org.gpuoperator.toolkit.NvidiaRuntimes;
import org.gpuoperator.toolkit.install.RuntimePayload;
import org.gpuoperator.toolkit.install.ToolkitInstaller;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The installed simulated runtime, run as containerd-shim-runc-v2 runs runc, with real runc and
 * busybox containers: {@code create --bundle B id}, {@code start id}, wait for {@code stopped},
 * {@code delete id}. runc keeps its state under a private {@code --root}, so the host's runc state
 * is not touched. Needs root, /usr/sbin/runc, /bin/busybox and the packaged jar (failsafe runs
 * after package).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SimulatedRuntimeIT {

    static final Path RUNC = Path.of("/usr/sbin/runc");
    static final Path BUSYBOX = Path.of("/bin/busybox");
    static final Path JAR = Path.of("target/toolkit-agent.jar");
    static final String NODE = "node-a";
    static final String PROFILE = "h100-80gb-x8";

    Path tmp;
    Path host;
    Path wrapper;
    Path runcRoot;
    final List<String> timings = new ArrayList<>();

    record Result(int exit, String out, String err, long millis) {}

    @BeforeAll
    void installOnASimulatedNode() throws Exception {
        assumeTrue(
                "root".equals(System.getProperty("user.name")),
                "SimulatedRuntimeIT needs root (runc creates namespaces)");
        assumeTrue(Files.isExecutable(RUNC), "SimulatedRuntimeIT needs " + RUNC);
        assumeTrue(
                Files.isExecutable(BUSYBOX),
                "SimulatedRuntimeIT needs " + BUSYBOX + " (busybox-static)");
        assumeTrue(
                Files.isRegularFile(JAR),
                "SimulatedRuntimeIT needs " + JAR + " (run it through failsafe, after package)");
        tmp = Files.createTempDirectory(Path.of("/tmp"), "tka-rt-");
        host = tmp.resolve("host");
        runcRoot = tmp.resolve("runc-root");
        // what driver-agent's simulated mode leaves: the driver root and the loaded module's
        // version file
        Files.createDirectories(host.resolve("run/nvidia/driver"));
        Files.createDirectories(host.resolve("proc/driver/nvidia"));
        Files.writeString(
                host.resolve(DriverState.KERNEL_VERSION_FILE),
                "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.15  Release Build\n");

        NvidiaRuntimes runtimes = new NvidiaRuntimes("/usr/local/nvidia/toolkit", false, false);
        RuntimeConfig config =
                new RuntimeConfig(
                        RuntimeConfig.DEFAULT_DRIVER_ROOT,
                        NODE,
                        "simulated:" + PROFILE,
                        host.toString(),
                        null);
        ByteArrayOutputStream logs = new ByteArrayOutputStream();
        ToolkitInstaller installer =
                new ToolkitInstaller(
                        host,
                        runtimes,
                        true,
                        tmp,
                        tmp.resolve("shim.log").toString(),
                        new ToolkitInstaller.SimulatedRuntime(
                                config,
                                RuntimePayload.ofJar(
                                        Path.of(System.getProperty("java.home")), JAR)),
                        new EventLog("it", new PrintStream(logs)));
        installer.install();
        System.out.println(logs);
        wrapper = host.resolve("usr/local/nvidia/toolkit/nvidia-container-runtime");
    }

    @AfterAll
    void cleanUp() throws Exception {
        timings.forEach(System.out::println);
        if (tmp != null) {
            run(List.of(RUNC.toString(), "--root", runcRoot.toString(), "list"));
            try (Stream<Path> s = Files.walk(tmp)) {
                s.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
    }

    /** A bundle from {@code runc spec}: busybox rootfs, no terminal, the given command and env. */
    Path bundle(String name, List<String> args, List<String> env) throws Exception {
        Path b = tmp.resolve("bundles").resolve(name);
        Path bin = b.resolve("rootfs/bin");
        Files.createDirectories(bin);
        Files.copy(BUSYBOX, bin.resolve("busybox"));
        for (String applet : List.of("sh", "awk", "date", "cat", "printf", "test", "[", "true")) {
            Files.createSymbolicLink(bin.resolve(applet), Path.of("busybox"));
        }
        Result spec = run(List.of(RUNC.toString(), "spec", "--bundle", b.toString()));
        assertThat(spec.exit()).as(spec.err()).isZero();
        ObjectMapper json = new ObjectMapper();
        ObjectNode s = (ObjectNode) json.readTree(b.resolve("config.json").toFile());
        ObjectNode process = (ObjectNode) s.get("process");
        process.put("terminal", false);
        ArrayNode a = process.putArray("args");
        args.forEach(a::add);
        ArrayNode e = process.putArray("env");
        e.add("PATH=/usr/bin:/bin");
        env.forEach(e::add);
        // no network namespace setup needed: keep runc's defaults otherwise
        json.writeValue(b.resolve("config.json").toFile(), s);
        return b;
    }

    Result runtime(String... args) throws Exception {
        List<String> cmd =
                new ArrayList<>(
                        List.of(
                                wrapper.toString(),
                                "--root",
                                runcRoot.toString(),
                                "--log",
                                tmp.resolve("runc-log.json").toString(),
                                "--log-format",
                                "json"));
        cmd.addAll(List.of(args));
        return run(cmd);
    }

    /**
     * Output to files: runc create detaches and the container keeps runc's stdio, so pipes would
     * not close.
     */
    Result run(List<String> cmd) throws Exception {
        Path out = Files.createTempFile(tmp, "out-", ".txt");
        Path err = Files.createTempFile(tmp, "err-", ".txt");
        ProcessBuilder pb =
                new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile());
        pb.environment().put(SimulatedRuntimeMain.NODE_ROOT_ENV, host.toString());
        long t0 = System.nanoTime();
        Process p = pb.start();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).as(String.join(" ", cmd)).isTrue();
        long ms = (System.nanoTime() - t0) / 1_000_000;
        return new Result(p.exitValue(), Files.readString(out), Files.readString(err), ms);
    }

    /**
     * create, start, wait until stopped, delete; returns create's result with the container's
     * stdout.
     */
    Result runContainer(String id, Path bundle) throws Exception {
        Path out = Files.createTempFile(tmp, "ctr-", ".txt");
        Path err = Files.createTempFile(tmp, "ctr-err-", ".txt");
        List<String> cmd =
                new ArrayList<>(
                        List.of(
                                wrapper.toString(),
                                "--root",
                                runcRoot.toString(),
                                "--log",
                                tmp.resolve("runc-log.json").toString(),
                                "--log-format",
                                "json",
                                "create",
                                "--bundle",
                                bundle.toString(),
                                "--pid-file",
                                bundle.resolve("init.pid").toString(),
                                id));
        ProcessBuilder pb =
                new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile());
        pb.environment().put(SimulatedRuntimeMain.NODE_ROOT_ENV, host.toString());
        long t0 = System.nanoTime();
        Process p = pb.start();
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        long createMs = (System.nanoTime() - t0) / 1_000_000;
        timings.add("create " + id + ": " + createMs + " ms (exit " + p.exitValue() + ")");
        if (p.exitValue() != 0) {
            return new Result(
                    p.exitValue(), Files.readString(out), Files.readString(err), createMs);
        }
        Result start = runtime("start", id);
        assertThat(start.exit()).as(start.err()).isZero();
        long deadline = System.currentTimeMillis() + 30_000;
        while (!runtime("state", id).out().contains("\"status\": \"stopped\"")) {
            assertThat(System.currentTimeMillis())
                    .as("container " + id + " did not stop")
                    .isLessThan(deadline);
            Thread.sleep(50);
        }
        Result delete = runtime("delete", id);
        assertThat(delete.exit()).as(delete.err()).isZero();
        return new Result(0, Files.readString(out), Files.readString(err), createMs);
    }

    Path description(String id) {
        return host.resolve(SimulatedRuntimeMain.CONTAINERS_DIR).resolve(id);
    }

    @Test
    @Order(1)
    void nvidiaSmiListsExactlyTheTwoAllocatedGpusRenumbered() throws Exception {
        String u1 = SimulatedGpuInventory.gpuUuid(NODE, 1);
        String u3 = SimulatedGpuInventory.gpuUuid(NODE, 3);
        Path b =
                bundle(
                        "list",
                        List.of("sh", "-c", "nvidia-smi -L; echo \"env=$NVIDIA_VISIBLE_DEVICES\""),
                        List.of("NVIDIA_VISIBLE_DEVICES=" + u1 + "," + u3));
        Result r = runContainer("gpu-list", b);
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out())
                .isEqualTo(
                        "GPU 0: NVIDIA H100 80GB HBM3 (UUID: "
                                + u1
                                + ")\n"
                                + "GPU 1: NVIDIA H100 80GB HBM3 (UUID: "
                                + u3
                                + ")\n"
                                + "env="
                                + u1
                                + ","
                                + u3
                                + "\n");
        assertThat(description("gpu-list")).as("removed on delete").doesNotExist();
        assertThat(wrapper.resolveSibling(ToolkitInstaller.CDS_ARCHIVE))
                .as("class data archive from the first create")
                .exists();
        assertThat(Files.readString(tmp.resolve("shim.log")))
                .contains("nvidia-container-runtime --root")
                .contains(" create --bundle ")
                .contains(" start gpu-list")
                .contains(" delete gpu-list");
    }

    @Test
    @Order(2)
    void plainNvidiaSmiShowsTheTableWithTheInventorysLiveNumbers() throws Exception {
        long now = 1_796_120_281_000L;
        Path b =
                bundle(
                        "table",
                        List.of("nvidia-smi"),
                        List.of("NVIDIA_VISIBLE_DEVICES=2", "NVIDIA_SMI_SIM_TIME_MS=" + now));
        Result r = runContainer("gpu-table", b);
        assertThat(r.exit()).as(r.err()).isZero();
        var profile = SimulatedProfiles.builtIn().get(PROFILE);
        SimulatedGpuInventory inv =
                new SimulatedGpuInventory(
                        profile,
                        NODE,
                        tmp.resolve("no-faults"),
                        Clock.fixed(Instant.ofEpochMilli(now), ZoneOffset.UTC));
        GpuSample s = inv.sample(2);
        assertThat(r.out())
                .contains(
                        "| NVIDIA-SMI 550.54.15              Driver Version: 550.54.15      CUDA Version: 12.4     |")
                .contains(
                        "|   0  NVIDIA H100 80GB HBM3          On  |   "
                                + inv.gpus().get(2).pciBusId()
                                + " Off |");
        Matcher m =
                Pattern.compile(
                                "\\| N/A\\s+(\\d+)C\\s+P0\\s+(\\d+)W /\\s+700W \\|\\s+(\\d+)MiB /\\s+81559MiB \\|\\s+(\\d+)%")
                        .matcher(r.out());
        assertThat(m.find()).as(r.out()).isTrue();
        assertThat(Integer.parseInt(m.group(1)))
                .isEqualTo(s.values().get(GpuMetric.GPU_TEMP_C).intValue());
        assertThat(Long.parseLong(m.group(2)))
                .isEqualTo(Math.round(s.values().get(GpuMetric.POWER_USAGE_W)));
        assertThat(Long.parseLong(m.group(3)))
                .isEqualTo(s.values().get(GpuMetric.FB_USED_MIB).longValue());
        assertThat(Integer.parseInt(m.group(4)))
                .isEqualTo(s.values().get(GpuMetric.GPU_UTIL).intValue());
        assertThat(m.find()).as("exactly one GPU").isFalse();
    }

    /**
     * What the toolkit agent leaves with CDI on: specs generated from this node's GPUs and the
     * simulated driver's files (stand-in libraries under the driver root, device files); the driver
     * root at its real path, as runc binds mount sources as they are.
     */
    void cdiSpecs() throws Exception {
        // its own dir: a later test removes run/nvidia/driver, which must be empty then
        Path driverRoot = host.resolve("var/lib/cdi-driver-image");
        SimulatedDriverFiles.layDown(driverRoot, "550.54.15");
        Files.createDirectories(host.resolve("dev"));
        Files.writeString(host.resolve("dev/nvidiactl"), "c 195:255\n");
        List<Gpu> gpus =
                new SimulatedGpuInventory(
                                SimulatedProfiles.builtIn().get(PROFILE),
                                NODE,
                                host,
                                Clock.systemUTC())
                        .gpus();
        for (Gpu g : gpus) {
            Files.writeString(
                    host.resolve(g.devicePath().substring(1)), "c 195:" + g.minorNumber() + "\n");
        }
        DriverFiles found =
                new DriverDiscovery(new HostFs(host))
                        .discover("/var/lib/cdi-driver-image", "550.54.15");
        DriverFiles driver =
                new DriverFiles(
                        driverRoot.toString(),
                        found.version(),
                        found.libraries(),
                        found.binaries(),
                        found.deviceNodes(),
                        found.migCapMinors());
        Path dir = host.resolve("var/run/cdi");
        Files.createDirectories(dir);
        CdiSpecGenerator.specFiles(gpus, driver, "/usr/local/nvidia/toolkit/nvidia-cdi-hook")
                .forEach(
                        (name, spec) -> {
                            try {
                                Files.writeString(dir.resolve(name), CdiYaml.render(spec));
                            } catch (java.io.IOException e) {
                                throw new java.io.UncheckedIOException(e);
                            }
                        });
    }

    Path withAnnotation(Path bundle, String key, String value) throws Exception {
        ObjectMapper json = new ObjectMapper();
        ObjectNode s = (ObjectNode) json.readTree(bundle.resolve("config.json").toFile());
        s.putObject("annotations").put(key, value);
        json.writeValue(bundle.resolve("config.json").toFile(), s);
        return bundle;
    }

    @Test
    @Order(3)
    void cdiAnnotationsGiveTheSpecsDeviceNodesLibrariesAndExactlyTheirGpus() throws Exception {
        cdiSpecs();
        String u1 = SimulatedGpuInventory.gpuUuid(NODE, 1);
        String u3 = SimulatedGpuInventory.gpuUuid(NODE, 3);
        Path b =
                withAnnotation(
                        bundle(
                                "cdi",
                                List.of(
                                        "sh",
                                        "-c",
                                        "test -c /dev/nvidia3 && echo dev3; test -c /dev/nvidiactl"
                                                + " && echo ctl; test -e /dev/nvidia0 || echo"
                                                + " no-dev0; test -f"
                                                + " /usr/lib/x86_64-linux-gnu/libcuda.so.550.54.15"
                                                + " && echo lib; nvidia-smi -L; echo"
                                                + " \"env=$NVIDIA_VISIBLE_DEVICES\""),
                                List.of()),
                        "cdi.k8s.io/nvidia-device-plugin_a",
                        "nvidia.com/gpu=3,nvidia.com/gpu=" + u1);
        Result r = runContainer("gpu-cdi", b);
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out())
                .isEqualTo(
                        "dev3\nctl\nno-dev0\nlib\n"
                                + "GPU 0: NVIDIA H100 80GB HBM3 (UUID: "
                                + u1
                                + ")\n"
                                + "GPU 1: NVIDIA H100 80GB HBM3 (UUID: "
                                + u3
                                + ")\n"
                                + "env=void\n");

        Path bad =
                withAnnotation(
                        bundle("cdi-bad", List.of("true"), List.of()),
                        "cdi.k8s.io/nvidia-device-plugin_b",
                        "nvidia.com/gpu=9");
        Result refused = runContainer("gpu-cdi-bad", bad);
        assertThat(refused.exit()).isNotZero();
        assertThat(refused.err())
                .isEqualTo(
                        "error modifying OCI spec: failed to inject CDI devices: unresolvable CDI"
                                + " devices nvidia.com/gpu=9\n");
        assertThat(runtime("state", "gpu-cdi-bad").exit()).as("runc never created it").isNotZero();
    }

    @Test
    @Order(3)
    void theCdiHandlerResolvesVisibleDevicesThroughTheSpecs() throws Exception {
        cdiSpecs();
        // nvidia-container-runtime.cdi is the same wrapper under the name the installer gives it
        // with CDI on; the name selects cdi mode
        Path cdiWrapper = wrapper.resolveSibling("nvidia-container-runtime.cdi");
        Files.copy(wrapper, cdiWrapper, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        Path saved = wrapper;
        wrapper = cdiWrapper;
        try {
            Path b =
                    bundle(
                            "cdi-mode",
                            List.of("sh", "-c", "test -c /dev/nvidia2 && echo dev2; nvidia-smi -L"),
                            List.of("NVIDIA_VISIBLE_DEVICES=2"));
            Result r = runContainer("gpu-cdi-mode", b);
            assertThat(r.exit()).as(r.err()).isZero();
            assertThat(r.out())
                    .isEqualTo(
                            "dev2\nGPU 0: NVIDIA H100 80GB HBM3 (UUID: "
                                    + SimulatedGpuInventory.gpuUuid(NODE, 2)
                                    + ")\n");
            Result refused =
                    runContainer(
                            "gpu-cdi-mode-bad",
                            bundle(
                                    "cdi-mode-bad",
                                    List.of("true"),
                                    List.of("NVIDIA_VISIBLE_DEVICES=9")));
            assertThat(refused.err()).endsWith("unresolvable CDI devices nvidia.com/gpu=9\n");
        } finally {
            wrapper = saved;
        }
    }

    @Test
    @Order(3)
    void anUnknownUuidFailsCreateWithTheRealErrorAndNoContainer() throws Exception {
        Path b =
                bundle(
                        "unknown",
                        List.of("true"),
                        List.of("NVIDIA_VISIBLE_DEVICES=GPU-00000000-0000-0000-0000-000000000000"));
        Result r = runContainer("gpu-unknown", b);
        String text =
                "nvidia-container-cli: device error: GPU-00000000-0000-0000-0000-000000000000: unknown device";
        assertThat(r.exit()).isNotZero();
        assertThat(r.err()).isEqualTo(text + "\n");
        assertThat(Files.readString(tmp.resolve("runc-log.json")))
                .contains("{\"level\":\"error\",\"msg\":\"" + text + "\"");
        assertThat(runtime("state", "gpu-unknown").exit()).as("runc never created it").isNotZero();
        assertThat(description("gpu-unknown")).doesNotExist();
    }

    @Test
    @Order(4)
    void aContainerWithoutAGpuRequestSeesNoNvidiaSmi() throws Exception {
        Path b =
                bundle(
                        "plain",
                        List.of(
                                "sh",
                                "-c",
                                "if [ -e /usr/bin/nvidia-smi ]; then echo present; else echo absent; fi; [ -e /run/nvidia-simulated-gpus ] || echo no-gpus"),
                        List.of());
        byte[] spec = Files.readAllBytes(b.resolve("config.json"));
        Result r = runContainer("no-gpu", b);
        assertThat(r.exit()).as(r.err()).isZero();
        assertThat(r.out()).isEqualTo("absent\nno-gpus\n");
        assertThat(Files.readAllBytes(b.resolve("config.json")))
                .as("bundle untouched")
                .isEqualTo(spec);
    }

    @Test
    @Order(5)
    void noDriverOnTheNodeFailsLikeTheRealRuntime() throws Exception {
        Path b = bundle("nodriver", List.of("true"), List.of("NVIDIA_VISIBLE_DEVICES=all"));
        Files.delete(host.resolve("run/nvidia/driver"));
        Result noRoot = runContainer("no-driver", b);
        assertThat(noRoot.exit()).isNotZero();
        assertThat(noRoot.err())
                .isEqualTo(
                        "nvidia-container-cli: initialization error: load library failed: "
                                + "libnvidia-ml.so.1: cannot open shared object file: no such file or directory\n");

        Files.createDirectories(host.resolve("run/nvidia/driver"));
        Path version = host.resolve(DriverState.KERNEL_VERSION_FILE);
        String v = Files.readString(version);
        Files.delete(version);
        Result unloaded = runContainer("no-module", b);
        assertThat(unloaded.err())
                .isEqualTo(
                        "nvidia-container-cli: initialization error: nvml error: driver not loaded\n");
        Files.writeString(version, v);

        new SimulatedFaults(host).loseGpu(6);
        Result lost = runContainer("lost", b);
        assertThat(lost.err())
                .isEqualTo("nvidia-container-cli: detection error: nvml error: gpu is lost\n");
        new SimulatedFaults(host).recover(6);
        assertThat(runContainer("recovered", b).exit()).isZero();
    }

    @Test
    @Order(6)
    void createLatency() throws Exception {
        Path plain = bundle("lat-plain", List.of("true"), List.of());
        Path gpu = bundle("lat-gpu", List.of("true"), List.of("NVIDIA_VISIBLE_DEVICES=0"));
        for (int i = 0; i < 3; i++) {
            Result direct =
                    run(
                            List.of(
                                    RUNC.toString(),
                                    "--root",
                                    runcRoot.toString(),
                                    "create",
                                    "--bundle",
                                    plain.toString(),
                                    "direct-" + i));
            assertThat(direct.exit()).as(direct.err()).isZero();
            timings.add("runc create directly (no GPU): " + direct.millis() + " ms");
            run(
                    List.of(
                            RUNC.toString(),
                            "--root",
                            runcRoot.toString(),
                            "delete",
                            "--force",
                            "direct-" + i));
            runContainer("lat-plain-" + i, plain);
            runContainer("lat-gpu-" + i, gpu);
        }
    }

    /**
     * As in the image: the node has no Java, so the installer copies the agent's (small) runtime
     * and jars.
     */
    @Test
    @Order(7)
    void aSmallJavaRuntimeIsCopiedAndRunsFromTheInstallDir() throws Exception {
        Path jlink = Path.of(System.getProperty("java.home"), "bin/jlink");
        assumeTrue(
                Files.isExecutable(jlink),
                "no jlink in " + System.getProperty("java.home") + ": copy mode not run");
        Path small = tmp.resolve("small-jre");
        // with the JDK's default class data archive, as Temurin's JRE ships it: the dynamic archive
        // builds on it
        Result made =
                run(
                        List.of(
                                jlink.toString(),
                                "--add-modules",
                                "java.base",
                                "--strip-debug",
                                "--no-header-files",
                                "--no-man-pages",
                                "--generate-cds-archive",
                                "--output",
                                small.toString()));
        assertThat(made.exit()).as(made.err()).isZero();
        Path node2 = tmp.resolve("host2");
        Files.createDirectories(node2.resolve("run/nvidia/driver"));
        Files.createDirectories(node2.resolve("proc/driver/nvidia"));
        Files.writeString(
                node2.resolve(DriverState.KERNEL_VERSION_FILE),
                "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.15\n");
        ToolkitInstaller installer =
                new ToolkitInstaller(
                        node2,
                        new NvidiaRuntimes("/usr/local/nvidia/toolkit", false, false),
                        true,
                        tmp,
                        tmp.resolve("shim.log").toString(),
                        new ToolkitInstaller.SimulatedRuntime(
                                new RuntimeConfig(
                                        RuntimeConfig.DEFAULT_DRIVER_ROOT,
                                        NODE,
                                        "simulated:" + PROFILE,
                                        node2.toString(),
                                        null),
                                RuntimePayload.ofJar(small, JAR)),
                        null);
        long t0 = System.nanoTime();
        int first = installer.install().size();
        long firstMs = (System.nanoTime() - t0) / 1_000_000;
        t0 = System.nanoTime();
        assertThat(installer.install()).as("second install").isEmpty();
        timings.add(
                "install with copy: "
                        + first
                        + " files in "
                        + firstMs
                        + " ms; second install: "
                        + (System.nanoTime() - t0) / 1_000_000
                        + " ms, nothing written");
        Path dir = node2.resolve("usr/local/nvidia/toolkit");
        assertThat(dir.resolve("jre/bin/java")).isExecutable();
        assertThat(dir.resolve("lib/toolkit-agent.jar")).exists();
        assertThat(Files.readString(dir.resolve("nvidia-container-runtime")))
                .contains("\"$dir/jre/bin/java\"")
                .doesNotContain(small.toString());

        Path savedHost = host;
        Path savedWrapper = wrapper;
        host = node2;
        wrapper = dir.resolve("nvidia-container-runtime");
        try {
            String u5 = SimulatedGpuInventory.gpuUuid(NODE, 5);
            Path b =
                    bundle(
                            "copied",
                            List.of("nvidia-smi", "-L"),
                            List.of("NVIDIA_VISIBLE_DEVICES=5"));
            // the source runtime is gone: the node runs only what was copied
            try (Stream<Path> w = Files.walk(small)) {
                w.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
            Result r = runContainer("copied-jre", b);
            assertThat(r.exit()).as(r.err()).isZero();
            assertThat(r.out()).isEqualTo("GPU 0: NVIDIA H100 80GB HBM3 (UUID: " + u5 + ")\n");
            assertThat(dir.resolve(ToolkitInstaller.CDS_ARCHIVE)).exists();
        } finally {
            host = savedHost;
            wrapper = savedWrapper;
        }
    }
}
