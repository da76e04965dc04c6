package org.gpuoperator.toolkit.containerd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.gpuoperator.kubelet.cri.CriClient;
import org.gpuoperator.kubelet.cri.v1.LinuxPodSandboxConfig;
import org.gpuoperator.kubelet.cri.v1.LinuxSandboxSecurityContext;
import org.gpuoperator.kubelet.cri.v1.NamespaceMode;
import org.gpuoperator.kubelet.cri.v1.NamespaceOption;
import org.gpuoperator.kubelet.cri.v1.PodSandboxConfig;
import org.gpuoperator.kubelet.cri.v1.PodSandboxMetadata;
import org.gpuoperator.kubelet.cri.v1.RemovePodSandboxRequest;
import org.gpuoperator.kubelet.cri.v1.RunPodSandboxRequest;
import org.gpuoperator.kubelet.cri.v1.StatusResponse;
import org.gpuoperator.kubelet.cri.v1.StopPodSandboxRequest;
import org.gpuoperator.node.agent.EventLog;
import org.gpuoperator.toolkit.ConfigException;
import org.gpuoperator.toolkit.NvidiaRuntimes;
import org.gpuoperator.toolkit.apply.ConfigApplier;
import org.gpuoperator.toolkit.cri.CriRuntimeConfig;
import org.gpuoperator.toolkit.install.ToolkitInstaller;
import org.gpuoperator.toolkit.reload.SignalReload;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The whole path against a REAL containerd (Debian's 1.6.20 here): our applier rewrites a config, a
 * private containerd loads it, CRI reports the nvidia handler with our BinaryName, a pod sandbox
 * with handler nvidia runs through our shim, cleanup gives back the original bytes. One daemon per
 * class, always stopped.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RealContainerdTest {

    static final String IMAGE = "docker.io/library/toolkit-agent-sandbox:1";

    Path dir;
    Path config;
    Path dropIn;
    String original;
    NvidiaRuntimes runtimes;
    ContainerdCli cli;
    ConfigApplier applier;
    ContainerdConfigurer configurer;
    PrivateContainerd containerd;
    final ByteArrayOutputStream logs = new ByteArrayOutputStream();

    @BeforeAll
    void setUp() throws Exception {
        assumeTrue(
                ContainerdBinary.available() && ContainerdBinary.ctrAvailable(),
                ContainerdBinary.SKIP_MESSAGE);
        assumeTrue(
                "root".equals(System.getProperty("user.name")),
                "a private containerd needs root: test skipped, not passed");
        // short path: unix socket paths are limited to 107 bytes
        dir = Files.createTempDirectory(Path.of("/tmp"), "tka-");
        containerd = new PrivateContainerd(dir);
        config = dir.resolve("config.toml");
        dropIn = dir.resolve("conf.d/99-nvidia.toml");
        original = containerd.baseConfig(IMAGE);
        Files.writeString(config, original);
        runtimes = new NvidiaRuntimes(dir.resolve("toolkit").toString(), false, false);
        cli = new ContainerdCli(Path.of("/"), "containerd");
        applier =
                new ConfigApplier(
                        Path.of("/"),
                        dir.resolve("state"),
                        new EventLog("test", new PrintStream(logs)));
        configurer =
                new ContainerdConfigurer(
                        config.toString(),
                        dropIn.toString(),
                        runtimes,
                        cli.version(),
                        cli.dump(config.toString()),
                        ContainerdConfigurer.DropIn.AUTO);
        // the simulated runtime: the pause sandbox asks for no GPU, so its create passes through
        // the Java part untouched
        new ToolkitInstaller(
                        Path.of("/"),
                        runtimes,
                        true,
                        dir,
                        dir.resolve("shim.log").toString(),
                        new ToolkitInstaller.SimulatedRuntime(
                                new org.gpuoperator.toolkit.simulated.RuntimeConfig(
                                        "/run/nvidia/driver", "n1", "simulated:t4-x1", "/", null),
                                org.gpuoperator.toolkit.install.RuntimePayload.ofThisProcess()),
                        null)
                .install();
    }

    @AfterAll
    void tearDown() throws Exception {
        if (containerd != null) {
            containerd.close();
        }
        if (dir != null) {
            ContainerdBinary.run(List.of("rm", "-rf", dir.toString()));
            // runc keeps CRI state outside containerd's state dir; remove its directory only if
            // nothing else uses it
            try {
                Files.deleteIfExists(Path.of("/run/containerd/runc/k8s.io"));
            } catch (java.nio.file.DirectoryNotEmptyException inUse) {
                // another containerd's containers live there
            }
        }
    }

    @Test
    @Order(1)
    void versionIsReadFromTheBinaryAnd1xGetsTheDropInWithTheWholeCriTable() {
        assertThat(cli.version()).isPresent();
        assertThat(cli.version().get().major()).isEqualTo(1);
        assertThat(configurer.useDropIn(2, List.of())).isTrue();
        assertThat(configurer.wholeCriTable(2)).isTrue();
        assertThat(configurer.useDropIn(2, List.of("/etc/containerd/other/*.toml")))
                .as("1.x: our copy of the CRI table would replace an imported one")
                .isFalse();
        assertThat(configurer.useDropIn(1, List.of())).as("v1 has no imports").isFalse();
    }

    @Test
    @Order(2)
    void configureValidatesWithContainerdWritesOnceAndASecondRunWritesNothing() throws Exception {
        ConfigApplier.Outcome first = applier.configure(configurer, cli);
        assertThat(first.written()).containsExactly(config.toString(), dropIn.toString());
        assertThat(Files.readString(config))
                .as("the main file only gains the import")
                .isEqualTo(
                        original.replaceFirst(
                                "(state = .*\n)",
                                "$1imports = [\"" + dir.resolve("conf.d") + "/*.toml\"]\n"));
        assertThat(applier.configure(configurer, cli).changed()).isFalse();
        // containerd 1.6 replaces the main file's CRI table with the drop-in's: the effective
        // config still has the main file's sandbox image and runc, and our runtimes
        ContainerdBinary.Run dump = ContainerdBinary.dump(config);
        assertThat(dump.exit()).as(dump.err()).isZero();
        org.tomlj.TomlParseResult d = org.tomlj.Toml.parse(dump.out());
        List<String> cri = List.of("plugins", "io.containerd.grpc.v1.cri");
        List<String> rts =
                List.of("plugins", "io.containerd.grpc.v1.cri", "containerd", "runtimes");
        assertThat(d.getString(ContainerdConfig.append(cri, "sandbox_image"))).isEqualTo(IMAGE);
        for (String rt : List.of("runc", "nvidia", "nvidia-cdi", "nvidia-legacy")) {
            assertThat(d.getTable(ContainerdConfig.append(rts, rt))).as(rt).isNotNull();
        }
    }

    @Test
    @Order(3)
    void containerdLoadsCriOkAndReportsTheNvidiaHandlerOverGrpc() throws Exception {
        containerd.start(config);
        assertThat(containerd.criPluginStatus()).as(containerd.log()).isEqualTo("ok");
        try (CriClient cri = new CriClient(containerd.socket())) {
            StatusResponse status = cri.status();
            CriRuntimeConfig.Handler nvidia =
                    CriRuntimeConfig.handler(status, "nvidia").orElseThrow();
            assertThat(nvidia.binaryName()).contains(runtimes.binary());
            assertThat(nvidia.runtimeType()).isEqualTo("io.containerd.runc.v2");
            assertThat(CriRuntimeConfig.handler(status, "runc")).isPresent();
            assertThat(CriRuntimeConfig.defaultRuntimeName(status)).isEqualTo("runc");
        }
    }

    @Test
    @Order(4)
    void aPodSandboxWithHandlerNvidiaRunsThroughOurShim() throws Exception {
        assumeTrue(
                OciArchive.available(),
                "busybox-static is not installed: no local sandbox image; test skipped, not passed");
        Path archive = OciArchive.build(dir.resolve("image"), IMAGE);
        ContainerdBinary.Run imported =
                containerd.ctr("-n", "k8s.io", "images", "import", archive.toString());
        assertThat(imported.exit()).as(imported.err()).isZero();

        try (CriClient cri = new CriClient(containerd.socket())) {
            String id =
                    cri.stub()
                            .runPodSandbox(
                                    RunPodSandboxRequest.newBuilder()
                                            .setRuntimeHandler("nvidia")
                                            .setConfig(
                                                    PodSandboxConfig.newBuilder()
                                                            .setMetadata(
                                                                    PodSandboxMetadata.newBuilder()
                                                                            .setName("gpu-pod")
                                                                            .setUid("uid-1")
                                                                            .setNamespace(
                                                                                    "default"))
                                                            .setLinux(
                                                                    LinuxPodSandboxConfig
                                                                            .newBuilder()
                                                                            .setSecurityContext(
                                                                                    LinuxSandboxSecurityContext
                                                                                            .newBuilder()
                                                                                            .setNamespaceOptions(
                                                                                                    NamespaceOption
                                                                                                            .newBuilder()
                                                                                                            .setNetwork(
                                                                                                                    NamespaceMode
                                                                                                                            .NODE)))))
                                            .build())
                            .getPodSandboxId();
            assertThat(id).isNotBlank();
            cri.stub()
                    .stopPodSandbox(StopPodSandboxRequest.newBuilder().setPodSandboxId(id).build());
            cri.stub()
                    .removePodSandbox(
                            RemovePodSandboxRequest.newBuilder().setPodSandboxId(id).build());
        }
        String shimLog = Files.readString(dir.resolve("shim.log"));
        assertThat(shimLog)
                .contains("nvidia-container-runtime")
                .contains(" create ")
                .contains("start");
    }

    /**
     * containerd-shim-runc-v2 runs the simulated runtime as runc and reports its refusal: the
     * message it wrote to runc's --log file is what containerd (and so kubelet's event) shows.
     */
    @Test
    @Order(5)
    void containerdReportsTheSimulatedRuntimesRefusalWithTheRealText() throws Exception {
        assumeTrue(
                OciArchive.available(),
                "busybox-static is not installed: no local image; test skipped, not passed");
        Path node = dir.resolve("node");
        Files.createDirectories(node.resolve("run/nvidia/driver"));
        Files.createDirectories(node.resolve("proc/driver/nvidia"));
        Files.writeString(
                node.resolve("proc/driver/nvidia/version"),
                "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.15\n");
        // containerd runs with NVIDIA_SIMULATED_NODE_ROOT=<dir>/node: the runtime reads and writes
        // nothing of this host's /run
        new ToolkitInstaller(
                        Path.of("/"),
                        runtimes,
                        true,
                        dir,
                        dir.resolve("shim.log").toString(),
                        new ToolkitInstaller.SimulatedRuntime(
                                new org.gpuoperator.toolkit.simulated.RuntimeConfig(
                                        "/run/nvidia/driver",
                                        "n1",
                                        "simulated:t4-x1",
                                        node.toString(),
                                        null),
                                org.gpuoperator.toolkit.install.RuntimePayload.ofThisProcess()),
                        null)
                .install();

        // a GPU container: the shim runs our runtime, which mounts nvidia-smi and exactly the
        // allocated GPU
        String uuid =
                org.gpuoperator.node.inventory.simulated.SimulatedGpuInventory.gpuUuid("n1", 0);
        ContainerdBinary.Run ok =
                containerd.ctr(
                        "-n",
                        "k8s.io",
                        "run",
                        "--rm",
                        "--runc-binary",
                        runtimes.binary(),
                        "--env",
                        "NVIDIA_VISIBLE_DEVICES=" + uuid,
                        IMAGE,
                        "gpu-ok",
                        "/bin/busybox",
                        "sh",
                        "-c",
                        // a moment before the task exits: ctr can lose a task's whole output when
                        // it exits as soon as it wrote (its FIFO copy races the exit; seen once in
                        // a clean-clone CI run), which is ctr's, not the runtime's
                        "/bin/busybox sh /usr/bin/nvidia-smi -L; /bin/busybox sleep 1");
        assertThat(ok.exit()).as(ok.err()).isZero();
        assertThat(ok.out()).isEqualTo("GPU 0: Tesla T4 (UUID: " + uuid + ")\n");
        assertThat(node.resolve("run/nvidia/simulated-runtime/containers/gpu-ok"))
                .as("removed on delete")
                .doesNotExist();

        ContainerdBinary.Run unknown =
                containerd.ctr(
                        "-n",
                        "k8s.io",
                        "run",
                        "--rm",
                        "--runc-binary",
                        runtimes.binary(),
                        "--env",
                        "NVIDIA_VISIBLE_DEVICES=GPU-00000000-0000-0000-0000-000000000000",
                        IMAGE,
                        "gpu-unknown",
                        "/bin/busybox",
                        "true");
        assertThat(unknown.exit()).isNotZero();
        assertThat(unknown.err())
                .contains(
                        "OCI runtime create failed: nvidia-container-cli: device error: "
                                + "GPU-00000000-0000-0000-0000-000000000000: unknown device");

        Files.delete(node.resolve("run/nvidia/driver"));
        ContainerdBinary.Run noDriver =
                containerd.ctr(
                        "-n",
                        "k8s.io",
                        "run",
                        "--rm",
                        "--runc-binary",
                        runtimes.binary(),
                        "--env",
                        "NVIDIA_VISIBLE_DEVICES=all",
                        IMAGE,
                        "gpu-no-driver",
                        "/bin/busybox",
                        "true");
        assertThat(noDriver.exit()).isNotZero();
        assertThat(noDriver.err())
                .contains(
                        "OCI runtime create failed: nvidia-container-cli: initialization error: "
                                + "load library failed: libnvidia-ml.so.1: cannot open shared object file: no such file or directory");
        System.out.println("containerd reported: " + noDriver.err().strip());
    }

    @Test
    @Order(6)
    void aConfigContainerdRejectsIsNeverWrittenEvenIfItIsValidToml() throws Exception {
        // valid TOML, wrong type: only containerd itself catches it
        String bad =
                original.replace(
                        "restrict_oom_score_adj = true", "restrict_oom_score_adj = \"yes\"");
        Path other = dir.resolve("other.toml");
        Files.writeString(other, bad);
        ContainerdConfigurer c =
                new ContainerdConfigurer(
                        other.toString(),
                        dir.resolve("other.d/x.toml").toString(),
                        runtimes,
                        cli.version(),
                        Optional.empty(),
                        ContainerdConfigurer.DropIn.AUTO);
        String before = Files.readString(other);
        assertThatThrownBy(() -> applier.configure(c, cli))
                .isInstanceOf(ConfigException.class)
                .hasMessageStartingWith(other + ": containerd rejects the new config");
        assertThat(Files.readString(other)).isEqualTo(before);
        assertThat(dir.resolve("other.d/x.toml")).doesNotExist();
    }

    @Test
    @Order(7)
    void cleanupRestoresTheOriginalBytesAndSignalModeShowsContainerdExitsOnSighup()
            throws Exception {
        ConfigApplier.Outcome o = applier.cleanup(configurer, cli);
        assertThat(o.changed()).isTrue();
        assertThat(Files.readString(config)).isEqualTo(original);
        assertThat(dropIn).as("the drop-in goes with the import").doesNotExist();

        // signal mode: SIGHUP to the socket's owner. containerd 1.6 has no handler and exits 129
        // (needs a supervisor).
        new SignalReload(containerd.socket()).reload();
        assertThat(containerd.process().waitFor(15, TimeUnit.SECONDS)).isTrue();
        assertThat(containerd.process().exitValue()).isEqualTo(129);

        containerd.start(config);
        try (CriClient cri = new CriClient(containerd.socket())) {
            assertThat(CriRuntimeConfig.handler(cri.status(), "nvidia")).isEmpty();
        }
    }
}
