package org.gpuoperator.controller.nvidiadriver;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DriverAssignmentTest {

    private static final DriverSelector A100 =
            new DriverSelector("a100", false, Map.of("gpu", "a100"));
    private static final DriverSelector H100 =
            new DriverSelector("h100", false, Map.of("gpu", "h100"));
    private static final DriverSelector DEFAULT = new DriverSelector("fallback", true, Map.of());

    private static Map<String, Map<String, String>> nodes(Object... nameThenLabels) {
        Map<String, Map<String, String>> out = new LinkedHashMap<>();
        for (int i = 0; i < nameThenLabels.length; i += 2) {
            @SuppressWarnings("unchecked")
            Map<String, String> labels = (Map<String, String>) nameThenLabels[i + 1];
            out.put((String) nameThenLabels[i], labels);
        }
        return out;
    }

    @Test
    void eachSelectorTakesItsNodesAndTheDefaultTheRest() {
        var result =
                DriverAssignment.assign(
                        List.of(A100, H100, DEFAULT),
                        nodes(
                                "n1", Map.of("gpu", "a100", "zone", "x"),
                                "n2", Map.of("gpu", "h100"),
                                "n3", Map.of("gpu", "t4"),
                                "n4", Map.of()));

        assertThat(result.driverOfNode())
                .containsExactlyInAnyOrderEntriesOf(
                        Map.of("n1", "a100", "n2", "h100", "n3", "fallback", "n4", "fallback"));
        assertThat(result.conflicts()).isEmpty();
        assertThat(result.nodesOf("fallback")).containsExactly("n3", "n4");
    }

    @Test
    void withoutADefaultAnUnselectedNodeGetsNoDriver() {
        var result = DriverAssignment.assign(List.of(A100), nodes("n1", Map.of("gpu", "t4")));

        assertThat(result.driverOfNode()).isEmpty();
        assertThat(result.conflicts()).isEmpty();
    }

    @Test
    void aNodeSelectedByTwoDriversGetsNeitherAndBothGetTheConflict() {
        DriverSelector zone = new DriverSelector("zone-x", false, Map.of("zone", "x"));
        var result =
                DriverAssignment.assign(
                        List.of(A100, zone, DEFAULT),
                        nodes(
                                "n1", Map.of("gpu", "a100", "zone", "x"),
                                "n2", Map.of("gpu", "a100"),
                                "n3", Map.of("zone", "x")));

        assertThat(result.driverOfNode())
                .containsExactlyInAnyOrderEntriesOf(Map.of("n2", "a100", "n3", "zone-x"));
        assertThat(result.conflicts()).containsOnlyKeys("a100", "zone-x");
        assertThat(result.conflicts().get("a100"))
                .isEqualTo(new DriverAssignment.Conflict(List.of("zone-x"), List.of("n1")));
        assertThat(result.conflicts().get("a100").message())
                .isEqualTo(
                        "nodeSelector overlaps NVIDIADriver(s) [zone-x]: 1 node(s) selected by"
                                + " more than one (n1); no driver is deployed on them");
        assertThat(result.conflicts().get("zone-x").others()).containsExactly("a100");
        assertThat(result.conflicts()).doesNotContainKey("fallback");
    }

    @Test
    void theMessageNamesTheFirstFiveContestedNodesAndCountsAll() {
        DriverSelector all = new DriverSelector("everything", false, Map.of());
        Map<String, Map<String, String>> many = new LinkedHashMap<>();
        for (int i = 1; i <= 7; i++) {
            many.put("n" + i, Map.of("gpu", "a100"));
        }

        var conflict = DriverAssignment.assign(List.of(A100, all), many).conflicts().get("a100");

        assertThat(conflict.message())
                .isEqualTo(
                        "nodeSelector overlaps NVIDIADriver(s) [everything]: 7 node(s) selected by"
                                + " more than one (n1, n2, n3, n4, n5, ...); no driver is deployed"
                                + " on them");
    }

    @Test
    void twoDefaultDriversContestTheUnselectedNodesAndConflictEvenWithoutAny() {
        DriverSelector other = new DriverSelector("fallback-2", true, Map.of());

        var withNodes =
                DriverAssignment.assign(
                        List.of(DEFAULT, other, A100),
                        nodes("n1", Map.of("gpu", "t4"), "n2", Map.of("gpu", "a100")));
        assertThat(withNodes.driverOfNode()).containsExactly(Map.entry("n2", "a100"));
        assertThat(withNodes.conflicts().get("fallback").nodes()).containsExactly("n1");
        assertThat(withNodes.conflicts().get("fallback-2").others()).containsExactly("fallback");

        var allSelected =
                DriverAssignment.assign(
                        List.of(DEFAULT, other, A100), nodes("n2", Map.of("gpu", "a100")));
        assertThat(allSelected.conflicts()).containsOnlyKeys("fallback", "fallback-2");
        assertThat(allSelected.conflicts().get("fallback").message())
                .isEqualTo(
                        "more than one default NVIDIADriver: also [fallback-2]; at most one may be"
                                + " default");
    }

    @Test
    void theNodesAnswerDependsOnItsLabelsAndTheDriversOnly() {
        List<DriverSelector> drivers = List.of(A100, H100, DEFAULT);
        assertThat(DriverAssignment.driverOf(Map.of("gpu", "h100"), drivers)).contains("h100");
        assertThat(DriverAssignment.driverOf(Map.of(), drivers)).contains("fallback");
        assertThat(
                        DriverAssignment.driverOf(
                                Map.of("gpu", "a100"),
                                List.of(A100, new DriverSelector("b", false, Map.of()))))
                .isEmpty();
    }
}
