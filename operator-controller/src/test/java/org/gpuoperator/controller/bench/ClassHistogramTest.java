package org.gpuoperator.controller.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

class ClassHistogramTest {

    @Test
    void theLiveHeapIsTheTotalLessTheFillerArrays() {
        String histogram =
                """
                3020:
                 num     #instances         #bytes  class name (module)
                -------------------------------------------------------
                   1:        476916       21859560  [B (java.base@25.0.3)
                   2:        462175       11092200  java.lang.String (java.base@25.0.3)
                   4:          9236        6019424  [Ljdk.internal.vm.FillerElement; (java.base@25.0.3)
                  52:          5001         200040  io.fabric8.kubernetes.api.model.Node
                Total       2110051       84561680
                """;

        assertThat(ClassHistogram.liveBytes(histogram)).isEqualTo(84561680L - 6019424L);
    }

    @Test
    void aHistogramWithoutItsTotalIsRefused() {
        assertThatThrownBy(() -> ClassHistogram.liveBytes("3020:\nCould not attach\n"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("no Total line")
                .hasMessageContaining("Could not attach");
    }
}
