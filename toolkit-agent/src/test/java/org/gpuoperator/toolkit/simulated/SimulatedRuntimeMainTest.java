package org.gpuoperator.toolkit.simulated;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import org.gpuoperator.node.inventory.simulated.SimulatedFaults;
import org.gpuoperator.node.inventory.simulated.SimulatedGpuInventory;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The create decision in process: spec edit, description file, and each refusal with the real text
 * and exit 1.
 */
class SimulatedRuntimeMainTest {

    @TempDir Path tmp;

    Path install;
    Path node;
    Path bundle;
    Path log;
    final ByteArrayOutputStream err = new ByteArrayOutputStream();
    final Clock clock = Clock.fixed(Instant.parse("2026-12-01T10:00:00Z"), ZoneOffset.UTC);

    @BeforeEach
    void simulatedNodeWithDriver() throws Exception {
        install = tmp.resolve("toolkit");
        node = tmp.resolve("node");
        Files.createDirectories(install.resolve(RuntimeConfig.RELATIVE_PATH).getParent());
        Files.writeString(
                install.resolve(RuntimeConfig.RELATIVE_PATH),
                new RuntimeConfig(
                                "/run/nvidia/driver",
                                "node-a",
                                "simulated:h100-80gb-x8",
                                node.toString(),
                                null)
                        .render());
        Files.createDirectories(node.resolve("run/nvidia/driver"));
        Files.createDirectories(node.resolve("proc/driver/nvidia"));
        Files.writeString(
                node.resolve(DriverState.KERNEL_VERSION_FILE),
                "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.54.15\n");
        bundle = tmp.resolve("bundle");
        Files.createDirectories(bundle);
        log = tmp.resolve("log.json");
    }

    void spec(String... env) throws Exception {
        List<String> quoted = new ArrayList<>();
        for (String e : env) {
            quoted.add("\"" + e + "\"");
        }
        Files.writeString(
                bundle.resolve("config.json"),
                "{\"ociVersion\":\"1.0.2\",\"process\":{\"args\":[\"sh\"],\"env\":["
                        + String.join(",", quoted)
                        + "]},\"root\":{\"path\":\"rootfs\"},\"mounts\":[]}");
    }

    int create(String id) {
        // as containerd-shim-runc-v2 calls runc
        return SimulatedRuntimeMain.run(
                install,
                List.of(
                        "--root",
                        "/run/containerd/runc/k8s.io",
                        "--log",
                        log.toString(),
                        "--log-format",
                        "json",
                        "--systemd-cgroup",
                        "create",
                        "--bundle",
                        bundle.toString(),
                        "--pid-file",
                        bundle.resolve("init.pid").toString(),
                        id),
                node,
                clock,
                new PrintStream(err, true));
    }

    @Test
    void parsesTheShimsCommandLine() {
        RuncArgs a =
                RuncArgs.parse(
                        List.of(
                                "--root",
                                "/r",
                                "--log",
                                "/l",
                                "--log-format",
                                "json",
                                "--systemd-cgroup",
                                "create",
                                "--bundle",
                                "/b",
                                "--pid-file",
                                "/p",
                                "--console-socket=/s",
                                "c1"));
        assertThat(a).isEqualTo(new RuncArgs("/l", "json", "create", "/b", "c1"));
        assertThat(RuncArgs.parse(List.of("create", "-b", "/x", "id2")).bundle()).isEqualTo("/x");
        assertThat(RuncArgs.parse(List.of("--root=/r", "delete", "--force", "id3")))
                .isEqualTo(new RuncArgs(null, "text", "delete", ".", "id3"));
    }

    @Test
    void aGpuContainerGetsTheMountsAndADescriptionOfExactlyItsGpus() throws Exception {
        String u1 = SimulatedGpuInventory.gpuUuid("node-a", 1);
        String u3 = SimulatedGpuInventory.gpuUuid("node-a", 3);
        spec("PATH=/bin", "NVIDIA_VISIBLE_DEVICES=" + u3 + "," + u1);
        assertThat(create("c1")).isZero();
        String edited = Files.readString(bundle.resolve("config.json"));
        Path description = node.resolve(SimulatedRuntimeMain.CONTAINERS_DIR).resolve("c1/gpus");
        assertThat(edited)
                .contains("\"source\":\"" + install.resolve("nvidia-smi") + "\"")
                .contains("\"source\":\"" + description + "\"")
                .contains("NVIDIA_VISIBLE_DEVICES=" + u3 + "," + u1);
        List<String> gpus =
                Files.readAllLines(description).stream()
                        .filter(l -> l.startsWith("gpu\t"))
                        .toList();
        assertThat(gpus).hasSize(2);
        assertThat(gpus.get(0)).startsWith("gpu\t0\t" + u1 + "\tNVIDIA H100 80GB HBM3\t");
        assertThat(gpus.get(1)).startsWith("gpu\t1\t" + u3 + "\t");
        assertThat(Files.readString(description)).contains("driver\t550.54.15\n");
        assertThat(err.toString()).isEmpty();
    }

    @Test
    void aContainerWithoutAGpuRequestIsLeftAlone() throws Exception {
        spec("PATH=/bin", "NVIDIA_VISIBLE_DEVICES=void");
        byte[] before = Files.readAllBytes(bundle.resolve("config.json"));
        Files.delete(node.resolve("run/nvidia/driver")); // not even the driver matters
        assertThat(create("c2")).isZero();
        assertThat(Files.readAllBytes(bundle.resolve("config.json"))).isEqualTo(before);
        assertThat(node.resolve(SimulatedRuntimeMain.CONTAINERS_DIR).resolve("c2")).doesNotExist();
    }

    @Test
    void anUnknownDeviceIsRefusedOnStderrAndInTheRuncLog() throws Exception {
        spec("NVIDIA_VISIBLE_DEVICES=GPU-00000000-0000-0000-0000-000000000000");
        byte[] before = Files.readAllBytes(bundle.resolve("config.json"));
        assertThat(create("c3")).isEqualTo(1);
        String text =
                "nvidia-container-cli: device error: GPU-00000000-0000-0000-0000-000000000000: unknown device";
        assertThat(err.toString()).isEqualTo(text + "\n");
        assertThat(Files.readString(log))
                .isEqualTo(
                        "{\"level\":\"error\",\"msg\":\""
                                + text
                                + "\",\"time\":\"2026-12-01T10:00:00Z\"}\n");
        assertThat(Files.readAllBytes(bundle.resolve("config.json"))).isEqualTo(before);
    }

    @Test
    void noDriverRootMeansNoLibraryToLoad() throws Exception {
        spec("NVIDIA_VISIBLE_DEVICES=all");
        Files.delete(node.resolve("run/nvidia/driver"));
        assertThat(create("c4")).isEqualTo(1);
        assertThat(err.toString())
                .isEqualTo(
                        "nvidia-container-cli: initialization error: load library failed: "
                                + "libnvidia-ml.so.1: cannot open shared object file: no such file or directory\n");
    }

    @Test
    void anUnloadedKernelModuleIsNvmlsDriverNotLoaded() throws Exception {
        spec("NVIDIA_VISIBLE_DEVICES=0");
        Files.delete(node.resolve(DriverState.KERNEL_VERSION_FILE));
        assertThat(create("c5")).isEqualTo(1);
        assertThat(err.toString())
                .isEqualTo(
                        "nvidia-container-cli: initialization error: nvml error: driver not loaded\n");
    }

    @Test
    void aLostGpuFailsLikeTheRealOne() throws Exception {
        spec("NVIDIA_VISIBLE_DEVICES=0");
        new SimulatedFaults(node).loseGpu(5);
        assertThat(create("c6")).isEqualTo(1);
        assertThat(err.toString())
                .isEqualTo("nvidia-container-cli: detection error: nvml error: gpu is lost\n");
        new SimulatedFaults(node).recover(5);
        err.reset();
        assertThat(create("c6")).isZero();
    }

    @Test
    void cdiAnnotationsWithoutASpecDirAreUnresolvable() throws Exception {
        Files.writeString(
                bundle.resolve("config.json"),
                "{\"process\":{\"env\":[]},\"annotations\":"
                        + "{\"cdi.k8s.io/nvidia-device-plugin_0\":\"nvidia.com/gpu=0\"}}");
        assertThat(create("c7")).isEqualTo(1);
        assertThat(err.toString())
                .isEqualTo(
                        "error modifying OCI spec: failed to inject CDI devices: unresolvable CDI devices nvidia.com/gpu=0\n");
    }
}
