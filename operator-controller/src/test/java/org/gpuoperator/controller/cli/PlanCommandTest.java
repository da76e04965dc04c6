package org.gpuoperator.controller.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.gpuoperator.controller.plan.PlanFixtures.NODES;
import static org.gpuoperator.controller.plan.PlanFixtures.policy;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.gpuoperator.controller.ControllerMain;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class PlanCommandTest {

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

    @Test
    void planListsRestartsUnloadEvictionsBatchesAndWarningsAndChangesNothing() throws Exception {
        Path next = dir.resolve("next.yaml");
        Files.writeString(
                next,
                policy(
                        "580.65.06",
                        "upgradePolicy:\n  autoUpgrade: true\n  maxParallelUpgrades: 1\n  maxUnavailable: 1"));
        Path current = dir.resolve("current.yaml");
        Files.writeString(current, policy("570.172.08", ""));
        Path nodes = dir.resolve("nodes.yaml");
        Files.writeString(nodes, NODES);
        String before = Files.readString(nodes);

        Result r =
                run(
                        "plan",
                        "--policy",
                        next.toString(),
                        "--current",
                        current.toString(),
                        "--nodes",
                        nodes.toString());
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out())
                .contains(
                        "  warning: node gpu-b: Kubernetes v1.29.4 is not supported by driver branch"
                                + " 580 (1.30 to 1.35, version-matrix.yaml)\n",
                        "  warning: node gpu-b: kernel 6.17.0-1003-aws is not supported by driver"
                                + " branch 580 (5.4 to 6.14, version-matrix.yaml)\n",
                        "  nvidia-driver-daemonset: changed, restarts node by node through the"
                                + " driver upgrade (OnDelete)\n"
                                + "      spec.containers[driver-agent].env[DRIVER_VERSION].value\n",
                        "  nvidia-device-plugin-daemonset: unchanged\n",
                        "Driver unload: driver version 570.172.08 -> 580.65.06\n",
                        """
                          gpu-a:
                            restarts: nvidia-driver-daemonset pod
                            driver unload: yes (driver version 570.172.08 -> 580.65.06)
                            driver path: full (cordon, wait for jobs, evict, driver restarted)
                            evicts: work/train-a
                            batch: not started
                          gpu-b:
                            restarts: nvidia-driver-daemonset pod
                            driver unload: yes (driver version 570.172.08 -> 580.65.06)
                            driver path: full (cordon, wait for jobs, evict, driver restarted)
                            evicts: work/notebook (refused: not managed by a controller; podDeletion.force)
                            batch: not started
                        """,
                        "  cpu-1: not a GPU node\n",
                        """
                        Driver upgrade batches (maxParallelUpgrades 1, maxUnavailable 1 = 1 of 3 nodes):
                          1: gpu-c
                          not started: node gpu-a: upgrade-required: waiting for a slot: maxParallelUpgrades 1 (0 in progress or failed), maxUnavailable 1 = 1 of 3 (1 unavailable: cordoned, NotReady, failed or upgrading)
                          not started: node gpu-b: upgrade-required: waiting for a slot: maxParallelUpgrades 1 (0 in progress or failed), maxUnavailable 1 = 1 of 3 (1 unavailable: cordoned, NotReady, failed or upgrading)
                        Nothing was changed.
                        """)
                .doesNotContain("work/web");
        assertThat(Files.readString(nodes)).isEqualTo(before);
    }

    @Test
    void withAutoUpgradeOffThePlanSaysTheUpgradeStaysPending() throws Exception {
        Path next = dir.resolve("next.yaml");
        Files.writeString(next, policy("580.65.06", ""));
        Path current = dir.resolve("current.yaml");
        Files.writeString(current, policy("570.172.08", ""));
        Path nodes = dir.resolve("nodes.yaml");
        Files.writeString(nodes, NODES);
        Result r =
                run(
                        "plan",
                        "--policy",
                        next.toString(),
                        "--current",
                        current.toString(),
                        "--nodes",
                        nodes.toString());
        assertThat(r.code()).as(r.err()).isZero();
        assertThat(r.out())
                .contains(
                        "Note: spec.driver.upgradePolicy.autoUpgrade is false: the driver pods"
                                + " (OnDelete) are not restarted and the upgrade stays pending; the"
                                + " batches show the order once it is true");
    }

    @Test
    void anInvalidPolicyOrAForeignObjectInTheNodesFileIsAnErrorNamingTheFile() throws Exception {
        Path bad = dir.resolve("bad.yaml");
        Files.writeString(bad, policy("580.65.06", "upgradePolicy:\n  maxParallelUpgrades: -1"));
        Path nodes = dir.resolve("nodes.yaml");
        Files.writeString(nodes, NODES);
        Result r = run("plan", "--policy", bad.toString(), "--nodes", nodes.toString());
        assertThat(r.code()).isEqualTo(1);
        assertThat(r.err())
                .contains("error: " + bad + ": spec.driver.upgradePolicy.maxParallelUpgrades");

        Path good = dir.resolve("good.yaml");
        Files.writeString(good, policy("580.65.06", ""));
        Path services = dir.resolve("services.yaml");
        Files.writeString(services, "- {apiVersion: v1, kind: Service, metadata: {name: s}}\n");
        r = run("plan", "--policy", good.toString(), "--nodes", services.toString());
        assertThat(r.code()).isEqualTo(1);
        assertThat(r.err())
                .isEqualTo("error: " + services + ": item 0 is not a Node or Pod but Service\n");
    }

    @Test
    void nvidiasImagesInThePolicyShowAsReplacedByOurs() throws Exception {
        Path next = dir.resolve("next.yaml");
        Files.writeString(
                next,
                policy("580.65.06", "repository: nvcr.io/nvidia\nimage: driver")
                        .replace(
                                "  devicePlugin: {}",
                                "  devicePlugin:\n    image: nvcr.io/nvidia/k8s-device-plugin:v0.20.0"));
        Path current = dir.resolve("current.yaml");
        Files.writeString(current, policy("580.65.06", ""));
        Path nodes = dir.resolve("nodes.yaml");
        Files.writeString(nodes, NODES);

        Result r =
                run(
                        "plan",
                        "--policy",
                        next.toString(),
                        "--current",
                        current.toString(),
                        "--nodes",
                        nodes.toString());

        assertThat(r.code()).as(r.err()).isZero();
        String registry = org.gpuoperator.api.defaults.ClusterPolicyDefaults.REGISTRY;
        assertThat(r.out())
                .contains(
                        "spec.driver.image: NVIDIA's image nvcr.io/nvidia/driver:580.65.06 is"
                                + " replaced by this operator's image of the same operand, "
                                + registry
                                + "/driver-agent:580.65.06",
                        "spec.devicePlugin.image: NVIDIA's image"
                                + " nvcr.io/nvidia/k8s-device-plugin:v0.20.0 is replaced by this"
                                + " operator's image of the same operand, "
                                + registry
                                + "/device-plugin:")
                // the same driver image as before: nothing restarts
                .contains("  nvidia-driver-daemonset: unchanged\n");
    }
}
