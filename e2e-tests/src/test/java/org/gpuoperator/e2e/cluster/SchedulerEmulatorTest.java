package org.gpuoperator.e2e.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class SchedulerEmulatorTest {

    static Node gpuNode(String name, int gpus, String... labels) {
        NodeBuilder b =
                new NodeBuilder()
                        .withNewMetadata()
                        .withName(name)
                        .addToLabels(SimulatedCluster.SIMULATED_LABEL, "true")
                        .endMetadata()
                        .withNewStatus()
                        .addToAllocatable("cpu", new Quantity("8"))
                        .endStatus();
        if (gpus >= 0) {
            b.editStatus()
                    .addToAllocatable("nvidia.com/gpu", new Quantity(String.valueOf(gpus)))
                    .endStatus();
        }
        for (int i = 0; i < labels.length; i += 2) {
            b.editMetadata().addToLabels(labels[i], labels[i + 1]).endMetadata();
        }
        return b.build();
    }

    static Node cpuNode(String name) {
        return new NodeBuilder().withNewMetadata().withName(name).endMetadata().build();
    }

    static Pod pod(String name, String node, int gpus, String phase) {
        PodBuilder b =
                new PodBuilder()
                        .withNewMetadata()
                        .withName(name)
                        .withNamespace("default")
                        .withUid("uid-" + name)
                        .endMetadata()
                        .withNewSpec()
                        .withNodeName(node)
                        .addNewContainer()
                        .withName("c")
                        .withImage("i")
                        .withNewResources()
                        .endResources()
                        .endContainer()
                        .endSpec();
        if (gpus > 0) {
            b.editSpec()
                    .editFirstContainer()
                    .editResources()
                    .addToLimits("nvidia.com/gpu", new Quantity(String.valueOf(gpus)))
                    .endResources()
                    .endContainer()
                    .endSpec();
        }
        if (phase != null) {
            b.withNewStatus().withPhase(phase).endStatus();
        }
        return b.build();
    }

    @Test
    void aPodGoesToTheFirstGpuNodeWithRoomLeftByItsRunningPods() {
        List<Node> nodes = List.of(cpuNode("a-cpu"), gpuNode("n1", 8), gpuNode("n2", 8));
        Pod want = pod("w", null, 3, null);
        assertThat(SchedulerEmulator.choose(want, nodes, List.of()))
                .isEqualTo(new SchedulerEmulator.Decision.Bind("n1"));
        List<Pod> busy = List.of(pod("x", "n1", 6, "Running"), pod("done", "n2", 8, "Succeeded"));
        assertThat(SchedulerEmulator.choose(want, nodes, busy))
                .isEqualTo(new SchedulerEmulator.Decision.Bind("n2"));
        assertThat(SchedulerEmulator.free(nodes.get(1), busy, null))
                .containsExactly(Map.entry("nvidia.com/gpu", 2));
    }

    @Test
    void aPodWithoutDevicesStillGoesOnlyToAGpuNodeMatchingItsSelector() {
        List<Node> nodes =
                List.of(cpuNode("a-cpu"), gpuNode("n1", 8), gpuNode("n2", 0, "pool", "x"));
        Pod plain =
                new PodBuilder(pod("p", null, 0, null))
                        .editSpec()
                        .withNodeSelector(Map.of("pool", "x"))
                        .endSpec()
                        .build();
        assertThat(SchedulerEmulator.choose(plain, nodes, List.of()))
                .isEqualTo(new SchedulerEmulator.Decision.Bind("n2"));
    }

    @Test
    void whenNothingFitsTheMessageSaysWhyAsTheSchedulerDoes() {
        List<Node> nodes =
                List.of(
                        cpuNode("a-cpu"),
                        gpuNode("n1", 1),
                        gpuNode("n2", 8, "pool", "y"),
                        gpuNode("n3", -1));
        Pod want =
                new PodBuilder(pod("w", null, 2, null))
                        .editSpec()
                        .withNodeSelector(Map.of())
                        .endSpec()
                        .build();
        assertThat(SchedulerEmulator.choose(want, nodes, List.of(pod("x", "n2", 7, "Running"))))
                .isEqualTo(
                        new SchedulerEmulator.Decision.Unschedulable(
                                "0/4 nodes are available: 3 Insufficient nvidia.com/gpu, 1 node(s) are not simulated GPU nodes."));
        Pod selective =
                new PodBuilder(want)
                        .editSpec()
                        .withNodeSelector(Map.of("pool", "z"))
                        .endSpec()
                        .build();
        assertThat(SchedulerEmulator.choose(selective, nodes, List.of()))
                .isEqualTo(
                        new SchedulerEmulator.Decision.Unschedulable(
                                "0/4 nodes are available: 3 node(s) didn't match Pod's node affinity/selector,"
                                        + " 1 node(s) are not simulated GPU nodes."));
    }

    @Test
    void onlyUnboundLiveUnfinishedPodsArePending() {
        assertThat(SchedulerEmulator.pending(pod("a", null, 1, null))).isTrue();
        assertThat(SchedulerEmulator.pending(pod("a", "", 1, "Pending"))).isTrue();
        assertThat(SchedulerEmulator.pending(pod("a", "n1", 1, null))).isFalse();
        assertThat(SchedulerEmulator.pending(pod("a", null, 1, "Failed"))).isFalse();
        Pod deleting =
                new PodBuilder(pod("a", null, 1, null))
                        .editMetadata()
                        .withDeletionTimestamp("2026-01-01T00:00:00Z")
                        .endMetadata()
                        .build();
        assertThat(SchedulerEmulator.pending(deleting)).isFalse();
    }

    /** Nodes with a kubelet: the GPU nodes and {@code cpu-*} ones. */
    static boolean runsPods(Node n) {
        return SchedulerEmulator.gpuNode(n) || n.getMetadata().getName().startsWith("cpu");
    }

    static Node cpuNodeWithKubelet(String name) {
        return new NodeBuilder()
                .withNewMetadata()
                .withName(name)
                .endMetadata()
                .withNewStatus()
                .addToAllocatable("cpu", new Quantity("2"))
                .addToAllocatable("memory", new Quantity("4Gi"))
                .addToAllocatable("pods", new Quantity("110"))
                .endStatus()
                .build();
    }

    @Test
    void aPodWithoutDevicesMayGoToACpuNodeAndAGpuPodOnlyToAGpuNode() {
        List<Node> nodes = List.of(cpuNodeWithKubelet("cpu-1"), gpuNode("n1", 8), cpuNode("x"));
        assertThat(
                        SchedulerEmulator.choose(
                                pod("plain", null, 0, null),
                                nodes,
                                List.of(),
                                SchedulerEmulatorTest::runsPods,
                                "have no kubelet"))
                .isEqualTo(new SchedulerEmulator.Decision.Bind("cpu-1"));
        assertThat(
                        SchedulerEmulator.choose(
                                pod("gpu", null, 1, null),
                                nodes,
                                List.of(),
                                SchedulerEmulatorTest::runsPods,
                                "have no kubelet"))
                .isEqualTo(new SchedulerEmulator.Decision.Bind("n1"));
    }

    @Test
    void taintsCordonsAndCpuOrMemoryKeepPodsAwayAsTheSchedulerSays() {
        Node tainted =
                new NodeBuilder(cpuNodeWithKubelet("cpu-1"))
                        .withNewSpec()
                        .addNewTaint()
                        .withKey("node-role.kubernetes.io/control-plane")
                        .withEffect("NoSchedule")
                        .endTaint()
                        .endSpec()
                        .build();
        Node cordoned =
                new NodeBuilder(cpuNodeWithKubelet("cpu-2"))
                        .withNewSpec()
                        .withUnschedulable(true)
                        .endSpec()
                        .build();
        Node small = cpuNodeWithKubelet("cpu-3");
        Pod hungry =
                new PodBuilder(pod("big", null, 0, null))
                        .editSpec()
                        .editFirstContainer()
                        .editResources()
                        .addToRequests("cpu", new Quantity("1500m"))
                        .endResources()
                        .endContainer()
                        .endSpec()
                        .build();
        List<Node> nodes = List.of(tainted, cordoned, small);
        Pod busy =
                new PodBuilder(hungry)
                        .editMetadata()
                        .withName("busy")
                        .withUid("uid-busy")
                        .endMetadata()
                        .editSpec()
                        .withNodeName("cpu-3")
                        .endSpec()
                        .build();
        assertThat(
                        SchedulerEmulator.choose(
                                hungry,
                                nodes,
                                List.of(busy),
                                SchedulerEmulatorTest::runsPods,
                                "have no kubelet"))
                .isEqualTo(
                        new SchedulerEmulator.Decision.Unschedulable(
                                "0/3 nodes are available: 1 Insufficient cpu, 1 node(s) had"
                                        + " untolerated taint {node-role.kubernetes.io/control-plane},"
                                        + " 1 node(s) were unschedulable."));
        Pod tolerant =
                new PodBuilder(hungry)
                        .editSpec()
                        .addNewToleration()
                        .withKey("node-role.kubernetes.io/control-plane")
                        .withOperator("Exists")
                        .withEffect("NoSchedule")
                        .endToleration()
                        .endSpec()
                        .build();
        assertThat(
                        SchedulerEmulator.choose(
                                tolerant,
                                nodes,
                                List.of(busy),
                                SchedulerEmulatorTest::runsPods,
                                "have no kubelet"))
                .isEqualTo(new SchedulerEmulator.Decision.Bind("cpu-1"));
    }
}
