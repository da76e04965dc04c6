package org.gpuoperator.controller.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import org.gpuoperator.api.v1.ClusterPolicy;
import org.gpuoperator.api.v1.ClusterPolicyStatus;
import org.gpuoperator.api.v1.State;
import org.gpuoperator.controller.TestPolicies;
import org.gpuoperator.controller.nodes.NodeGate;
import org.gpuoperator.controller.nodes.NodeView;
import org.gpuoperator.controller.nodes.OperandPods.PodState;
import org.gpuoperator.controller.operand.Operand;
import org.gpuoperator.controller.status.ClusterRollup;
import org.gpuoperator.controller.status.NodeSummary;
import org.gpuoperator.controller.status.StatusCalculator;
import org.junit.jupiter.api.Test;

/** The singleton rule and the status reasons that need no running controller. */
class SingletonAndStatusTest {

    private static ClusterPolicy policy(String name, String created) {
        ClusterPolicy p = new ClusterPolicy();
        p.setMetadata(
                new ObjectMetaBuilder().withName(name).withCreationTimestamp(created).build());
        return p;
    }

    @Test
    void oldestPolicyWinsNameBreaksTiesDeletedOnesDoNotCount() {
        ClusterPolicy old = policy("zeta", "2026-01-01T00:00:00Z");
        ClusterPolicy young = policy("alpha", "2026-02-01T00:00:00Z");
        ClusterPolicy twin = policy("beta", "2026-01-01T00:00:00Z");
        assertThat(
                        ClusterPolicyReconciler.activeOf(List.of(young, old))
                                .orElseThrow()
                                .getMetadata()
                                .getName())
                .isEqualTo("zeta");
        assertThat(
                        ClusterPolicyReconciler.activeOf(List.of(old, twin))
                                .orElseThrow()
                                .getMetadata()
                                .getName())
                .isEqualTo("beta");
        old.getMetadata().setDeletionTimestamp("2026-03-01T00:00:00Z");
        assertThat(
                        ClusterPolicyReconciler.activeOf(List.of(old, young))
                                .orElseThrow()
                                .getMetadata()
                                .getName())
                .isEqualTo("alpha");
    }

    @Test
    void ignoredPolicySaysWhichOneIsActive() {
        ClusterPolicyStatus s =
                StatusCalculator.ignored(
                        null, 3, "gpu-operator", "cluster-policy", "2026-01-01T00:00:00Z");
        assertThat(s.getState()).isEqualTo(State.IGNORED);
        Condition error =
                s.getConditions().stream()
                        .filter(c -> c.getType().equals("Error"))
                        .findFirst()
                        .orElseThrow();
        assertThat(error.getStatus()).isEqualTo("True");
        assertThat(error.getMessage()).contains("'cluster-policy'");
    }

    @Test
    void featureDiscoveryAndThePluginAreComparedOnceBothAreReady() {
        Map<String, String> labels = new HashMap<>();
        for (Operand o : Operand.values()) {
            labels.put(o.deployLabel(), "true");
        }
        labels.put("gpuoperator.org/simulated-gpu", "true");
        labels.put("nvidia.com/gpu.count", "8");
        labels.put("nvidia.com/mig.strategy", "single");
        Map<Operand, PodState> pods = new EnumMap<>(Operand.class);
        for (Operand o : Operand.values()) {
            pods.put(o, new PodState(true, "h"));
        }
        NodeView view = new NodeView("n1", labels, Set.of(Operand.values()));
        var plan = NodeGate.plan(view, Set.of(Operand.values()), "gpuoperator.org/simulated-gpu");
        Function<Map<Operand, PodState>, ClusterPolicyStatus> status =
                p ->
                        StatusCalculator.compute(
                                new StatusCalculator.Observation(
                                        1,
                                        "gpu-operator",
                                        TestPolicies.allEnabled(),
                                        ClusterRollup.of(
                                                List.of(
                                                        NodeSummary.of(
                                                                "n1",
                                                                labels,
                                                                plan,
                                                                p,
                                                                Set.of(Operand.values()),
                                                                Map.of(),
                                                                Map.of("nvidia.com/gpu", 8L),
                                                                "mixed",
                                                                null,
                                                                null)))),
                                null,
                                "t");
        assertThat(status.apply(pods).getDisagreements())
                .containsExactly(
                        "n1: feature discovery labels nvidia.com/mig.strategy=single, the policy's"
                                + " mig.strategy is mixed");
        pods.put(Operand.GPU_FEATURE_DISCOVERY, new PodState(false, "h"));
        assertThat(status.apply(pods).getDisagreements()).isNull();
    }

    private static ClusterPolicyStatus statusOf(Map<String, String> labels) {
        NodeView view = new NodeView("n1", labels, Set.of());
        var plan = NodeGate.plan(view, Set.of(Operand.values()), "gpuoperator.org/simulated-gpu");
        ClusterRollup nodes =
                ClusterRollup.of(
                        List.of(
                                NodeSummary.of(
                                        "n1",
                                        labels,
                                        plan,
                                        Map.of(),
                                        Set.of(Operand.values()),
                                        Map.of(),
                                        null,
                                        null,
                                        null,
                                        null)));
        return StatusCalculator.compute(
                new StatusCalculator.Observation(
                        1, "gpu-operator", TestPolicies.allEnabled(), nodes),
                null,
                "t");
    }

    private static Condition ready(ClusterPolicyStatus s) {
        return s.getConditions().stream()
                .filter(c -> c.getType().equals("Ready"))
                .findFirst()
                .orElseThrow();
    }

    @Test
    void noNfdLabelsAndNoGpuNodesAreTellApart() {
        assertThat(ready(statusOf(Map.of())).getReason()).isEqualTo("NFDLabelsMissing");
        assertThat(
                        ready(
                                        statusOf(
                                                Map.of(
                                                        "feature.node.kubernetes.io/cpu-model.vendor_id",
                                                        "Intel")))
                                .getReason())
                .isEqualTo("NoGPUNodes");
        ClusterPolicyStatus gpu =
                statusOf(
                        Map.of(
                                "feature.node.kubernetes.io/pci-10de.present",
                                "true",
                                "nvidia.com/cuda.driver.major",
                                "550",
                                "nvidia.com/cuda.driver.minor",
                                "107",
                                "nvidia.com/cuda.driver.rev",
                                "02"));
        assertThat(ready(gpu).getReason()).isEqualTo("OperandNotReady");
        assertThat(gpu.getDriverVersions()).containsExactly(Map.entry("550.107.02", 1));
        assertThat(gpu.getNodes().getStuckNodes())
                .singleElement()
                .satisfies(n -> assertThat(n.getStep()).isEqualTo("driver"));
    }

    @Test
    void transitionTimeMovesOnlyWhenTheConditionStatusChanges() {
        ClusterPolicyStatus first = statusOf(Map.of());
        ClusterPolicyStatus again =
                StatusCalculator.compute(
                        new StatusCalculator.Observation(
                                1, "gpu-operator", TestPolicies.allEnabled(), new ClusterRollup()),
                        first.getConditions(),
                        "later");
        assertThat(ready(again).getLastTransitionTime()).isEqualTo("t");
        assertThat(ClusterPolicyReconciler.sameStatus(first, again)).isTrue();
    }
}
