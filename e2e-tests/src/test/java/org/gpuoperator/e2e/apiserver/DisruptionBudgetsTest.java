package org.gpuoperator.e2e.apiserver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.LabelSelector;
import io.fabric8.kubernetes.api.model.LabelSelectorBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudgetBuilder;
import java.util.List;
import java.util.Map;
import org.gpuoperator.e2e.apiserver.DisruptionBudgets.Allowed;
import org.gpuoperator.e2e.apiserver.DisruptionBudgets.Health;
import org.gpuoperator.e2e.apiserver.DisruptionBudgets.MoreThanOneBudget;
import org.gpuoperator.e2e.apiserver.DisruptionBudgets.Refused;
import org.junit.jupiter.api.Test;

class DisruptionBudgetsTest {

    private static Pod pod(String name, String phase, boolean ready, Map<String, String> labels) {
        return new PodBuilder()
                .withNewMetadata()
                .withName(name)
                .withNamespace("ns")
                .withLabels(labels)
                .endMetadata()
                .withNewStatus()
                .withPhase(phase)
                .addNewCondition()
                .withType("Ready")
                .withStatus(ready ? "True" : "False")
                .endCondition()
                .endStatus()
                .build();
    }

    private static Pod ready(String name) {
        return pod(name, "Running", true, Map.of("app", "gpu"));
    }

    private static PodDisruptionBudget budget(
            String name, IntOrString minAvailable, IntOrString maxUnavailable) {
        return new PodDisruptionBudgetBuilder()
                .withNewMetadata()
                .withName(name)
                .withNamespace("ns")
                .endMetadata()
                .withNewSpec()
                .withMinAvailable(minAvailable)
                .withMaxUnavailable(maxUnavailable)
                .withNewSelector()
                .withMatchLabels(Map.of("app", "gpu"))
                .endSelector()
                .endSpec()
                .build();
    }

    private static PodDisruptionBudget minAvailable(IntOrString n) {
        return budget("pdb", n, null);
    }

    private static PodDisruptionBudget maxUnavailable(IntOrString n) {
        return budget("pdb", null, n);
    }

    private static LabelSelector expression(String key, String operator, String... values) {
        return new LabelSelectorBuilder()
                .addNewMatchExpression()
                .withKey(key)
                .withOperator(operator)
                .withValues(values)
                .endMatchExpression()
                .build();
    }

    // ---- selectors

    @Test
    void matchLabelsSelectPodsCarryingEveryLabel() {
        LabelSelector s =
                new LabelSelectorBuilder()
                        .withMatchLabels(Map.of("app", "gpu", "tier", "a"))
                        .build();
        assertThat(DisruptionBudgets.selects(s, pod("p", "Running", true, Map.of("app", "gpu"))))
                .isFalse();
        assertThat(
                        DisruptionBudgets.selects(
                                s,
                                pod(
                                        "p",
                                        "Running",
                                        true,
                                        Map.of("app", "gpu", "tier", "a", "x", "y"))))
                .isTrue();
    }

    @Test
    void matchExpressionsInNotInExistsAndDoesNotExist() {
        Pod gpu = pod("p", "Running", true, Map.of("app", "gpu"));
        Pod bare = pod("q", "Running", true, Map.of());

        assertThat(DisruptionBudgets.selects(expression("app", "In", "gpu", "cpu"), gpu)).isTrue();
        assertThat(DisruptionBudgets.selects(expression("app", "In", "cpu"), gpu)).isFalse();
        assertThat(DisruptionBudgets.selects(expression("app", "In", "gpu"), bare)).isFalse();

        assertThat(DisruptionBudgets.selects(expression("app", "NotIn", "cpu"), gpu)).isTrue();
        assertThat(DisruptionBudgets.selects(expression("app", "NotIn", "gpu"), gpu)).isFalse();
        assertThat(DisruptionBudgets.selects(expression("app", "NotIn", "gpu"), bare)).isTrue();

        assertThat(DisruptionBudgets.selects(expression("app", "Exists"), gpu)).isTrue();
        assertThat(DisruptionBudgets.selects(expression("app", "Exists"), bare)).isFalse();

        assertThat(DisruptionBudgets.selects(expression("app", "DoesNotExist"), gpu)).isFalse();
        assertThat(DisruptionBudgets.selects(expression("app", "DoesNotExist"), bare)).isTrue();
    }

    @Test
    void labelsAndExpressionsMustAllHold() {
        LabelSelector s =
                new LabelSelectorBuilder()
                        .withMatchLabels(Map.of("app", "gpu"))
                        .addNewMatchExpression()
                        .withKey("tier")
                        .withOperator("Exists")
                        .endMatchExpression()
                        .build();
        assertThat(DisruptionBudgets.selects(s, pod("p", "Running", true, Map.of("app", "gpu"))))
                .isFalse();
        assertThat(
                        DisruptionBudgets.selects(
                                s, pod("p", "Running", true, Map.of("app", "gpu", "tier", "b"))))
                .isTrue();
    }

    @Test
    void aMissingEmptyOrUnreadableSelectorSelectsNothing() {
        Pod gpu = ready("p");
        assertThat(DisruptionBudgets.selects(null, gpu)).isFalse();
        assertThat(DisruptionBudgets.selects(new LabelSelector(), gpu)).isFalse();
        assertThat(DisruptionBudgets.selects(expression("app", "Near", "gpu"), gpu)).isFalse();
    }

    // ---- the disruption controller's numbers

    @Test
    void minAvailableCountsTheReadyRunningPodsAboveIt() {
        List<Pod> pods =
                List.of(
                        ready("a"),
                        ready("b"),
                        ready("c"),
                        pod("d", "Running", false, Map.of("app", "gpu")),
                        pod("other", "Running", true, Map.of("app", "web")));

        assertThat(DisruptionBudgets.health(minAvailable(new IntOrString(2)), pods))
                .isEqualTo(new Health(4, 3, 2, 1));
    }

    @Test
    void aPercentageOfTheExpectedPodsIsRoundedUp() {
        List<Pod> pods = List.of(ready("a"), ready("b"), ready("c"));

        // 50% of 3 is 1.5: minAvailable 2, maxUnavailable 2
        assertThat(DisruptionBudgets.health(minAvailable(new IntOrString("50%")), pods))
                .isEqualTo(new Health(3, 3, 2, 1));
        assertThat(DisruptionBudgets.health(maxUnavailable(new IntOrString("50%")), pods))
                .isEqualTo(new Health(3, 3, 1, 2));
    }

    @Test
    void maxUnavailableLeavesTheExpectedPodsLessItHealthy() {
        List<Pod> pods =
                List.of(ready("a"), ready("b"), pod("c", "Running", false, Map.of("app", "gpu")));

        // 3 expected, 1 may be unavailable: 2 must be healthy, 2 are, nothing to spare
        assertThat(DisruptionBudgets.health(maxUnavailable(new IntOrString(1)), pods))
                .isEqualTo(new Health(3, 2, 2, 0));
        assertThat(DisruptionBudgets.health(maxUnavailable(new IntOrString(5)), pods))
                .isEqualTo(new Health(3, 2, 0, 2));
    }

    @Test
    void disruptionsAllowedNeverGoesBelowZero() {
        assertThat(DisruptionBudgets.health(minAvailable(new IntOrString(3)), List.of(ready("a"))))
                .isEqualTo(new Health(1, 1, 3, 0));
    }

    @Test
    void podsBeingDeletedAreNeitherExpectedNorHealthy() {
        Pod leaving =
                new PodBuilder(ready("b"))
                        .editMetadata()
                        .withDeletionTimestamp("2026-01-01T00:00:00Z")
                        .endMetadata()
                        .build();

        assertThat(
                        DisruptionBudgets.health(
                                minAvailable(new IntOrString(1)), List.of(ready("a"), leaving)))
                .isEqualTo(new Health(1, 1, 1, 0));
    }

    @Test
    void aValueThatIsNeitherNumberNorPercentageNamesTheBudgetAndField() {
        PodDisruptionBudget bad = minAvailable(new IntOrString("half"));

        assertThatThrownBy(() -> DisruptionBudgets.health(bad, List.of(ready("a"))))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(
                        "PodDisruptionBudget pdb: spec.minAvailable \"half\" is neither a number"
                                + " nor a percentage");
    }

    // ---- verdicts

    @Test
    void aPodNoBudgetSelectsMayGo() {
        Pod web = pod("w", "Running", true, Map.of("app", "web"));

        assertThat(
                        DisruptionBudgets.evict(
                                web, List.of(minAvailable(new IntOrString(1))), List.of(web)))
                .isEqualTo(new Allowed(null, null, false));
    }

    @Test
    void theLastHealthyPodOfABudgetIsRefusedWithKubeApiserversCause() {
        Pod a = ready("a");
        PodDisruptionBudget pdb = budget("gpu-pdb", new IntOrString(1), null);

        var verdict = DisruptionBudgets.evict(a, List.of(pdb), List.of(a));

        assertThat(verdict).isInstanceOf(Refused.class);
        assertThat(((Refused) verdict).cause())
                .isEqualTo(
                        "The disruption budget gpu-pdb needs 1 healthy pods and has 1 currently");
    }

    @Test
    void aSpareHealthyPodMayGoAndUsesUpADisruption() {
        Pod a = ready("a");
        PodDisruptionBudget pdb = minAvailable(new IntOrString(1));

        assertThat(DisruptionBudgets.evict(a, List.of(pdb), List.of(a, ready("b"))))
                .isEqualTo(new Allowed(pdb, new Health(2, 2, 1, 1), true));
    }

    @Test
    void twoBudgetsOverOnePodAreRefusedWhateverTheyAllow() {
        Pod a = ready("a");

        assertThat(
                        DisruptionBudgets.evict(
                                a,
                                List.of(
                                        budget("one", new IntOrString(0), null),
                                        budget("two", new IntOrString(0), null)),
                                List.of(a)))
                .isEqualTo(new MoreThanOneBudget(List.of("one", "two")));
    }

    @Test
    void terminalPendingAndPhaselessPodsMayGoWithoutConsultingBudgets() {
        PodDisruptionBudget strict = minAvailable(new IntOrString(5));
        for (String phase : new String[] {"Succeeded", "Failed", "Pending", null}) {
            Pod p = pod("p", phase, false, Map.of("app", "gpu"));

            assertThat(DisruptionBudgets.evict(p, List.of(strict, strict), List.of(p)))
                    .as("phase %s", phase)
                    .isEqualTo(new Allowed(null, null, false));
        }
    }

    @Test
    void aNotReadyPodMayGoWhileItsBudgetIsMetWithoutUsingADisruption() {
        Pod sick = pod("sick", "Running", false, Map.of("app", "gpu"));
        PodDisruptionBudget pdb = minAvailable(new IntOrString(2));

        assertThat(
                        DisruptionBudgets.evict(
                                sick, List.of(pdb), List.of(sick, ready("a"), ready("b"))))
                .isEqualTo(new Allowed(pdb, new Health(3, 2, 2, 0), false));
    }

    @Test
    void aNotReadyPodOfAnUnmetBudgetStaysUnlessThePolicyIsAlwaysAllow() {
        Pod sick = pod("sick", "Running", false, Map.of("app", "gpu"));
        PodDisruptionBudget pdb = minAvailable(new IntOrString(2));
        List<Pod> pods = List.of(sick, ready("a"));

        assertThat(DisruptionBudgets.evict(sick, List.of(pdb), pods)).isInstanceOf(Refused.class);

        PodDisruptionBudget always =
                new PodDisruptionBudgetBuilder(pdb)
                        .editSpec()
                        .withUnhealthyPodEvictionPolicy("AlwaysAllow")
                        .endSpec()
                        .build();
        assertThat(DisruptionBudgets.evict(sick, List.of(always), pods))
                .isEqualTo(new Allowed(always, new Health(2, 1, 2, 0), false));
    }
}
