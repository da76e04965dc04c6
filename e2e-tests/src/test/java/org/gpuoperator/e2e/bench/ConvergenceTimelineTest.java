package org.gpuoperator.e2e.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class ConvergenceTimelineTest {

    @Test
    void splitsEachStepIntoControllerWaitAndAgentWorkAlongTheLaterLeaf() {
        ConvergenceTimeline t = new ConvergenceTimeline(1_000);
        t.labelled("n", "driver", 1_100); // controller 100
        t.ready("n", "driver", 3_100); // agents 2000
        t.labelled("n", "container-toolkit", 3_300); // controller 200
        t.ready("n", "container-toolkit", 4_300); // agents 1000
        t.labelled("n", "device-plugin", 4_400); // controller 100
        t.ready("n", "device-plugin", 5_400); // agents 1000
        t.labelled("n", "gpu-feature-discovery", 5_500);
        t.ready("n", "gpu-feature-discovery", 6_000);
        t.labelled("n", "dcgm-exporter", 5_600); // the later leaf: controller 200
        t.ready("n", "dcgm-exporter", 7_600); // agents 2000
        ConvergenceTimeline.NodeSplit s = t.split("n");
        assertThat(s.totalMs()).isEqualTo(6_600);
        assertThat(s.controllerMs()).isEqualTo(600);
        assertThat(s.agentsMs()).isEqualTo(6_000);
        assertThat(s.controllerMs() + s.agentsMs()).isEqualTo(s.totalMs());
        // the first record wins: a later relabel does not move the timeline
        t.labelled("n", "driver", 9_999);
        assertThat(t.split("n")).isEqualTo(s);
    }

    @Test
    void aNodeWithAMissingStepHasNoSplitYet() {
        ConvergenceTimeline t = new ConvergenceTimeline(0);
        t.labelled("n", "driver", 10);
        t.ready("n", "driver", 20);
        assertThat(t.split("n")).isNull();
        assertThat(t.splits(List.of("n", "other"))).isEmpty();
    }
}
