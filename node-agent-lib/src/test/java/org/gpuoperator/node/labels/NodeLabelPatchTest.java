package org.gpuoperator.node.labels;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class NodeLabelPatchTest {

    private static final String OWNED = "example.com/owned-labels";

    /** Like feature discovery's: nvidia.com/ keys, except the one the controller sets. */
    private static final LabelOwnership OWNERSHIP =
            new LabelOwnership(
                    OWNED, k -> k.startsWith("nvidia.com/") && !k.equals("nvidia.com/gpu.present"));

    private static TreeMap<String, String> wanted(String... kv) {
        TreeMap<String, String> m = new TreeMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put(kv[i], kv[i + 1]);
        }
        return m;
    }

    @Test
    void firstPublishSetsEverythingAndRecordsOwnership() {
        NodeLabelPatch p =
                NodeLabelPatch.between(
                        OWNERSHIP,
                        Map.of("team", "ml"),
                        Map.of(),
                        wanted("nvidia.com/gpu.count", "8", "nvidia.com/gpu.product", "X"));

        assertThat(p.labels())
                .isEqualTo(Map.of("nvidia.com/gpu.count", "8", "nvidia.com/gpu.product", "X"));
        assertThat(p.annotations())
                .isEqualTo(Map.of(OWNED, "nvidia.com/gpu.count,nvidia.com/gpu.product"));
        assertThat(p.set()).isEqualTo(2);
        assertThat(p.removed()).isZero();
    }

    @Test
    void onlyChangesAndOwnedStaleKeysArePatched() {
        Map<String, String> current =
                Map.of(
                        "nvidia.com/gpu.count",
                        "8",
                        "nvidia.com/gpu.product",
                        "X",
                        "nvidia.com/mig.strategy",
                        "mixed",
                        "nvidia.com/gpu.present",
                        "true");
        Map<String, String> annotations =
                Map.of(
                        OWNED,
                        "nvidia.com/gpu.count,nvidia.com/gpu.product,nvidia.com/mig.strategy,nvidia.com/gpu.present");

        NodeLabelPatch p =
                NodeLabelPatch.between(
                        OWNERSHIP,
                        current,
                        annotations,
                        wanted("nvidia.com/gpu.count", "4", "nvidia.com/gpu.product", "X"));

        Map<String, String> expected = new HashMap<>();
        expected.put("nvidia.com/gpu.count", "4");
        expected.put("nvidia.com/mig.strategy", null);
        assertThat(p.labels()).isEqualTo(expected);
        assertThat(p.removed()).isEqualTo(1);
        assertThat(p.annotations())
                .isEqualTo(Map.of(OWNED, "nvidia.com/gpu.count,nvidia.com/gpu.product"));
    }

    @Test
    void nothingToDoIsAnEmptyPatch() {
        NodeLabelPatch p =
                NodeLabelPatch.between(
                        OWNERSHIP,
                        Map.of("nvidia.com/gpu.count", "8"),
                        Map.of(OWNED, "nvidia.com/gpu.count"),
                        wanted("nvidia.com/gpu.count", "8"));
        assertThat(p.empty()).isTrue();
        assertThat(NodeLabelPatch.between(OWNERSHIP, Map.of(), Map.of(), wanted()).empty())
                .isTrue();
    }

    @Test
    void emptyWantedSetDropsTheAnnotation() {
        NodeLabelPatch p =
                NodeLabelPatch.between(
                        OWNERSHIP,
                        Map.of("nvidia.com/gpu.count", "8"),
                        Map.of(OWNED, "nvidia.com/gpu.count"),
                        wanted());
        Map<String, String> expected = new HashMap<>();
        expected.put(OWNED, null);
        assertThat(p.annotations()).isEqualTo(expected);
        assertThat(p.removed()).isEqualTo(1);
    }

    @Test
    void foreignKeysAreNeverPublished() {
        assertThatThrownBy(
                        () ->
                                NodeLabelPatch.between(
                                        OWNERSHIP,
                                        Map.of(),
                                        Map.of(),
                                        wanted("nvidia.com/gpu.present", "true")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("nvidia.com/gpu.present");
    }

    @Test
    void ownershipListsOnlyOwnableKeys() {
        assertThat(
                        OWNERSHIP.ownedKeys(
                                Map.of(OWNED, "nvidia.com/gpu.count, team,nvidia.com/gpu.present")))
                .containsExactly("nvidia.com/gpu.count");
        assertThat(OWNERSHIP.ownedKeys(Map.of())).isEmpty();
    }

    @Test
    void jsonPatchNamesEachKeyAndCreatesMissingMaps() {
        NodeLabelPatch p =
                NodeLabelPatch.between(
                        OWNERSHIP,
                        Map.of("nvidia.com/gpu.count", "8"),
                        Map.of(OWNED, "nvidia.com/gpu.count"),
                        wanted("nvidia.com/gpu.product", "A/B"));

        assertThat(p.jsonPatch(true, false))
                .containsExactly(
                        Map.of(
                                "op",
                                "add",
                                "path",
                                "/metadata/labels/nvidia.com~1gpu.product",
                                "value",
                                "A/B"),
                        Map.of("op", "remove", "path", "/metadata/labels/nvidia.com~1gpu.count"),
                        Map.of("op", "add", "path", "/metadata/annotations", "value", Map.of()),
                        Map.of(
                                "op",
                                "add",
                                "path",
                                "/metadata/annotations/example.com~1owned-labels",
                                "value",
                                "nvidia.com/gpu.product"));
    }

    @Test
    void annotationsByNameSetChangedOnesRemovePresentOnesAndTouchNoLabel() {
        Map<String, String> wanted = new java.util.LinkedHashMap<>();
        wanted.put("example.com/state", "ready");
        wanted.put("example.com/reason", null);
        wanted.put("example.com/same", "x");
        wanted.put("example.com/absent", null);
        NodeLabelPatch p =
                NodeLabelPatch.annotations(
                        Map.of(
                                "example.com/reason", "old",
                                "example.com/same", "x",
                                "other", "kept"),
                        wanted);
        assertThat(p.labels()).isEmpty();
        assertThat(p.jsonPatch(true, true))
                .containsExactly(
                        Map.of(
                                "op",
                                "add",
                                "path",
                                "/metadata/annotations/example.com~1state",
                                "value",
                                "ready"),
                        Map.of(
                                "op",
                                "remove",
                                "path",
                                "/metadata/annotations/example.com~1reason"));
        assertThat(
                        NodeLabelPatch.annotations(
                                        Map.of("example.com/same", "x"),
                                        Map.of("example.com/same", "x"))
                                .empty())
                .isTrue();
    }

    @Test
    void aNodeWhoseAnnotationsAreGoneGetsTheMapAddedBeforeItsKeys() {
        NodeLabelPatch p =
                NodeLabelPatch.between(
                        OWNERSHIP,
                        Map.of("team", "ml"),
                        Map.of(),
                        wanted("nvidia.com/gpu.count", "8"));

        // fabric8 reads an absent map as empty: the map is added first, so the key's add applies
        assertThat(p.jsonPatchOnto(Map.of("team", "ml"), Map.of()))
                .extracting(op -> op.get("op") + " " + op.get("path"))
                .containsExactly(
                        "add /metadata/labels/nvidia.com~1gpu.count",
                        "add /metadata/annotations",
                        "add /metadata/annotations/example.com~1owned-labels");
        // a node with annotations keeps them: only the key is added
        assertThat(p.jsonPatchOnto(Map.of("team", "ml"), Map.of("other", "x")))
                .extracting(op -> op.get("op") + " " + op.get("path"))
                .containsExactly(
                        "add /metadata/labels/nvidia.com~1gpu.count",
                        "add /metadata/annotations/example.com~1owned-labels");
    }
}
