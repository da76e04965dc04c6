package org.gpuoperator.controller.nvidiadriver;

import static org.assertj.core.api.Assertions.assertThat;
import static org.gpuoperator.controller.nvidiadriver.DriverPoolPlanTest.driver;
import static org.gpuoperator.controller.nvidiadriver.DriverPoolPlanTest.node;

import io.fabric8.kubernetes.api.model.Condition;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.gpuoperator.api.v1alpha1.NVIDIADriver;
import org.gpuoperator.api.v1alpha1.NVIDIADriverState;
import org.gpuoperator.api.v1alpha1.NVIDIADriverStatus;
import org.gpuoperator.controller.TestPolicies;
import org.gpuoperator.controller.operand.OperandModels;
import org.junit.jupiter.api.Test;

class NvidiaDriverStatusesTest {

    private static final String NOW = "2026-12-01T12:00:00Z";

    private static DriverPoolPlan plan(Map<String, String> bSelector) {
        return DriverPoolPlan.of(
                new OperandModels(Map.of()),
                TestPolicies.allEnabled(),
                "gpu-operator",
                List.of(
                        driver("a-driver", "550.54.15", Map.of("pool", "a")),
                        driver("b-driver", "570.172.08", bSelector)),
                List.of(
                        node("a1", "a", "Ubuntu 22.04.4 LTS", "5.15.0"),
                        node("a2", "a", "Ubuntu 22.04.4 LTS", "5.15.0"),
                        node("b1", "b", "Ubuntu 22.04.4 LTS", "5.15.0")));
    }

    private static Condition condition(NVIDIADriverStatus s, String type) {
        return s.getConditions().stream()
                .filter(c -> c.getType().equals(type))
                .findFirst()
                .orElseThrow();
    }

    @Test
    void readyWhereTheDriverIsReadyOnEachOfItsNodesNotReadyElse() {
        var statuses =
                NvidiaDriverStatuses.of(
                        plan(Map.of("pool", "b")),
                        Set.of("a1", "a2")::contains,
                        "gpu-operator",
                        Map.of(),
                        NOW);

        NVIDIADriverStatus a = statuses.get("a-driver");
        assertThat(a.getState()).isEqualTo(NVIDIADriverState.READY);
        assertThat(a.getNamespace()).isEqualTo("gpu-operator");
        assertThat(condition(a, "Ready").getStatus()).isEqualTo("True");
        assertThat(condition(a, "Ready").getReason()).isEqualTo("Reconciled");
        assertThat(condition(a, "Ready").getMessage())
                .startsWith(
                        "driver ready on 2 node(s); DaemonSets [nvidia-gpu-driver-ubuntu22.04-");
        assertThat(condition(a, "Error").getStatus()).isEqualTo("False");

        assertThat(a.getWarnings()).as("nothing set that is not acted on").isNull();

        NVIDIADriverStatus b = statuses.get("b-driver");
        assertThat(b.getState()).isEqualTo(NVIDIADriverState.NOT_READY);
        assertThat(condition(b, "Ready").getReason()).isEqualTo("DriverNotReady");
        assertThat(condition(b, "Ready").getMessage())
                .isEqualTo("driver not ready on 1 of 1 node(s): b1");
    }

    @Test
    void overlappingSelectorsGiveBothDriversConflictingNodeSelector() {
        var statuses =
                NvidiaDriverStatuses.of(plan(Map.of()), n -> true, "gpu-operator", Map.of(), NOW);

        for (String d : List.of("a-driver", "b-driver")) {
            NVIDIADriverStatus s = statuses.get(d);
            assertThat(s.getState()).as(d).isEqualTo(NVIDIADriverState.NOT_READY);
            assertThat(condition(s, "Ready").getStatus()).isEqualTo("False");
            assertThat(condition(s, "Ready").getReason()).isEqualTo("ConflictingNodeSelector");
            assertThat(condition(s, "Error").getStatus()).isEqualTo("True");
            assertThat(condition(s, "Error").getReason()).isEqualTo("ConflictingNodeSelector");
        }
        assertThat(condition(statuses.get("a-driver"), "Error").getMessage())
                .isEqualTo(
                        "NVIDIADriver(s) [b-driver] also claim 2 node(s) (a1, a2): each keeps the"
                                + " driver it had (none if it had none) until the conflict is"
                                + " resolved");
        assertThat(condition(statuses.get("b-driver"), "Error").getMessage())
                .startsWith("NVIDIADriver(s) [a-driver] also claim 2 node(s) (a1, a2)");
    }

    @Test
    void twoDefaultsGiveBothConflictingNodeSelectorWithUpstreamsWording() {
        DriverPoolPlan plan =
                DriverPoolPlan.of(
                        new OperandModels(Map.of()),
                        TestPolicies.allEnabled(),
                        "gpu-operator",
                        List.of(
                                driver("a-driver", "550.54.15", Map.of("pool", "a")),
                                driver("d1", "550.54.15", null),
                                driver("d2", "570.172.08", null)),
                        List.of(node("a1", "a", "Ubuntu 22.04.4 LTS", "5.15.0")));

        var statuses = NvidiaDriverStatuses.of(plan, n -> true, "gpu-operator", Map.of(), NOW);

        assertThat(condition(statuses.get("d1"), "Error").getReason())
                .isEqualTo("ConflictingNodeSelector");
        assertThat(condition(statuses.get("d1"), "Error").getMessage())
                .isEqualTo(
                        "multiple default NVIDIADrivers found: also [d2]; at most one may be"
                                + " default, nodes keep the driver they had");
        assertThat(condition(statuses.get("d2"), "Ready").getMessage())
                .startsWith("multiple default NVIDIADrivers found: also [d1]");
        assertThat(statuses.get("a-driver").getState()).isEqualTo(NVIDIADriverState.READY);
    }

    @Test
    void theTransitionTimeStaysWhileTheConditionsStatusDoes() {
        var first =
                NvidiaDriverStatuses.of(
                        plan(Map.of("pool", "b")), n -> false, "gpu-operator", Map.of(), NOW);
        var later =
                NvidiaDriverStatuses.of(
                        plan(Map.of("pool", "b")),
                        n -> false,
                        "gpu-operator",
                        first,
                        "2026-12-01T12:05:00Z");

        assertThat(condition(later.get("a-driver"), "Ready").getLastTransitionTime())
                .isEqualTo(NOW);
    }

    @Test
    void aFieldThatIsNotActedOnIsWarnedInThatDriversOwnStatus() {
        NVIDIADriver withGds =
                DriverPoolPlanTest.driver("a-driver", "550.54.15", Map.of("pool", "a"));
        withGds.getSpec().setHostNetwork(true);
        var plan =
                DriverPoolPlan.of(
                        new OperandModels(Map.of()),
                        TestPolicies.allEnabled(),
                        "gpu-operator",
                        List.of(withGds, driver("b-driver", "570.172.08", Map.of("pool", "b"))),
                        List.of(node("a1", "a", "Ubuntu 22.04.4 LTS", "5.15.0")));
        var statuses = NvidiaDriverStatuses.of(plan, n -> true, "gpu-operator", Map.of(), NOW);
        assertThat(statuses.get("a-driver").getWarnings())
                .singleElement()
                .satisfies(
                        w -> {
                            assertThat(w.getPath()).isEqualTo("spec.hostNetwork");
                            assertThat(w.getMessage()).startsWith("not acted on: ");
                        });
        assertThat(statuses.get("b-driver").getWarnings()).isNull();
    }

    @Test
    void aConflictIsNewWhenItAppearsOrItsMessageChangesOnly() {
        NVIDIADriverStatus ready =
                NvidiaDriverStatuses.of(
                                plan(Map.of("pool", "b")), n -> true, "gpu-operator", Map.of(), NOW)
                        .get("a-driver");
        NVIDIADriverStatus conflict =
                NvidiaDriverStatuses.of(plan(Map.of()), n -> true, "gpu-operator", Map.of(), NOW)
                        .get("a-driver");
        String message = condition(conflict, "Error").getMessage();

        assertThat(NvidiaDriverStatuses.newConflict(null, conflict)).contains(message);
        assertThat(NvidiaDriverStatuses.newConflict(ready, conflict)).contains(message);
        assertThat(NvidiaDriverStatuses.newConflict(conflict, conflict))
                .as("the same conflict again")
                .isEmpty();
        assertThat(NvidiaDriverStatuses.newConflict(conflict, ready)).as("resolved").isEmpty();

        NVIDIADriverStatus moved =
                NvidiaDriverStatuses.of(plan(Map.of()), n -> true, "gpu-operator", Map.of(), NOW)
                        .get("a-driver");
        condition(moved, "Error").setMessage(message + " (changed)");
        assertThat(NvidiaDriverStatuses.newConflict(conflict, moved))
                .as("another conflict")
                .contains(message + " (changed)");
    }
}
