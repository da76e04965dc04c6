package org.gpuoperator.controller.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.gpuoperator.controller.metrics.OperatorMetrics;
import org.gpuoperator.controller.operand.Operand;
import org.gpuoperator.controller.operand.PodContract;
import org.gpuoperator.controller.upgrade.UpgradeKeys;
import org.gpuoperator.controller.upgrade.UpgradeNode;
import org.gpuoperator.controller.upgrade.UpgradePlan;
import org.gpuoperator.controller.upgrade.UpgradePolicy;
import org.gpuoperator.controller.upgrade.UpgradeSummary;
import org.junit.jupiter.api.Test;

/** The wiring's own decisions, over in-memory caches: what it asks again, when it comes back. */
class DriverUpgradeTest {

    private final MutableClock clock = new MutableClock();
    private final List<String> evicted = new ArrayList<>();
    private final List<List<Map<String, Object>>> patches = new ArrayList<>();
    private PodEvictions.Outcome outcome = PodEvictions.Outcome.EVICTED;

    private final Node node =
            new NodeBuilder()
                    .withNewMetadata()
                    .withName("n")
                    .withResourceVersion("1")
                    .withLabels(Map.of(UpgradeKeys.STATE_LABEL, "pod-deletion-required"))
                    .withAnnotations(
                            Map.of(
                                    UpgradeKeys.POD_DELETION_START,
                                    Long.toString(clock.instant().getEpochSecond() - 100)))
                    .endMetadata()
                    .withNewSpec()
                    .withUnschedulable(true)
                    .endSpec()
                    .withNewStatus()
                    .addNewCondition()
                    .withType("Ready")
                    .withStatus("True")
                    .endCondition()
                    .endStatus()
                    .build();

    private final Pod driver =
            new PodBuilder()
                    .withNewMetadata()
                    .withName("driver-n")
                    .withNamespace("gpu-operator")
                    .withUid("d1")
                    .withLabels(
                            Map.of(
                                    PodContract.APP_LABEL,
                                    Operand.DRIVER.daemonSetName(),
                                    PodContract.MANAGED_BY_LABEL,
                                    PodContract.MANAGED_BY))
                    .withAnnotations(Map.of(PodContract.TEMPLATE_HASH_ANNOTATION, "old"))
                    .endMetadata()
                    .withNewSpec()
                    .withNodeName("n")
                    .endSpec()
                    .build();

    private final Pod work =
            new PodBuilder()
                    .withNewMetadata()
                    .withName("train")
                    .withNamespace("work")
                    .withUid("w1")
                    .addNewOwnerReference()
                    .withKind("ReplicaSet")
                    .withName("rs")
                    .withController(true)
                    .endOwnerReference()
                    .endMetadata()
                    .withNewSpec()
                    .withNodeName("n")
                    .addNewContainer()
                    .withName("c")
                    .withNewResources()
                    .withLimits(Map.of("nvidia.com/gpu", new Quantity("1")))
                    .endResources()
                    .endContainer()
                    .endSpec()
                    .withNewStatus()
                    .withPhase("Running")
                    .endStatus()
                    .build();

    /** The validator's check pod: a GPU pod of no controller, in the operator's namespace. */
    private final Pod cudaCheck =
            new PodBuilder(work)
                    .editMetadata()
                    .withName("nvidia-cuda-validator-n")
                    .withNamespace("gpu-operator")
                    .withUid("c1")
                    .withOwnerReferences()
                    .endMetadata()
                    .build();

    private final DriverUpgrade upgrade =
            new DriverUpgrade(
                    "gpu-operator",
                    new DriverUpgrade.Caches() {
                        @Override
                        public Stream<Node> nodes() {
                            return Stream.of(node);
                        }

                        @Override
                        public List<Pod> operandPodsOn(String n) {
                            return List.of(driver);
                        }

                        @Override
                        public List<Pod> podsOn(String n) {
                            return List.of(driver, work, cudaCheck);
                        }
                    },
                    (n, ops) -> {
                        patches.add(ops);
                        return null;
                    },
                    new PodEvictions() {
                        @Override
                        public Outcome evict(String namespace, String name) {
                            evicted.add(namespace + "/" + name);
                            return outcome;
                        }

                        @Override
                        public void delete(String namespace, String name) {}
                    },
                    new OperatorMetrics(new PrometheusRegistry()),
                    clock);

    @Test
    void anEvictionIsAskedOnceAndThePassComesBackAtThePodDeletionDeadline() {
        DriverUpgrade.Result first =
                upgrade.pass(UpgradePolicy.defaultsWithAutoUpgrade(), "new", Map.of());
        assertThat(evicted)
                .as("the operator's own pods are not workloads to evict")
                .containsExactly("work/train");
        assertThat(first.plan().lines()).noneMatch(l -> l.contains("nvidia-cuda-validator"));
        assertThat(first.requeueAfter()).contains(Duration.ofSeconds(200));
        assertThat(patches).as("the timer is already on the node").isEmpty();

        // the cache does not show the eviction yet: not asked again
        upgrade.pass(UpgradePolicy.defaultsWithAutoUpgrade(), "new", Map.of());
        assertThat(evicted).containsExactly("work/train");
    }

    @Test
    void anEvictionAPodDisruptionBudgetRefusesIsRetriedSoonAndAskedAgain() {
        outcome = PodEvictions.Outcome.BLOCKED;
        DriverUpgrade.Result first =
                upgrade.pass(UpgradePolicy.defaultsWithAutoUpgrade(), "new", Map.of());
        assertThat(first.requeueAfter()).contains(DriverUpgrade.BLOCKED_EVICTION_RETRY);
        DriverUpgrade.Result second =
                upgrade.pass(UpgradePolicy.defaultsWithAutoUpgrade(), "new", Map.of());
        assertThat(evicted).containsExactly("work/train", "work/train");
        assertThat(second.plan().lines())
                .anySatisfy(l -> assertThat(l).contains("(blocked by a PodDisruptionBudget)"));
    }

    @Test
    void withAutoUpgradeOffOnlyTheStateLabelGoesAndNothingComesBack() {
        DriverUpgrade.Result r = upgrade.pass(UpgradePolicy.from(null), "new", Map.of());
        assertThat(evicted).isEmpty();
        // as upstream's: no upgrade state label is left behind, nothing else is written
        assertThat(patches)
                .containsExactly(
                        List.of(
                                Map.of(
                                        "op",
                                        "remove",
                                        "path",
                                        "/metadata/labels/nvidia.com~1gpu-driver-upgrade-state")));
        assertThat(r.requeueAfter()).isEmpty();
    }

    @Test
    void perNvidiaDriverTheNodeFollowsItsGroupsPolicyAndTheLinesNameTheGroup() {
        DriverUpgrade.Result r =
                upgrade.pass(
                        Map.of(
                                "a-driver", UpgradePolicy.defaultsWithAutoUpgrade(),
                                "b-driver", UpgradePolicy.from(null)),
                        n -> "a-driver",
                        n -> "new",
                        n -> null,
                        Map.of(),
                        null);

        assertThat(evicted).containsExactly("work/train");
        assertThat(r.nodes()).extracting(UpgradeNode::name).containsExactly("n");
        assertThat(r.plan().lines())
                .isNotEmpty()
                .allMatch(l -> l.startsWith("nvidiadriver a-driver: "));
        assertThat(r.plan().summary().autoUpgrade()).isTrue();
    }

    @Test
    void aNodeOfNoNvidiaDriverIsLeftAlone() {
        DriverUpgrade.Result r =
                upgrade.pass(
                        Map.of("a-driver", UpgradePolicy.defaultsWithAutoUpgrade()),
                        n -> null,
                        n -> "new",
                        n -> null,
                        Map.of(),
                        null);

        assertThat(evicted).isEmpty();
        assertThat(patches).isEmpty();
        assertThat(r.nodes()).isEmpty();
    }

    @Test
    void thePlansOfSeveralGroupsAreSummed() {
        UpgradePlan a =
                new UpgradePlan(
                        List.of(),
                        new UpgradeSummary(1, 2, 0, 1, 0, true),
                        List.of("node x: waiting"));
        UpgradePlan b =
                new UpgradePlan(List.of(), new UpgradeSummary(0, 3, 1, 0, 2, false), List.of());

        UpgradePlan sum = DriverUpgrade.merge(List.of("a", "b"), List.of(a, b));

        assertThat(sum.summary()).isEqualTo(new UpgradeSummary(1, 5, 1, 1, 2, true));
        assertThat(sum.lines()).containsExactly("nvidiadriver a: node x: waiting");
        assertThat(DriverUpgrade.merge(List.of(""), List.of(a))).isSameAs(a);
    }

    @Test
    void aNamedGroupsLinesNameItsNvidiaDriversUpgradePolicy() {
        UpgradePlan held =
                new UpgradePlan(
                        List.of(),
                        new UpgradeSummary(0, 0, 0, 1, 1, false),
                        List.of(
                                "driver upgrade pending on 1 node(s) (n): "
                                        + UpgradePolicy.FIELD
                                        + ".autoUpgrade is false"));

        assertThat(DriverUpgrade.merge(List.of("b"), List.of(held)).lines())
                .containsExactly(
                        "nvidiadriver b: driver upgrade pending on 1 node(s) (n):"
                                + " spec.upgradePolicy.autoUpgrade is false");
        assertThat(DriverUpgrade.merge(List.of(""), List.of(held)).lines())
                .containsExactly(
                        "driver upgrade pending on 1 node(s) (n):"
                                + " spec.driver.upgradePolicy.autoUpgrade is false");
    }
}
