package org.gpuoperator.gfd.publish;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class NodeLabelPatchTest {

    private static final String OWNED = NodeLabelPatch.OWNED_KEYS_ANNOTATION;

    private static TreeMap<String, String> wanted(String... kv) {
        TreeMap<String, String> m = new TreeMap<>();
        for (int i = 0; i < kv.length; i += 2) {
            m.put(kv[i], kv[i + 1]);
        }
        return m;
    }

    @Test
    void firstPublishSetsEverythingAndRecordsOwnership() {
        NodeLabelPatch p = NodeLabelPatch.between(Map.of("team", "ml"), Map.of(),
                wanted("nvidia.com/gpu.count", "8", "nvidia.com/gpu.product", "X"));

        assertThat(p.labels()).isEqualTo(Map.of("nvidia.com/gpu.count", "8", "nvidia.com/gpu.product", "X"));
        assertThat(p.annotations()).isEqualTo(Map.of(OWNED, "nvidia.com/gpu.count,nvidia.com/gpu.product"));
        assertThat(p.set()).isEqualTo(2);
        assertThat(p.removed()).isZero();
    }

    @Test
    void onlyChangesAndOwnedStaleKeysArePatched() {
        Map<String, String> current = Map.of("nvidia.com/gpu.count", "8", "nvidia.com/gpu.product", "X",
                "nvidia.com/mig.strategy", "mixed", "nvidia.com/gpu.present", "true");
        Map<String, String> annotations = Map.of(OWNED,
                "nvidia.com/gpu.count,nvidia.com/gpu.product,nvidia.com/mig.strategy,nvidia.com/gpu.present");

        NodeLabelPatch p = NodeLabelPatch.between(current, annotations,
                wanted("nvidia.com/gpu.count", "4", "nvidia.com/gpu.product", "X"));

        Map<String, String> expected = new HashMap<>();
        expected.put("nvidia.com/gpu.count", "4");
        expected.put("nvidia.com/mig.strategy", null);
        assertThat(p.labels()).isEqualTo(expected);
        assertThat(p.removed()).isEqualTo(1);
        assertThat(p.annotations()).isEqualTo(Map.of(OWNED, "nvidia.com/gpu.count,nvidia.com/gpu.product"));
    }

    @Test
    void nothingToDoIsAnEmptyPatch() {
        NodeLabelPatch p = NodeLabelPatch.between(Map.of("nvidia.com/gpu.count", "8"),
                Map.of(OWNED, "nvidia.com/gpu.count"), wanted("nvidia.com/gpu.count", "8"));
        assertThat(p.empty()).isTrue();
        assertThat(NodeLabelPatch.between(Map.of(), Map.of(), wanted()).empty()).isTrue();
    }

    @Test
    void emptyWantedSetDropsTheAnnotation() {
        NodeLabelPatch p = NodeLabelPatch.between(Map.of("nvidia.com/gpu.count", "8"),
                Map.of(OWNED, "nvidia.com/gpu.count"), wanted());
        Map<String, String> expected = new HashMap<>();
        expected.put(OWNED, null);
        assertThat(p.annotations()).isEqualTo(expected);
        assertThat(p.removed()).isEqualTo(1);
    }

    @Test
    void foreignKeysAreNeverPublished() {
        assertThatThrownBy(() -> NodeLabelPatch.between(Map.of(), Map.of(), wanted("nvidia.com/gpu.present", "true")))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("nvidia.com/gpu.present");
    }
}
