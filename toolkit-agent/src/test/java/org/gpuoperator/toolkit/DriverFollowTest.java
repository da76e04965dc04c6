package org.gpuoperator.toolkit;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import java.util.Optional;
import org.gpuoperator.toolkit.DriverFollow.DriverFacts;
import org.gpuoperator.toolkit.DriverFollow.Step;
import org.junit.jupiter.api.Test;

class DriverFollowTest {

    private static final DriverFacts OLD = new DriverFacts("/run/nvidia/driver", "550.54.15");

    @Test
    void factsAreTheRootAndTheVersionWithUpstreamsDefaults() {
        assertThat(
                        DriverFacts.of(
                                Map.of(
                                        "NVIDIA_DRIVER_ROOT", "/",
                                        "DRIVER_VERSION", "560.35.03",
                                        "GPU_COUNT", "2")))
                .isEqualTo(new DriverFacts("/", "560.35.03"));
        assertThat(DriverFacts.of(Map.of("NVIDIA_DRIVER_ROOT", "relative", "DRIVER_VERSION", " ")))
                .isEqualTo(new DriverFacts("/run/nvidia/driver", null));
    }

    @Test
    void aDriverGoneWhileReadyTakesToolkitReadyAwayOnce() {
        assertThat(DriverFollow.next(OLD, true, true, Optional.empty()))
                .isEqualTo(Step.DRIVER_GONE);
        assertThat(DriverFollow.next(OLD, true, false, Optional.empty()))
                .as("the file already gone: the toolkit still stops counting itself ready")
                .isEqualTo(Step.DRIVER_GONE);
        assertThat(DriverFollow.next(OLD, false, false, Optional.empty())).isEqualTo(Step.NOTHING);
    }

    @Test
    void otherFactsOrADriverBackAreApplied() {
        assertThat(DriverFollow.next(OLD, true, true, Optional.of(OLD))).isEqualTo(Step.NOTHING);
        assertThat(
                        DriverFollow.next(
                                OLD,
                                true,
                                true,
                                Optional.of(new DriverFacts("/run/nvidia/driver", "560.35.03"))))
                .isEqualTo(Step.APPLY);
        assertThat(
                        DriverFollow.next(
                                OLD, true, true, Optional.of(new DriverFacts("/", "550.54.15"))))
                .isEqualTo(Step.APPLY);
        // back with the same facts: toolkit-ready is written again
        assertThat(DriverFollow.next(OLD, false, false, Optional.of(OLD))).isEqualTo(Step.APPLY);
        // removed behind a ready toolkit's back (a replaced toolkit pod's clean-up): again
        assertThat(DriverFollow.next(OLD, true, false, Optional.of(OLD))).isEqualTo(Step.APPLY);
    }
}
