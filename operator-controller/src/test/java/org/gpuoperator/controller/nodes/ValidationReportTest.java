package org.gpuoperator.controller.nodes;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class ValidationReportTest {

    @Test
    void readsTheStatesAndTheReasonOfTheValidatorsAnnotations() {
        ValidationReport r =
                ValidationReport.of(
                        Map.of(
                                ValidationReport.ANNOTATION,
                                "driver=failed toolkit=waiting cuda=waiting plugin=disabled",
                                ValidationReport.REASON_ANNOTATION,
                                "driver: no usable host driver: /dev/nvidiactl missing under /host"));
        assertThat(r.steps()).containsEntry("driver", "failed").containsEntry("plugin", "disabled");
        assertThat(r.blockingStep()).isEqualTo("driver");
        assertThat(r.summary())
                .isEqualTo("driver: no usable host driver: /dev/nvidiactl missing under /host");
    }

    @Test
    void withoutAReasonTheSummaryIsTheFirstBlockingStep() {
        ValidationReport r =
                ValidationReport.of(
                        Map.of(
                                ValidationReport.ANNOTATION,
                                "driver=ready toolkit=ready cuda=waiting plugin=waiting"));
        assertThat(r.blockingStep()).isEqualTo("cuda");
        assertThat(r.summary()).isEqualTo("cuda: waiting");
    }

    @Test
    void allReadyOrNothingReportedBlocksNothing() {
        ValidationReport ready =
                ValidationReport.of(
                        Map.of(
                                ValidationReport.ANNOTATION,
                                "driver=ready toolkit=ready cuda=ready plugin=disabled"));
        assertThat(ready.blockingStep()).isNull();
        assertThat(ready.summary()).isNull();
        assertThat(ValidationReport.of(null).reported()).isFalse();
        assertThat(ValidationReport.of(Map.of("other", "x")).summary()).isNull();
    }

    @Test
    void malformedPartsAreSkipped() {
        ValidationReport r =
                ValidationReport.of(
                        Map.of(ValidationReport.ANNOTATION, "driver= =x toolkit=failed"));
        assertThat(r.steps()).containsOnlyKeys("toolkit");
    }
}
