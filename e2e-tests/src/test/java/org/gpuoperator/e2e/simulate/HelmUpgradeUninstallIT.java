package org.gpuoperator.e2e.simulate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.client.KubernetesClient;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.gpuoperator.e2e.cluster.NodeProgress;
import org.gpuoperator.e2e.cluster.Pods;
import org.gpuoperator.e2e.cluster.SimulatedCluster;
import org.gpuoperator.e2e.simulate.HelmSequence.Manifest;
import org.junit.jupiter.api.Test;

/**
 * Issue 26: the chart's release lifecycle with the operator running as the pod of its Deployment on
 * the simulated cluster, Helm's steps played by {@link SimulatedHelm} in Helm's order. {@code helm
 * install} brings a GPU node to ready; {@code helm upgrade} to chart 0.2.0 applies its CRD first
 * (pre-upgrade hook), then replaces the operator's pod, and no operand pod restarts; {@code helm
 * uninstall}'s pre-delete hook deletes the ClusterPolicy while the operator still runs, so its
 * cleanup takes the operator's labels off the node, and then nothing of the release remains.
 */
class HelmUpgradeUninstallIT {

    private static final Path REPO = RepoRoot.find();
    private static final String NS = SimulatedCluster.NAMESPACE;
    private static final String NODE = "gpu-node-1";
    private static final String PROFILE = "t4-x1";
    private static final Duration CONVERGE = Duration.ofMinutes(4);

    @Test
    void upgradeReplacesOnlyTheOperatorAndUninstallRestoresTheNode() throws Exception {
        assumeTrue(Files.isExecutable(SimulatedHelm.KUBECTL), "hook Jobs run /usr/bin/kubectl");
        List<String> events = Collections.synchronizedList(new ArrayList<>());
        try (SimulatedCluster cluster =
                SimulatedCluster.start(
                        new SimulatedCluster.Options(
                                REPO, true, ControllerLauncher::start, events::add))) {
            assumeTrue(cluster.podsAsContainers(), "the operator's pod needs containers");
            KubernetesClient client = cluster.client();
            cluster.addGpuNode(NODE);
            cluster.addControlPlaneNode(SimulatedCluster.CONTROL_PLANE_NODE);
            Path dir = cluster.workDir();
            String v1 = ChartInstall.of(REPO, List.of(), List.of()).renderWithHooks(PROFILE, dir);
            String v2 =
                    new ChartInstall(ChartVersions.v020(dir), List.of(), List.of())
                            .renderWithHooks(PROFILE, dir);
            try (SimulatedHelm helm = new SimulatedHelm(cluster, dir, events::add)) {

                helm.install(v1);
                awaitNodeReady(cluster, events);
                Pod oldOperator = operatorPod(client);
                Map<String, String> operands = operandPods(cluster);

                helm.upgrade(v1, v2);
                assertThat(
                                events.indexOf(
                                        "pre-upgrade hook: created Job/"
                                                + NS
                                                + "/gpu-operator-upgrade-crd"))
                        .as("CRDs first, then the operator: %s", events)
                        .isNotNegative()
                        .isLessThan(
                                events.indexOf(
                                        "helm upgrade: applied Deployment/"
                                                + NS
                                                + "/gpu-operator"));
                await().atMost(Duration.ofMinutes(3))
                        .pollInterval(Duration.ofMillis(250))
                        .ignoreExceptions()
                        .untilAsserted(
                                () -> {
                                    List<Pod> pods = operatorPods(client);
                                    assertThat(pods).as("one operator pod").hasSize(1);
                                    Pod now = pods.getFirst();
                                    assertThat(now.getMetadata().getUid())
                                            .isNotEqualTo(oldOperator.getMetadata().getUid());
                                    assertThat(now.getMetadata().getAnnotations())
                                            .containsEntry(
                                                    ChartVersions.VERSION_ANNOTATION, "0.2.0");
                                    assertThat(Pods.isReady(now)).as("0.2.0's pod ready").isTrue();
                                });
                awaitNodeReady(cluster, events);
                assertThat(operandPods(cluster))
                        .as("the operator's upgrade restarts no operand pod\n%s", tail(events))
                        .isEqualTo(operands);

                helm.uninstall(v2);
                assertThat(
                                events.indexOf(
                                        "pre-delete hook: created Job/"
                                                + NS
                                                + "/gpu-operator-cleanup"))
                        .as("the policy goes while the operator runs: %s", events)
                        .isNotNegative()
                        .isLessThan(
                                events.indexOf(
                                        "helm uninstall: deleted Deployment/"
                                                + NS
                                                + "/gpu-operator"));
                for (Manifest m : HelmSequence.parse(v2)) {
                    assertThat(SimulatedHelmTest.exists(client, m))
                            .as(m.key() + " after uninstall")
                            .isFalse();
                }
                Node node = client.nodes().withName(NODE).get();
                assertThat(node.getMetadata().getLabels())
                        .as("the operator's cleanup took its labels off the node")
                        .doesNotContainKey("nvidia.com/gpu.present")
                        .doesNotContainKey("nvidia.com/gpu.deploy.driver")
                        .doesNotContainKey("nvidia.com/gpu.deploy.device-plugin");
                await().atMost(Duration.ofMinutes(2))
                        .pollInterval(Duration.ofMillis(250))
                        .untilAsserted(
                                () ->
                                        assertThat(cluster.operandPodsOn(NODE))
                                                .as("operand pods garbage-collected")
                                                .isEmpty());
            }
        }
    }

    private static void awaitNodeReady(SimulatedCluster cluster, List<String> events) {
        Set<String> steps = new LinkedHashSet<>(NodeProgress.STEPS.keySet());
        await().atMost(CONVERGE)
                .pollInterval(Duration.ofMillis(250))
                .untilAsserted(
                        () -> {
                            NodeProgress p =
                                    NodeProgress.of(
                                            cluster.client().nodes().withName(NODE).get(),
                                            cluster.operandPodsOn(NODE),
                                            steps);
                            assertThat(p.ready()).as(p.describe() + "\n" + tail(events)).isTrue();
                        });
    }

    private static String tail(List<String> events) {
        synchronized (events) {
            return String.join(
                    "\n", events.subList(Math.max(0, events.size() - 60), events.size()));
        }
    }

    private static List<Pod> operatorPods(KubernetesClient client) {
        return client
                .pods()
                .inNamespace(NS)
                .withLabel("app.kubernetes.io/component", "operator-controller")
                .list()
                .getItems()
                .stream()
                .filter(p -> p.getMetadata().getDeletionTimestamp() == null)
                .toList();
    }

    private static Pod operatorPod(KubernetesClient client) {
        List<Pod> pods = operatorPods(client);
        assertThat(pods).hasSize(1);
        return pods.getFirst();
    }

    /**
     * Each operand DaemonSet's pod on the node by name, with its containers' restart counts. The
     * validator's workload pods are left out: each lives only while its check runs, and the
     * validator deletes it once done, whatever the operator does.
     */
    private static Map<String, String> operandPods(SimulatedCluster cluster) {
        Map<String, String> out = new TreeMap<>();
        for (Pod p : cluster.operandPodsOn(NODE)) {
            if (p.getMetadata().getOwnerReferences() == null
                    || p.getMetadata().getOwnerReferences().stream()
                            .noneMatch(o -> "DaemonSet".equals(o.getKind()))) {
                continue;
            }
            out.put(
                    p.getMetadata().getName(),
                    p.getMetadata().getUid()
                            + " restarts "
                            + (p.getStatus() == null || p.getStatus().getContainerStatuses() == null
                                    ? 0
                                    : p.getStatus().getContainerStatuses().stream()
                                            .mapToInt(c -> c.getRestartCount())
                                            .sum()));
        }
        return out;
    }
}
