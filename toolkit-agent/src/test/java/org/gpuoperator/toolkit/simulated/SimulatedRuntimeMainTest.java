package org.gpuoperator.toolkit.simulated;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.gpuoperator.node.cdi.CdiSpec;
import org.gpuoperator.node.cdi.CdiSpecGenerator;
import org.gpuoperator.node.cdi.CdiYaml;
import org.gpuoperator.node.cdi.DriverDiscovery;
import org.gpuoperator.node.cdi.DriverFiles;
import org.gpuoperator.node.cdi.HostFs;
import org.gpuoperator.node.inventory.Gpu;
import org.gpuoperator.node.inventory.simulated.SimulatedDriverFiles;
import org.gpuoperator.node.inventory.simulated.SimulatedFaults;
import org.gpuoperator.node.inventory.simulated.SimulatedGpuInventory;
import org.gpuoperator.node.inventory.simulated.SimulatedProfiles;
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
        return create(id, RuntimeMode.AUTO);
    }

    int create(String id, RuntimeMode mode) {
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
                mode,
                clock,
                new PrintStream(err, true));
    }

    /**
     * What the toolkit agent leaves with CDI on: the specs generated for this node's GPUs and the
     * simulated driver's files (stand-in libraries under the driver root, device files).
     */
    List<Gpu> cdiSpecs(String profile) throws Exception {
        SimulatedDriverFiles.layDown(node.resolve("run/nvidia/driver"), "550.54.15");
        Files.createDirectories(node.resolve("dev"));
        Files.writeString(node.resolve("dev/nvidiactl"), "c 195:255\n");
        Files.writeString(node.resolve("dev/nvidia-uvm"), "c 510:0\n");
        List<Gpu> gpus =
                new SimulatedGpuInventory(
                                SimulatedProfiles.builtIn().get(profile), "node-a", node, clock)
                        .gpus();
        for (Gpu g : gpus) {
            Files.writeString(
                    node.resolve(g.devicePath().substring(1)), "c 195:" + g.minorNumber() + "\n");
        }
        DriverFiles found =
                new DriverDiscovery(new HostFs(node)).discover("/run/nvidia/driver", "550.54.15");
        // runc binds a mount's source as it is: the driver root at its real path in this test
        DriverFiles driver =
                new DriverFiles(
                        node.resolve("run/nvidia/driver").toString(),
                        found.version(),
                        found.libraries(),
                        found.binaries(),
                        found.deviceNodes(),
                        found.migCapMinors());
        Path dir = node.resolve("var/run/cdi");
        Files.createDirectories(dir);
        for (Map.Entry<String, CdiSpec> e :
                CdiSpecGenerator.specFiles(
                                gpus, driver, install.resolve("nvidia-cdi-hook").toString())
                        .entrySet()) {
            Files.writeString(dir.resolve(e.getKey()), CdiYaml.render(e.getValue()));
        }
        return gpus;
    }

    void cdiSpec(String annotations, String... env) throws Exception {
        List<String> quoted = new ArrayList<>();
        for (String e : env) {
            quoted.add("\"" + e + "\"");
        }
        Files.writeString(
                bundle.resolve("config.json"),
                "{\"ociVersion\":\"1.0.2\",\"process\":{\"args\":[\"sh\"],\"env\":["
                        + String.join(",", quoted)
                        + "]},\"root\":{\"path\":\"rootfs\"},\"mounts\":[],\"annotations\":{"
                        + annotations
                        + "}}");
    }

    List<String> visibleGpus(String id) throws Exception {
        return Files.readAllLines(
                        node.resolve(SimulatedRuntimeMain.CONTAINERS_DIR).resolve(id + "/gpus"))
                .stream()
                .filter(l -> l.startsWith("gpu\t") || l.startsWith("mig\t"))
                .toList();
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

    @Test
    void cdiAnnotationsResolveThroughTheSpecsToDeviceNodesMountsEnvAndExactlyTheirGpus()
            throws Exception {
        List<Gpu> gpus = cdiSpecs("h100-80gb-x8");
        cdiSpec(
                "\"cdi.k8s.io/nvidia-device-plugin_a\":\"nvidia.com/gpu=3,nvidia.com/gpu="
                        + gpus.get(1).uuid()
                        + "\"",
                "PATH=/bin");
        assertThat(create("cdi1")).as(err.toString()).isZero();

        JsonNode edited = new ObjectMapper().readTree(bundle.resolve("config.json").toFile());
        assertThat(edited.at("/linux/devices").findValuesAsText("path"))
                .containsExactly(
                        "/dev/nvidiactl", "/dev/nvidia-uvm", "/dev/nvidia3", "/dev/nvidia1");
        assertThat(edited.at("/linux/devices/2/major").asInt()).isEqualTo(195);
        assertThat(edited.at("/linux/devices/2/minor").asInt()).isEqualTo(3);
        assertThat(edited.at("/mounts").findValuesAsText("destination"))
                .contains(
                        "/usr/lib/x86_64-linux-gnu/libcuda.so.550.54.15",
                        "/usr/lib/x86_64-linux-gnu/libnvidia-ml.so.550.54.15",
                        OciSpecEdit.NVIDIA_SMI_IN_CONTAINER);
        assertThat(edited.at("/mounts").findValuesAsText("source"))
                .contains(
                        node.resolve(
                                        "run/nvidia/driver/usr/lib/x86_64-linux-gnu/libcuda.so.550.54.15")
                                .toString());
        assertThat(edited.at("/process/env").toString()).contains("NVIDIA_VISIBLE_DEVICES=void");
        // the simulated nvidia-smi sees exactly the two, in host order, renumbered
        assertThat(visibleGpus("cdi1"))
                .satisfiesExactly(
                        l -> assertThat(l).startsWith("gpu\t0\t" + gpus.get(1).uuid() + "\t"),
                        l -> assertThat(l).startsWith("gpu\t1\t" + gpus.get(3).uuid() + "\t"));
    }

    @Test
    void anUnknownCdiNameFailsWithTheRealErrorAndLeavesTheBundle() throws Exception {
        cdiSpecs("h100-80gb-x8");
        cdiSpec("\"cdi.k8s.io/x\":\"nvidia.com/gpu=0,nvidia.com/gpu=9\"");
        byte[] before = Files.readAllBytes(bundle.resolve("config.json"));
        assertThat(create("cdi2")).isEqualTo(1);
        assertThat(err.toString())
                .isEqualTo(
                        "error modifying OCI spec: failed to inject CDI devices: unresolvable CDI devices nvidia.com/gpu=9\n");
        assertThat(Files.readAllBytes(bundle.resolve("config.json"))).isEqualTo(before);
    }

    @Test
    void aMigDeviceGetsItsCapsNodesAndOnlyItself() throws Exception {
        Files.writeString(
                install.resolve(RuntimeConfig.RELATIVE_PATH),
                new RuntimeConfig(
                                "/run/nvidia/driver",
                                "node-a",
                                "simulated:a100-40gb-x8-mig-mixed",
                                node.toString(),
                                null)
                        .render());
        List<Gpu> gpus = cdiSpecs("a100-40gb-x8-mig-mixed");
        Gpu g = gpus.stream().filter(x -> x.mig().enabled()).findFirst().orElseThrow();
        Gpu.MigDevice m = g.mig().devices().get(1);
        // the caps nodes the simulated driver has not made: numbers from the spec's host lookup
        int gi = 3 + g.minorNumber() * 135 + m.gpuInstanceId() * 9;
        Files.createDirectories(node.resolve("dev/nvidia-caps"));
        Files.writeString(node.resolve("dev/nvidia-caps/nvidia-cap" + gi), "c 236:" + gi + "\n");
        int ci = gi + 1 + m.computeInstanceId();
        Files.writeString(node.resolve("dev/nvidia-caps/nvidia-cap" + ci), "c 236:" + ci + "\n");

        cdiSpec("\"cdi.k8s.io/x\":\"nvidia.com/gpu=" + g.index() + ":1\"");
        assertThat(create("mig1")).as(err.toString()).isZero();
        JsonNode edited = new ObjectMapper().readTree(bundle.resolve("config.json").toFile());
        assertThat(edited.at("/linux/devices").findValuesAsText("path"))
                .contains(
                        g.devicePath(),
                        "/dev/nvidia-caps/nvidia-cap" + gi,
                        "/dev/nvidia-caps/nvidia-cap" + ci);
        assertThat(visibleGpus("mig1"))
                .hasSize(2)
                .anySatisfy(l -> assertThat(l).startsWith("mig\t").contains(m.uuid()));
    }

    @Test
    void aMountWhoseSourceRuncWouldNotFindIsLeftOut() throws Exception {
        cdiSpecs("h100-80gb-x8");
        Files.writeString(
                node.resolve("var/run/cdi/extra.yaml"),
                "cdiVersion: 0.3.0\nkind: example.com/lib\ndevices:\n- name: x\n"
                        + "  containerEdits:\n    mounts:\n"
                        + "    - {hostPath: /no/such/file, containerPath: /usr/lib/x.so}\n");
        cdiSpec("\"cdi.k8s.io/x\":\"nvidia.com/gpu=0,example.com/lib=x\"");
        assertThat(create("cdi4")).as(err.toString()).isZero();
        JsonNode edited = new ObjectMapper().readTree(bundle.resolve("config.json").toFile());
        assertThat(edited.at("/mounts").findValuesAsText("destination"))
                .doesNotContain("/usr/lib/x.so")
                .contains("/usr/lib/x86_64-linux-gnu/libcuda.so.550.54.15");
    }

    @Test
    void aDeviceNodeTheHostLacksFailsLikeCdi() throws Exception {
        cdiSpecs("h100-80gb-x8");
        Files.delete(node.resolve("dev/nvidia2"));
        // the spec written before the node went away has its numbers: regenerate without them
        Files.writeString(
                node.resolve("var/run/cdi/nvidia.yaml"),
                "cdiVersion: 0.5.0\nkind: nvidia.com/gpu\ndevices:\n- name: '2'\n"
                        + "  containerEdits:\n    deviceNodes:\n    - path: /dev/nvidia2\n");
        cdiSpec("\"cdi.k8s.io/x\":\"nvidia.com/gpu=2\"");
        assertThat(create("cdi3")).isEqualTo(1);
        assertThat(err.toString())
                .isEqualTo(
                        "error modifying OCI spec: failed to inject CDI devices: failed to stat CDI host device \"/dev/nvidia2\": no such file or directory\n");
    }

    @Test
    void theCdiRuntimeResolvesVisibleDevicesThroughCdiAndTheLegacyOneIgnoresAnnotations()
            throws Exception {
        List<Gpu> gpus = cdiSpecs("h100-80gb-x8");
        spec("NVIDIA_VISIBLE_DEVICES=5");
        assertThat(create("m1", RuntimeMode.CDI)).as(err.toString()).isZero();
        JsonNode edited = new ObjectMapper().readTree(bundle.resolve("config.json").toFile());
        assertThat(edited.at("/linux/devices").findValuesAsText("path")).contains("/dev/nvidia5");
        assertThat(visibleGpus("m1"))
                .singleElement()
                .satisfies(l -> assertThat(l).contains(gpus.get(5).uuid()));

        spec("NVIDIA_VISIBLE_DEVICES=9");
        err.reset();
        assertThat(create("m2", RuntimeMode.CDI)).isEqualTo(1);
        assertThat(err.toString()).endsWith("unresolvable CDI devices nvidia.com/gpu=9\n");

        cdiSpec("\"cdi.k8s.io/x\":\"nvidia.com/gpu=9\"", "NVIDIA_VISIBLE_DEVICES=1");
        err.reset();
        assertThat(create("m3", RuntimeMode.LEGACY)).as(err.toString()).isZero();
        assertThat(visibleGpus("m3"))
                .singleElement()
                .satisfies(l -> assertThat(l).contains(gpus.get(1).uuid()));
    }

    @Test
    void underTheManagementDefaultKindAllResolvesInTheManagementSpec() throws Exception {
        Files.writeString(
                install.resolve(RuntimeConfig.RELATIVE_PATH),
                new RuntimeConfig(
                                "/run/nvidia/driver",
                                "node-a",
                                "simulated:h100-80gb-x8",
                                node.toString(),
                                null,
                                null,
                                "management.nvidia.com/gpu")
                        .render());
        List<Gpu> gpus = cdiSpecs("h100-80gb-x8");
        spec("NVIDIA_VISIBLE_DEVICES=all");
        assertThat(create("mg1", RuntimeMode.CDI)).as(err.toString()).isZero();
        JsonNode edited = new ObjectMapper().readTree(bundle.resolve("config.json").toFile());
        assertThat(edited.at("/linux/devices").findValuesAsText("path"))
                .contains("/dev/nvidiactl", gpus.get(7).devicePath());
        assertThat(visibleGpus("mg1")).hasSize(8);

        // a bare index has no device in the management spec
        spec("NVIDIA_VISIBLE_DEVICES=5");
        err.reset();
        assertThat(create("mg2", RuntimeMode.CDI)).isEqualTo(1);
        assertThat(err.toString())
                .endsWith("unresolvable CDI devices management.nvidia.com/gpu=5\n");
    }

    @Test
    void theConfiguredAnnotationPrefixIsTheOneRead() throws Exception {
        Files.writeString(
                install.resolve(RuntimeConfig.RELATIVE_PATH),
                new RuntimeConfig(
                                "/run/nvidia/driver",
                                "node-a",
                                "simulated:h100-80gb-x8",
                                node.toString(),
                                null,
                                "cdi.example.com/")
                        .render());
        List<Gpu> gpus = cdiSpecs("h100-80gb-x8");
        cdiSpec("\"cdi.k8s.io/x\":\"nvidia.com/gpu=9\",\"cdi.example.com/y\":\"nvidia.com/gpu=4\"");
        assertThat(create("p1")).as(err.toString()).isZero();
        assertThat(visibleGpus("p1"))
                .singleElement()
                .satisfies(l -> assertThat(l).contains(gpus.get(4).uuid()));
    }
}
