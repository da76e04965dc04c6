package org.gpuoperator.controller.plan;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.gpuoperator.api.v1.ClusterPolicy;
import org.gpuoperator.api.v1.ClusterPolicySpec;
import org.gpuoperator.api.v1alpha1.NVIDIADriver;
import org.gpuoperator.controller.cli.RenderedPolicy;
import org.gpuoperator.controller.matrix.VersionMatrix;
import org.gpuoperator.controller.nvidiadriver.DriverPoolPlan;
import org.gpuoperator.controller.operand.Operand;
import org.gpuoperator.controller.plan.RolloutPlan.Change;
import org.gpuoperator.controller.plan.RolloutPlan.NodeEntry;
import org.gpuoperator.controller.plan.RolloutPlan.OperandChange;
import org.junit.jupiter.api.Test;

/**
 * The planner in NVIDIADriver mode: each node's driver against its pool's DaemonSet, the
 * restart-only rule of the upgrade, one upgrade per NVIDIADriver under its own policy.
 */
class PlanNvidiaDriversTest {

    private static final String OLD = "570.172.08";
    private static final String NEW = "580.65.06";

    private static ClusterPolicySpec spec(String driverSection) {
        return Serialization.unmarshal(PlanFixtures.policy(OLD, driverSection), ClusterPolicy.class)
                .getSpec();
    }

    private static NVIDIADriver driver(String name, String pool, String version, String extra) {
        String yaml =
                """
                apiVersion: nvidia.com/v1alpha1
                kind: NVIDIADriver
                metadata:
                  name: %s
                spec:
                  driverType: gpu
                  version: "%s"
                  nodeSelector:
                    pool: %s
                %s
                """
                        .formatted(name, version, pool, extra.indent(2).stripTrailing());
        return Serialization.unmarshal(yaml, NVIDIADriver.class);
    }

    private static NVIDIADriver vgpu(NVIDIADriver d) {
        d.getSpec().setDriverType(org.gpuoperator.api.v1alpha1.DriverType.VGPU);
        return d;
    }

    private static Node node(String name, String pool) {
        return new NodeBuilder()
                .withNewMetadata()
                .withName(name)
                .addToLabels("feature.node.kubernetes.io/pci-10de.present", "true")
                .addToLabels(Operand.DRIVER.deployLabel(), "true")
                .addToLabels("pool", pool)
                .endMetadata()
                .withNewStatus()
                .addNewCondition()
                .withType("Ready")
                .withStatus("True")
                .endCondition()
                .withNewNodeInfo()
                .withOsImage("Ubuntu 22.04.4 LTS")
                .withKernelVersion("5.15.0-105-generic")
                .endNodeInfo()
                .endStatus()
                .build();
    }

    private static RolloutPlanner.Side side(
            ClusterPolicySpec spec, List<Node> nodes, Optional<List<NVIDIADriver>> drivers) {
        RenderedPolicy r = RenderedPolicy.of(spec, nodes, "gpu-operator", Map.of(), drivers);
        assertThat(r.errors()).isEmpty();
        return new RolloutPlanner.Side(spec, r.settings(), r.desired(), r.driverPools());
    }

    /** The driver pod the DaemonSet made on the node: its template's labels and annotations. */
    private static Pod driverPod(DaemonSet ds, String node) {
        var template = ds.getSpec().getTemplate();
        return new PodBuilder()
                .withNewMetadata()
                .withNamespace("gpu-operator")
                .withName("driver-" + node)
                .withLabels(template.getMetadata().getLabels())
                .withAnnotations(template.getMetadata().getAnnotations())
                .addNewOwnerReference()
                .withApiVersion("apps/v1")
                .withKind("DaemonSet")
                .withName(ds.getMetadata().getName())
                .withUid("uid-" + ds.getMetadata().getName())
                .withController(true)
                .endOwnerReference()
                .endMetadata()
                .withNewSpec()
                .withNodeName(node)
                .endSpec()
                .build();
    }

    private static Pod gpuJob(String name, String node) {
        return new PodBuilder()
                .withNewMetadata()
                .withNamespace("work")
                .withName(name)
                .addNewOwnerReference()
                .withApiVersion("batch/v1")
                .withKind("Job")
                .withName(name)
                .withUid("u-" + name)
                .withController(true)
                .endOwnerReference()
                .endMetadata()
                .withNewSpec()
                .withNodeName(node)
                .addNewContainer()
                .withName("c")
                .withImage("cuda")
                .withNewResources()
                .addToLimits("nvidia.com/gpu", new io.fabric8.kubernetes.api.model.Quantity("1"))
                .endResources()
                .endContainer()
                .endSpec()
                .build();
    }

    private static String digest(DaemonSet ds) {
        return org.gpuoperator.controller.operand.PodContract.configDigestOf(
                ds.getSpec()
                        .getTemplate()
                        .getMetadata()
                        .getAnnotations()
                        .get(
                                org.gpuoperator.controller.operand.PodContract
                                        .TEMPLATE_HASH_ANNOTATION));
    }

    private static NodeEntry entry(RolloutPlan plan, String name) {
        return plan.nodes().stream().filter(n -> n.name().equals(name)).findFirst().orElseThrow();
    }

    /** The driver pods each node runs now, from the current side's pool DaemonSets. */
    private static List<Pod> runningDrivers(DriverPoolPlan pools, List<Node> nodes) {
        List<Pod> pods = new ArrayList<>();
        for (Node n : nodes) {
            pools.routing()
                    .poolOf(n)
                    .map(pools.daemonSets()::get)
                    .ifPresent(ds -> pods.add(driverPod(ds, n.getMetadata().getName())));
        }
        return pods;
    }

    @Test
    void aPendingNvidiaDriverChangeListsTheNodesTheirPathAndTheBatchesOfEachDriver() {
        List<Node> nodes =
                List.of(node("a1", "a"), node("a2", "a"), node("b1", "b"), node("c1", "c"));
        ClusterPolicySpec policy = spec("useNvidiaDriverCRD: true");
        String aPolicy = "upgradePolicy:\n  maxParallelUpgrades: 2\n  maxUnavailable: 100%";
        List<NVIDIADriver> before =
                List.of(driver("a", "a", OLD, aPolicy), driver("b", "b", OLD, ""));
        // a: pod labels only (not what installs the driver); b: a new version
        List<NVIDIADriver> after =
                List.of(
                        driver("a", "a", OLD, aPolicy + "\nlabels:\n  team: ml"),
                        driver("b", "b", NEW, ""));
        RolloutPlanner.Side current = side(policy, nodes, Optional.of(before));
        List<Pod> pods = new ArrayList<>(runningDrivers(current.pools(), nodes));
        pods.add(gpuJob("train", "b1"));
        pods.add(gpuJob("infer", "a1"));

        RolloutPlan plan =
                RolloutPlanner.plan(
                        new RolloutPlanner.Input(
                                Optional.of(current),
                                side(policy, nodes, Optional.of(after)),
                                nodes,
                                pods,
                                VersionMatrix.load(),
                                List.of(),
                                null));

        assertThat(plan.nvidiaDriverMode()).isTrue();
        // a's nodes: the configuration digest is unchanged, so cordon and a new pod, no eviction
        for (String n : List.of("a1", "a2")) {
            NodeEntry e = entry(plan, n);
            assertThat(e.driverRestart()).as(n).isTrue();
            assertThat(e.driverRestartOnly()).as(n).isTrue();
            assertThat(e.evicts()).as(n).isEmpty();
            assertThat(e.driverUnload()).as(n).isNull();
            assertThat(e.nvidiaDriver()).startsWith("a (pool a-ubuntu22.04");
        }
        // b's node: the full way, its GPU pod evicted, the modules unloaded
        NodeEntry b1 = entry(plan, "b1");
        assertThat(b1.driverRestart()).isTrue();
        assertThat(b1.driverRestartOnly()).isFalse();
        assertThat(b1.evicts()).containsExactly("work/train");
        assertThat(b1.driverUnload()).isEqualTo("driver version " + OLD + " -> " + NEW);
        assertThat(plan.driverUnload()).contains("driver version " + OLD + " -> " + NEW);
        // no NVIDIADriver selects c1: it is in no upgrade
        NodeEntry c1 = entry(plan, "c1");
        assertThat(c1.driverRestart()).isFalse();
        assertThat(c1.nvidiaDriver()).startsWith("none");

        // one upgrade per NVIDIADriver: a's policy lets both of its nodes go at once; b has no
        // upgradePolicy, so upstream's NVIDIADriver defaults (autoUpgrade true, 1, 25%), not the
        // ClusterPolicy's (autoUpgrade false): no note says it stays pending
        assertThat(plan.driverGroups())
                .extracting(RolloutPlan.DriverGroup::driver, RolloutPlan.DriverGroup::batches)
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple("a", List.of(List.of("a1", "a2"))),
                        org.assertj.core.groups.Tuple.tuple("b", List.of(List.of("b1"))));
        assertThat(plan.notes()).isEmpty();
        assertThat(plan.operands())
                .filteredOn(c -> c.operand() == Operand.DRIVER)
                .extracting(OperandChange::change)
                .containsOnly(Change.CHANGED);
        assertThat(plan.operands())
                .filteredOn(c -> c.operand() == Operand.DRIVER)
                .extracting(OperandChange::name)
                .anySatisfy(n -> assertThat(n).endsWith(" (NVIDIADriver a)"))
                .anySatisfy(n -> assertThat(n).endsWith(" (NVIDIADriver b)"));

        String text = plan.text();
        assertThat(text)
                .contains(
                        "    driver path: restart only (driver configuration unchanged: cordon,"
                                + " driver pod replaced, nothing evicted)\n",
                        """
                        Driver upgrade batches of NVIDIADriver a (maxParallelUpgrades 2, \
                        maxUnavailable 100% = 2 of 2 nodes):
                          1: a1, a2
                        Driver upgrade batches of NVIDIADriver b (maxParallelUpgrades 1, \
                        maxUnavailable 25% = 1 of 1 nodes):
                          1: b1
                        Nothing was changed.
                        """)
                .doesNotContain("Driver upgrade batches (");
    }

    @Test
    void anNvidiaDriverWithAutoUpgradeOffIsNotedAndARefusedOneKeepsItsDriver() {
        List<Node> nodes = List.of(node("a1", "a"), node("v1", "v"));
        ClusterPolicySpec policy = spec("useNvidiaDriverCRD: true");
        String held = "upgradePolicy:\n  autoUpgrade: false";
        List<NVIDIADriver> before = List.of(driver("a", "a", OLD, held), driver("v", "v", OLD, ""));
        List<NVIDIADriver> after =
                List.of(
                        driver("a", "a", NEW, held),
                        // refused: its nodes keep the driver they have (fail closed)
                        vgpu(driver("v", "v", NEW, "")));
        RolloutPlanner.Side current = side(policy, nodes, Optional.of(before));

        RolloutPlan plan =
                RolloutPlanner.plan(
                        new RolloutPlanner.Input(
                                Optional.of(current),
                                side(policy, nodes, Optional.of(after)),
                                nodes,
                                runningDrivers(current.pools(), nodes),
                                VersionMatrix.load(),
                                List.of(),
                                null));

        assertThat(entry(plan, "a1").driverRestart()).isTrue();
        assertThat(plan.notes())
                .containsExactly(
                        "NVIDIADriver a: spec.upgradePolicy.autoUpgrade is false: its driver pods"
                                + " (OnDelete) are not restarted and the upgrade stays pending;"
                                + " the batches show the order once it is true");
        NodeEntry v1 = entry(plan, "v1");
        assertThat(v1.driverRestart()).isFalse();
        assertThat(v1.stops()).isEmpty();
        assertThat(v1.nvidiaDriver()).contains(": refused, its driver stays as it is: ");
    }

    @Test
    void switchingToNvidiaDriverModeMovesEachNodeThroughItsDriversUpgradeTheFullWay() {
        List<Node> nodes = List.of(node("a1", "a"), node("a2", "a"));
        ClusterPolicySpec clusterMode = spec("");
        ClusterPolicySpec driverMode = spec("useNvidiaDriverCRD: true");
        // the same driver configuration as the ClusterPolicy's
        List<NVIDIADriver> drivers = List.of(driver("a", "a", OLD, ""));
        RolloutPlanner.Side current = side(clusterMode, nodes, Optional.empty());
        DaemonSet clusterDriver =
                current.desired().enabled().get(Operand.DRIVER).stream()
                        .filter(DaemonSet.class::isInstance)
                        .map(DaemonSet.class::cast)
                        .findFirst()
                        .orElseThrow();
        List<Pod> pods = List.of(driverPod(clusterDriver, "a1"), driverPod(clusterDriver, "a2"));

        RolloutPlanner.Side next = side(driverMode, nodes, Optional.of(drivers));
        DaemonSet pool = next.pools().daemonSets().values().iterator().next();
        assertThat(digest(pool))
                .as("the pool's driver configuration digest is the ClusterPolicy driver's")
                .isEqualTo(digest(clusterDriver));

        RolloutPlan plan =
                RolloutPlanner.plan(
                        new RolloutPlanner.Input(
                                Optional.of(current),
                                next,
                                nodes,
                                pods,
                                VersionMatrix.load(),
                                List.of(),
                                null));

        assertThat(plan.operands())
                .filteredOn(c -> c.operand() == Operand.DRIVER)
                .extracting(OperandChange::name, OperandChange::change)
                .contains(
                        org.assertj.core.groups.Tuple.tuple(
                                Operand.DRIVER.daemonSetName(), Change.REMOVED));
        assertThat(plan.operands())
                .filteredOn(c -> c.name().endsWith("(NVIDIADriver a)"))
                .extracting(OperandChange::change)
                .containsExactly(Change.ADDED);
        // the handover (UpgradeNodes): a pod of another DaemonSet takes the full path, whatever
        // its digest; the same version, so the modules stay
        for (String n : List.of("a1", "a2")) {
            assertThat(entry(plan, n).driverRestart()).as(n).isTrue();
            assertThat(entry(plan, n).driverRestartOnly()).as(n).isFalse();
            assertThat(entry(plan, n).driverUnload()).as(n).isNull();
        }
        // one node at a time: upstream's NVIDIADriver defaults, 1 and 25% of 2
        assertThat(plan.driverGroups())
                .singleElement()
                .satisfies(
                        g -> assertThat(g.batches()).containsExactly(List.of("a1"), List.of("a2")));
    }
}
