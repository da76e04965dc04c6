package org.gpuoperator.gfd.labels;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class MigAttributesTest {

    @ParameterizedTest(name = "{0}: gi={1} ci={2}")
    @CsvSource({
        "1g.5gb, 1, 1",
        "3g.20gb, 3, 3",
        "7g.80gb, 7, 7",
        "1g.10gb.me, 1, 1",
        "1c.3g.20gb, 3, 1",
        "2c.4g.20gb, 4, 2"
    })
    void slicesFromTheProfileName(String profile, int gi, int ci) {
        assertThat(MigAttributes.gpuInstanceSlices(profile)).contains(gi);
        assertThat(MigAttributes.computeInstanceSlices(profile)).contains(ci);
    }

    @Test
    void unknownShapesGiveNoSlices() {
        assertThat(MigAttributes.gpuInstanceSlices("weird")).isEmpty();
        assertThat(MigAttributes.computeInstanceSlices("3g")).isEmpty();
    }

    @Test
    void enginesOfKnownPartsOnly() {
        assertThat(MigAttributes.engines("NVIDIA A100-SXM4-40GB", "7g.40gb"))
                .contains(new MigAttributes.Engines(7, 5, 0, 1, 1));
        assertThat(MigAttributes.engines("NVIDIA A100-PCIE-40GB", "1c.3g.20gb"))
                .contains(new MigAttributes.Engines(3, 2, 0, 0, 0));
        assertThat(MigAttributes.engines("NVIDIA H100 80GB HBM3", "1g.10gb"))
                .contains(new MigAttributes.Engines(1, 1, 0, 1, 0));
        assertThat(MigAttributes.engines("NVIDIA A30", "1g.6gb")).isEqualTo(Optional.empty());
        assertThat(MigAttributes.engines("NVIDIA A100-SXM4-40GB", "9g.99gb")).isEmpty();
    }
}
