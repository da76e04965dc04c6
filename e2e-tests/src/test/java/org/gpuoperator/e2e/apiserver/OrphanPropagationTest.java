package org.gpuoperator.e2e.apiserver;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class OrphanPropagationTest {

    @Test
    void theDeleteAsksForItInTheQueryOrTheDeleteOptions() {
        assertThat(OrphanPropagation.requested(Map.of("propagationPolicy", "Orphan"), "")).isTrue();
        assertThat(OrphanPropagation.requested(Map.of("orphanDependents", "true"), null)).isTrue();
        assertThat(
                        OrphanPropagation.requested(
                                Map.of(),
                                "{\"apiVersion\":\"v1\",\"kind\":\"DeleteOptions\","
                                        + "\"propagationPolicy\":\"Orphan\"}"))
                .isTrue();
        assertThat(OrphanPropagation.requested(Map.of(), "{\"orphanDependents\":true}")).isTrue();
        assertThat(
                        OrphanPropagation.requested(
                                Map.of("propagationPolicy", "Background"),
                                "{\"propagationPolicy\":\"Foreground\"}"))
                .isFalse();
        assertThat(OrphanPropagation.requested(Map.of(), "")).isFalse();
        assertThat(OrphanPropagation.requested(Map.of(), "not json")).isFalse();
    }

    @Test
    void theDependentLosesOnlyItsReferenceToTheOwner() {
        Map<String, Object> pod =
                Map.of(
                        "metadata",
                        Map.of(
                                "name",
                                "p",
                                "ownerReferences",
                                List.of(
                                        Map.of("kind", "DaemonSet", "uid", "ds-1"),
                                        Map.of("kind", "Other", "uid", "o-1"))));
        Map<String, Object> orphaned = OrphanPropagation.withoutOwner(pod, "ds-1").orElseThrow();
        assertThat(Json.maps(Json.map(orphaned, "metadata"), "ownerReferences"))
                .extracting(o -> o.get("uid"))
                .containsExactly("o-1");
        Map<String, Object> last = OrphanPropagation.withoutOwner(orphaned, "o-1").orElseThrow();
        assertThat(Json.map(last, "metadata")).doesNotContainKey("ownerReferences");
        assertThat(OrphanPropagation.withoutOwner(last, "ds-1")).isEmpty();
        // the input is not changed
        assertThat(Json.maps(Json.map(pod, "metadata"), "ownerReferences")).hasSize(2);
    }
}
