package org.gpuoperator.controller.operand;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import java.util.List;
import java.util.Map;
import org.gpuoperator.controller.TestPolicies;
import org.gpuoperator.controller.nvidiadriver.DriverPoolPlan;
import org.gpuoperator.controller.nvidiadriver.DriverPools;
import org.gpuoperator.controller.nvidiadriver.NodeOs;
import org.gpuoperator.controller.policy.DaemonSetSettings;
import org.gpuoperator.controller.policy.PolicySettings;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The labels upstream's users select operands by: {@code kubectl get ds -l app=<name>} finds the
 * DaemonSet, {@code kubectl get pods -l app=<name>} its pods (the selector's label, so the same
 * value on the DaemonSet, its template and its selector); the driver's {@code
 * app.kubernetes.io/component=nvidia-driver}; upstream's {@code app.kubernetes.io/part-of}.
 */
class UpstreamLabelsContractTest {

    private static final String NS = "gpu-operator";
    private final OperandModels renderer = new OperandModels(Map.of());

    /** daemonsets.labels that try to take the labels selectors and scripts rely on. */
    private static PolicySettings withUserLabels() {
        PolicySettings p = TestPolicies.allEnabled();
        DaemonSetSettings d = p.daemonsets();
        return p.withDaemonSets(
                new DaemonSetSettings(
                        Map.of(
                                "app", "mine",
                                "app.kubernetes.io/part-of", "mine",
                                "app.kubernetes.io/component", "mine",
                                "team", "ml"),
                        d.annotations(),
                        d.tolerations(),
                        d.priorityClassName(),
                        d.updateStrategy(),
                        d.maxUnavailable()));
    }

    private DaemonSet ds(Operand o) {
        return renderer.render(withUserLabels(), o, NS).stream()
                .filter(DaemonSet.class::isInstance)
                .map(DaemonSet.class::cast)
                .findFirst()
                .orElseThrow();
    }

    /** What `kubectl get ds,pods -l app=<value>` needs of one DaemonSet. */
    private static void selectedByApp(DaemonSet ds, String app) {
        assertThat(ds.getMetadata().getLabels()).containsEntry("app", app);
        assertThat(ds.getSpec().getTemplate().getMetadata().getLabels())
                .containsEntry("app", app)
                .containsAllEntriesOf(ds.getSpec().getSelector().getMatchLabels());
        assertThat(ds.getSpec().getSelector().getMatchLabels()).containsEntry("app", app);
    }

    @ParameterizedTest
    @EnumSource(Operand.class)
    void everyOperandDaemonSetAndItsPodsCarryAppWithTheDaemonSetsName(Operand o) {
        DaemonSet ds = ds(o);
        selectedByApp(ds, o.daemonSetName());
        assertThat(ds.getMetadata().getName()).isEqualTo(o.daemonSetName());
        // the selector is what it was (immutable on a live DaemonSet)
        assertThat(ds.getSpec().getSelector().getMatchLabels())
                .containsExactly(Map.entry("app", o.daemonSetName()));
        // a user's label is added, never over ours
        assertThat(ds.getSpec().getTemplate().getMetadata().getLabels())
                .containsEntry("team", "ml")
                .containsEntry("app.kubernetes.io/component", o.component());
    }

    @ParameterizedTest
    @EnumSource(Operand.class)
    void partOfIsUpstreamsWhereUpstreamHasOne(Operand o) {
        DaemonSet ds = ds(o);
        Map<String, String> template = ds.getSpec().getTemplate().getMetadata().getLabels();
        String expected =
                switch (o) {
                    case GPU_FEATURE_DISCOVERY -> "nvidia-gpu";
                    case VALIDATOR -> "gpu-operator";
                    default -> null;
                };
        if (expected == null) {
            // upstream has none, and drops the user's as it does everywhere
            assertThat(ds.getMetadata().getLabels()).doesNotContainKey("app.kubernetes.io/part-of");
            assertThat(template).doesNotContainKey("app.kubernetes.io/part-of");
        } else {
            assertThat(ds.getMetadata().getLabels())
                    .containsEntry("app.kubernetes.io/part-of", expected);
            assertThat(template).containsEntry("app.kubernetes.io/part-of", expected);
        }
    }

    @Test
    void theDriverIsUpstreamsNvidiaDriverComponentOnItsDaemonSetPodsAndAccount() {
        DaemonSet ds = ds(Operand.DRIVER);
        assertThat(ds.getMetadata().getLabels())
                .containsEntry("app.kubernetes.io/component", "nvidia-driver");
        assertThat(ds.getSpec().getTemplate().getMetadata().getLabels())
                .containsEntry("app.kubernetes.io/component", "nvidia-driver");
        assertThat(renderer.render(withUserLabels(), Operand.DRIVER, NS))
                .allSatisfy(
                        obj ->
                                assertThat(obj.getMetadata().getLabels())
                                        .containsEntry(
                                                "app.kubernetes.io/component", "nvidia-driver"));
    }

    @Test
    void nvidiaDriverPoolDaemonSetsAreSelectedByTheDriversAppAndComponent() {
        NodeOs os = new NodeOs("ubuntu22.04", "5.15.0-105-generic");
        String id = DriverPools.poolId("a-driver", os);
        DriverPools.Pool pool =
                new DriverPools.Pool(
                        "a-driver", os, id, DriverPools.daemonSetName(os, id), List.of("n1"));
        DaemonSet ds =
                renderer.renderPlaced(
                        withUserLabels(),
                        Operand.DRIVER,
                        NS,
                        "driver",
                        DriverPoolPlan.placement(pool));

        assertThat(ds.getMetadata().getName()).isEqualTo(pool.daemonSetName());
        // every driver DaemonSet, of the ClusterPolicy or of a pool, answers
        // `-l app=nvidia-driver-daemonset` and `-l app.kubernetes.io/component=nvidia-driver`
        selectedByApp(ds, Operand.DRIVER.daemonSetName());
        assertThat(ds.getSpec().getSelector().getMatchLabels())
                .containsExactlyInAnyOrderEntriesOf(
                        Map.of("app", "nvidia-driver-daemonset", DriverPools.POOL_LABEL, id));
        assertThat(ds.getMetadata().getLabels())
                .containsEntry("app.kubernetes.io/component", "nvidia-driver")
                .containsEntry(DriverPools.POOL_LABEL, id);
        assertThat(ds.getSpec().getTemplate().getMetadata().getLabels())
                .containsEntry("app.kubernetes.io/component", "nvidia-driver");
    }
}
