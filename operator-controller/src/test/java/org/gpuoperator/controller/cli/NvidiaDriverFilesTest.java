package org.gpuoperator.controller.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.gpuoperator.api.v1alpha1.NVIDIADriver;
import org.gpuoperator.controller.ControllerMain;
import org.gpuoperator.controller.nodes.NodeLabels;
import org.gpuoperator.controller.nvidiadriver.DriverPoolPlan;
import org.gpuoperator.controller.nvidiadriver.DriverPools;
import org.gpuoperator.controller.operand.OperandModels;
import org.gpuoperator.controller.plan.PlanFixtures;
import org.gpuoperator.controller.reconcile.ControllerRuntime;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code render} and {@code plan} in NVIDIADriver mode, with the NVIDIADrivers from files. */
class NvidiaDriverFilesTest {

    @TempDir Path dir;

    private record Result(int code, String out, String err) {}

    private static Result run(String... args) {
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = ControllerMain.commandLine();
        cl.setOut(new PrintWriter(out));
        cl.setErr(new PrintWriter(err));
        int code = cl.execute(args);
        return new Result(code, out.toString(), err.toString());
    }

    private static final String NODES =
            """
            - apiVersion: v1
              kind: Node
              metadata:
                name: gpu-a
                labels:
                  feature.node.kubernetes.io/pci-10de.present: "true"
                  nvidia.com/gpu.deploy.driver: "true"
                  pool: a
              status:
                nodeInfo: {osImage: Ubuntu 22.04.4 LTS, kernelVersion: 5.15.0-105-generic}
            - apiVersion: v1
              kind: Node
              metadata:
                name: gpu-b
                labels:
                  feature.node.kubernetes.io/pci-10de.present: "true"
                  nvidia.com/gpu.deploy.driver: "true"
                  pool: b
              status:
                nodeInfo: {osImage: Red Hat Enterprise Linux 9.4, kernelVersion: 5.14.0-427.el9}
            """;

    /** Two NVIDIADrivers, as a multi-document stream; b without upgradePolicy. */
    private static String drivers(String bVersion) {
        return """
                apiVersion: nvidia.com/v1alpha1
                kind: NVIDIADriver
                metadata:
                  name: a
                spec:
                  driverType: gpu
                  version: "570.172.08"
                  nodeSelector: {pool: a}
                  upgradePolicy:
                    autoUpgrade: false
                ---
                apiVersion: nvidia.com/v1alpha1
                kind: NVIDIADriver
                metadata:
                  name: b
                spec:
                  driverType: gpu
                  version: "%s"
                  nodeSelector: {pool: b}
                """
                .formatted(bVersion);
    }

    private Path write(String name, String text) throws Exception {
        Path p = dir.resolve(name);
        Files.writeString(p, text);
        return p;
    }

    /** A stream that opens with a document marker, as kubectl and fabric8 write them. */
    @Test
    void aStreamOpeningWithADocumentMarkerIsReadAsDocumentsNotAsASequence() throws Exception {
        Path file = write("drivers.yaml", "---\n" + drivers("580.65.06"));
        assertThat(PolicyFiles.readNvidiaDrivers(file))
                .extracting(d -> d.getMetadata().getName() + " " + d.getSpec().getVersion())
                .containsExactly("a 570.172.08", "b 580.65.06");
        Path sequence =
                write(
                        "sequence.yaml",
                        "- apiVersion: nvidia.com/v1alpha1\n  kind: NVIDIADriver\n"
                                + "  metadata: {name: c}\n  spec: {version: \"580.65.06\"}\n");
        assertThat(PolicyFiles.readNvidiaDrivers(sequence))
                .extracting(d -> d.getMetadata().getName())
                .containsExactly("c");
    }

    @Test
    void renderPrintsEachPoolDaemonSetAsTheControllerRendersIt() throws Exception {
        Path policy =
                write("policy.yaml", PlanFixtures.policy("570.172.08", "useNvidiaDriverCRD: true"));
        Path nodes = write("nodes.yaml", NODES);
        Path drivers = write("drivers.yaml", drivers("580.65.06"));

        Result r =
                run(
                        "render",
                        "--policy",
                        policy.toString(),
                        "--nodes",
                        nodes.toString(),
                        "--nvidiadrivers",
                        drivers.toString());
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.err()).doesNotContain("without --nvidiadrivers");
        // NVIDIADriver mode is implemented: no "not implemented" warning names it
        assertThat(r.err()).doesNotContain("useNvidiaDriverCRD");

        // the reconcile's own plan for the same inputs
        List<NVIDIADriver> objects = PolicyFiles.readNvidiaDrivers(drivers);
        List<Node> gpuNodes =
                PolicyFiles.readNodes(nodes).stream()
                        .filter(n -> NodeLabels.isGpuNode(n.getMetadata().getLabels(), "x"))
                        .toList();
        RenderedPolicy rendered =
                RenderedPolicy.of(
                        PolicyFiles.readPolicy(policy).spec(),
                        gpuNodes,
                        "gpu-operator",
                        System.getenv());
        DriverPoolPlan pools =
                DriverPoolPlan.of(
                        new OperandModels(ControllerRuntime.withDefaultImages(System.getenv())),
                        rendered.settings(),
                        "gpu-operator",
                        objects,
                        gpuNodes);
        assertThat(pools.daemonSets()).hasSize(2);
        for (DaemonSet ds : pools.daemonSets().values()) {
            assertThat(r.out()).contains(KubectlYaml.of(ds));
        }
        assertThat(r.out())
                .doesNotContain("name: nvidia-driver-daemonset\n")
                .contains(
                        "# Driver upgrade policy of NVIDIADriver a: autoUpgrade false,",
                        // without upgradePolicy: upstream's NVIDIADriver defaults
                        "# Driver upgrade policy of NVIDIADriver b: autoUpgrade true,"
                                + " maxParallelUpgrades 1, maxUnavailable 25%,")
                .containsPattern(
                        "#   gpu-b: \\{.*"
                                + DriverPools.OWNER_LABEL
                                + "=b.*"
                                + DriverPools.POOL_LABEL
                                + "=b-rhel9\\.4[-0-9a-f]*[,}].*\n");
    }

    @Test
    void renderWithoutTheNvidiaDriversWarnsAndAnUnreadableFileIsAnError() throws Exception {
        Path policy =
                write("policy.yaml", PlanFixtures.policy("570.172.08", "useNvidiaDriverCRD: true"));
        Result r = run("render", "--policy", policy.toString());
        assertThat(r.code()).isZero();
        assertThat(r.err())
                .contains("warning: spec.driver.useNvidiaDriverCRD: ")
                .contains("without --nvidiadrivers");

        Path nodes = write("nodes.yaml", NODES);
        r = run("render", "--policy", policy.toString(), "--nvidiadrivers", nodes.toString());
        assertThat(r.code()).isEqualTo(1);
        assertThat(r.err()).contains(nodes + ": item 0 is not a NVIDIADriver but Node");
    }

    @Test
    void planAgainstAPendingNvidiaDriverChangeListsNodesPathsAndBatchesPerDriver()
            throws Exception {
        Path policy =
                write("policy.yaml", PlanFixtures.policy("570.172.08", "useNvidiaDriverCRD: true"));
        Path nodes = write("nodes.yaml", NODES);
        Path before = write("before.yaml", drivers("570.172.08"));
        Path after = write("after.yaml", drivers("580.65.06"));

        Result r =
                run(
                        "plan",
                        "--policy",
                        policy.toString(),
                        "--current",
                        policy.toString(),
                        "--nodes",
                        nodes.toString(),
                        "--current-nvidiadrivers",
                        before.toString(),
                        "--nvidiadrivers",
                        after.toString());
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out())
                .contains(
                        "  gpu-a:\n    nvidiadriver: a (pool a-ubuntu22.04",
                        "  gpu-b:\n    nvidiadriver: b (pool b-rhel9.4",
                        "    restarts: nvidia-gpu-driver-rhel9.4-",
                        "    driver unload: yes (driver version 570.172.08 -> 580.65.06)\n"
                                + "    driver path: full (cordon, wait for jobs, evict, driver"
                                + " restarted)\n",
                        """
                        Driver upgrade batches of NVIDIADriver b (maxParallelUpgrades 1, \
                        maxUnavailable 25% = 1 of 1 nodes):
                          1: gpu-b
                        Nothing was changed.
                        """)
                .doesNotContain("Note: ")
                .doesNotContain("without --nvidiadrivers");
        // a is unchanged: its node's driver stays
        String gpuA = r.out().substring(r.out().indexOf("  gpu-a:"), r.out().indexOf("  gpu-b:"));
        assertThat(gpuA).contains("    restarts: none\n").doesNotContain("driver path");
        assertThat(Files.readString(after)).isEqualTo(drivers("580.65.06"));
    }
}
