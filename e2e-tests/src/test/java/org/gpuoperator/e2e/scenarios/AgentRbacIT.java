package org.gpuoperator.e2e.scenarios;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.gpuoperator.e2e.apiserver.ApiCall;
import org.gpuoperator.e2e.cluster.NodeProgress;
import org.gpuoperator.e2e.cluster.Pods;
import org.gpuoperator.e2e.cluster.SimulatedCluster;
import org.gpuoperator.e2e.node.SimulatedNode;
import org.junit.jupiter.api.Test;

/**
 * One GPU node through the operand lifecycle (join, every operand ready, policy deleted, every pod
 * gone), pods as containers, then {@link AgentRbac}: each agent's recorded calls against its
 * rendered RBAC.
 */
class AgentRbacIT {

    private static final Duration CONVERGE = Duration.ofMinutes(4);

    @Test
    void everyAgentUsesExactlyTheRbacItIsGranted() throws Exception {
        List<String> events = Collections.synchronizedList(new ArrayList<>());
        try (SimulatedCluster cluster = Scenarios.start(events)) {
            assumeTrue(
                    cluster.podsAsContainers(),
                    "pods run as host processes here: agents call with the admin kubeconfig, not"
                            + " their service accounts");
            var client = cluster.client();
            SimulatedNode node = cluster.addGpuNode("gpu-node-1");
            cluster.startController();
            GenericKubernetesResource cp = Scenarios.samplePolicy(Scenarios.SIMULATED_POLICY);
            client.genericKubernetesResources(SimulatedCluster.CLUSTER_POLICIES)
                    .resource(cp)
                    .create();
            await().atMost(CONVERGE)
                    .pollInterval(Duration.ofMillis(500))
                    .untilAsserted(
                            () -> {
                                NodeProgress p =
                                        Scenarios.progress(
                                                cluster, node.name(), NodeProgress.STEPS.keySet());
                                assertThat(p.ready()).as(p.describe()).isTrue();
                                // the validator has run every check, workload pods included
                                assertThat(
                                                cluster.operandPodsOn(node.name()).stream()
                                                        .filter(
                                                                pod ->
                                                                        "validator"
                                                                                .equals(
                                                                                        pod.getMetadata()
                                                                                                .getLabels()
                                                                                                .get(
                                                                                                        "app.kubernetes.io/name")))
                                                        .anyMatch(Pods::isReady))
                                        .as("validator Ready on %s", node.name())
                                        .isTrue();
                            });
            List<HasMetadata> rendered = AgentRbac.rendered(client);
            assertThat(rendered).as("RBAC objects the controller created").isNotEmpty();
            client.genericKubernetesResources(SimulatedCluster.CLUSTER_POLICIES)
                    .withName(cp.getMetadata().getName())
                    .delete();
            await().atMost(CONVERGE)
                    .untilAsserted(() -> assertThat(node.pods().runningPods()).isEmpty());

            Set<ApiCall> calls = cluster.api().calls();
            System.out.println(
                    "callers: "
                            + calls.stream()
                                    .map(ApiCall::user)
                                    .collect(
                                            java.util.stream.Collectors.toCollection(
                                                    TreeSet::new)));
            Set<String> agentCalls = new TreeSet<>();
            for (ApiCall c : calls) {
                if (c.user().startsWith("system:serviceaccount:")) {
                    agentCalls.add(c.toString());
                }
            }
            System.out.println("service-account calls:\n  " + String.join("\n  ", agentCalls));
            assertThat(agentCalls).as("no call from any service account was recorded").isNotEmpty();
            assertThat(AgentRbac.violations(rendered, calls)).isEmpty();
        }
    }
}
