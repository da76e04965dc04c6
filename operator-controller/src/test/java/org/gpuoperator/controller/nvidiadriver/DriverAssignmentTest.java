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

    private static final DriverSelector ZONE =
            new DriverSelector("zone-x", false, Map.of("zone", "x"));

    @Test
    void aContestedNodeKeepsItsPreviousOwnerOrGetsNoneAndBothClaimantsGetTheConflict() {
        var result =
                DriverAssignment.assign(
                        List.of(A100, ZONE, DEFAULT),
                        nodes(
                                "n1", Map.of("gpu", "a100", "zone", "x"),
                                "n2", Map.of("gpu", "a100"),
                                "n3", Map.of("zone", "x"),
                                "n4", Map.of("gpu", "a100", "zone", "x")),
                        Map.of("n1", "a100", "n3", "zone-x"));

        // n1 keeps a100's pool (and so its driver pod); n4 had none and gets none
        assertThat(result.driverOfNode())
                .containsExactlyInAnyOrderEntriesOf(
                        Map.of("n1", "a100", "n2", "a100", "n3", "zone-x"));
        assertThat(result.conflicts()).containsOnlyKeys("a100", "zone-x");
        assertThat(result.conflicts().get("a100"))
                .isEqualTo(new DriverAssignment.Conflict(List.of("zone-x"), List.of("n1", "n4")));
        assertThat(result.conflicts().get("a100").message())
                .isEqualTo(
                        "NVIDIADriver(s) [zone-x] also claim 2 node(s) (n1, n4): each keeps the"
                                + " driver it had (none if it had none) until the conflict is"
                                + " resolved");
        assertThat(result.conflicts().get("zone-x").others()).containsExactly("a100");
        assertThat(result.conflicts()).doesNotContainKey("fallback");
    }

    @Test
    void aContestedNodeKeepsAPreviousOwnerThatNoLongerSelectsItButNotADeletedOne() {
        Map<String, String> labels = Map.of("gpu", "a100", "zone", "x");
        List<DriverSelector> drivers =
                List.of(A100, ZONE, new DriverSelector("old", false, Map.of("gpu", "t4")));

        assertThat(DriverAssignment.driverOf(labels, drivers, "old")).contains("old");
        assertThat(DriverAssignment.driverOf(labels, drivers, "deleted")).isEmpty();
        assertThat(DriverAssignment.driverOf(labels, drivers, null)).isEmpty();
    }

    @Test
    void onceTheConflictIsResolvedTheNodeGoesToItsOneClaimant() {
        assertThat(
                        DriverAssignment.driverOf(
                                Map.of("gpu", "a100", "zone", "x"), List.of(ZONE), "a100"))
                .contains("zone-x");
        assertThat(DriverAssignment.driverOf(Map.of("gpu", "t4"), List.of(A100), "a100"))
                .as("unclaimed: nothing holds the node")
                .isEmpty();
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
                        "NVIDIADriver(s) [everything] also claim 7 node(s) (n1, n2, n3, n4, n5,"
                                + " ...): each keeps the driver it had (none if it had none) until"
                                + " the conflict is resolved");
    }

    @Test
    void twoDefaultDriversChangeNothingAboutTheDefaultsAndBothGetTheConflict() {
        DriverSelector other = new DriverSelector("fallback-2", true, Map.of());
        List<DriverSelector> drivers = List.of(DEFAULT, other, A100);

        var withNodes =
                DriverAssignment.assign(
                        drivers,
                        nodes(
                                "n1", Map.of("gpu", "t4"),
                                "n2", Map.of("gpu", "a100"),
                                "n3", Map.of("gpu", "t4"),
                                "n4", Map.of("gpu", "a100")),
                        Map.of("n1", "fallback", "n4", "fallback"));
        // n1 keeps the default it had, n3 had none; n4, now selected by a100, stays too
        assertThat(withNodes.driverOfNode())
                .containsExactlyInAnyOrderEntriesOf(
                        Map.of("n1", "fallback", "n2", "a100", "n4", "fallback"));
        assertThat(withNodes.conflicts()).containsOnlyKeys("fallback", "fallback-2");
        assertThat(withNodes.conflicts().get("fallback").nodes()).containsExactly("n1", "n3");
        assertThat(withNodes.conflicts().get("fallback").message())
                .isEqualTo(
                        "multiple default NVIDIADrivers found: also [fallback-2]; at most one may"
                                + " be default, nodes keep the driver they had; NVIDIADriver(s)"
                                + " [fallback-2] also claim 2 node(s) (n1, n3): each keeps the"
                                + " driver it had (none if it had none) until the conflict is"
                                + " resolved");

        var allSelected = DriverAssignment.assign(drivers, nodes("n2", Map.of("gpu", "a100")));
        assertThat(allSelected.conflicts()).containsOnlyKeys("fallback", "fallback-2");
        assertThat(allSelected.conflicts().get("fallback-2").message())
                .isEqualTo(
                        "multiple default NVIDIADrivers found: also [fallback]; at most one may"
                                + " be default, nodes keep the driver they had");

        // one default left: the nodes it does not hold move as usual
        assertThat(DriverAssignment.driverOf(Map.of("gpu", "t4"), List.of(other, A100), "fallback"))
                .contains("fallback-2");
    }

    @Test
    void theNodesAnswerDependsOnItsLabelsItsPreviousOwnerAndTheDriversOnly() {
        List<DriverSelector> drivers = List.of(A100, H100, DEFAULT);
        assertThat(DriverAssignment.driverOf(Map.of("gpu", "h100"), drivers)).contains("h100");
        assertThat(DriverAssignment.driverOf(Map.of("gpu", "h100"), drivers, "a100"))
                .contains("h100");
        assertThat(DriverAssignment.driverOf(Map.of(), drivers)).contains("fallback");
        assertThat(
                        DriverAssignment.driverOf(
                                Map.of("gpu", "a100"),
                                List.of(A100, new DriverSelector("b", false, Map.of()))))
                .isEmpty();
    }

    @Test
    void thePreviousOwnerIsThePoolsDaemonSetsDriverElseTheDriverWhosePoolIdItIs() {
        NodeOs os = new NodeOs("ubuntu22.04", "5.15.0-105-generic");
        List<DriverSelector> drivers = List.of(A100, ZONE);
        String a100Pool = DriverPools.poolId("a100", os);

        assertThat(
                        DriverRouting.previousOwner(
                                Map.of(DriverPools.POOL_LABEL, a100Pool), os, drivers, Map.of()))
                .isEqualTo("a100");
        // the OS changed since: the pool's DaemonSet still names its driver
        assertThat(
                        DriverRouting.previousOwner(
                                Map.of(DriverPools.POOL_LABEL, "old-pool"),
                                os,
                                drivers,
                                Map.of("old-pool", "zone-x")))
                .isEqualTo("zone-x");
        assertThat(
                        DriverRouting.previousOwner(
                                Map.of(DriverPools.POOL_LABEL, "old-pool"), os, drivers, Map.of()))
                .isNull();
        assertThat(DriverRouting.previousOwner(Map.of(), os, drivers, Map.of())).isNull();
    }

    @Test
    void aSelectorNamingTheOwnerLabelIsFrozenItKeepsItsNodesAndClaimsNone() {
        DriverSelector frozen =
                new DriverSelector("loop", false, Map.of(DriverPools.OWNER_LABEL, "loop"));
        Map<String, String> owned = Map.of(DriverPools.OWNER_LABEL, "loop", "gpu", "a100");
        assertThat(frozen.frozen()).isTrue();
        assertThat(frozen.selects(owned)).as("selects on no label, its own output least").isFalse();

        // a node it had stays, whoever else claims it, and no conflict is made of it
        var result =
                DriverAssignment.assign(
                        List.of(frozen, A100, DEFAULT),
                        nodes("had", owned, "new", owned),
                        Map.of("had", "loop"));
        assertThat(result.driverOfNode())
                .containsExactlyInAnyOrderEntriesOf(Map.of("had", "loop", "new", "a100"));
        assertThat(result.conflicts()).isEmpty();

        // a frozen default takes no node either
        DriverSelector frozenDefault =
                new DriverSelector("d", true, Map.of(DriverPools.OWNER_LABEL, "d"), true);
        assertThat(
                        DriverAssignment.assign(
                                        List.of(frozenDefault, DEFAULT),
                                        nodes("n", Map.of("gpu", "t4")))
                                .driverOfNode())
                .containsExactly(Map.entry("n", "fallback"));
    }
}
