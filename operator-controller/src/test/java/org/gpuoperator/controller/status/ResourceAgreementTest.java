package org.gpuoperator.controller.status;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

class ResourceAgreementTest {

    @Test
    void mixedMigResourcesThatMatchTheLabelsAgree() {
        Map<String, String> labels =
                Map.of(
                        "nvidia.com/gpu.count", "8",
                        "nvidia.com/mig.strategy", "mixed",
                        "nvidia.com/mig-1g.5gb.count", "14",
                        "nvidia.com/mig-3g.20gb.count", "4");
        Map<String, Long> advertised =
                Map.of(
                        "nvidia.com/gpu",
                        4L,
                        "nvidia.com/mig-1g.5gb",
                        14L,
                        "nvidia.com/mig-3g.20gb",
                        4L);
        assertThat(ResourceAgreement.check("n1", labels, advertised, "mixed")).isEmpty();
    }

    @Test
    void aStrategyTheAgentsDoNotShareIsNamedWithTheNode() {
        // the plugin runs with none (whole GPUs), feature discovery with the policy's single
        Map<String, String> labels =
                Map.of("nvidia.com/gpu.count", "7", "nvidia.com/mig.strategy", "single");
        assertThat(ResourceAgreement.check("n1", labels, Map.of("nvidia.com/gpu", 1L), "single"))
                .containsExactly(
                        "n1: feature discovery labels nvidia.com/gpu.count=7, the device plugin"
                                + " advertises nvidia.com/gpu=1");
        assertThat(ResourceAgreement.check("n2", labels, Map.of("nvidia.com/gpu", 7L), "mixed"))
                .containsExactly(
                        "n2: feature discovery labels nvidia.com/mig.strategy=single, the policy's"
                                + " mig.strategy is mixed");
    }

    @Test
    void missingAndExtraMigResourcesAndReplicasCount() {
        Map<String, String> labels =
                Map.of(
                        "nvidia.com/gpu.count", "2",
                        "nvidia.com/gpu.replicas", "4",
                        "nvidia.com/mig.strategy", "mixed",
                        "nvidia.com/mig-1g.5gb.count", "7");
        Map<String, Long> advertised =
                Map.of("nvidia.com/gpu.shared", 8L, "nvidia.com/mig-2g.10gb", 3L);
        assertThat(ResourceAgreement.check("n1", labels, advertised, "mixed"))
                .containsExactly(
                        "n1: feature discovery labels nvidia.com/mig-1g.5gb.count=7, the device"
                                + " plugin advertises nvidia.com/mig-1g.5gb=0",
                        "n1: feature discovery labels nvidia.com/mig-2g.10gb.count=0, the device"
                                + " plugin advertises nvidia.com/mig-2g.10gb=3");
        // no MIG at all: whole GPUs with time-slicing replicas, advertised under .shared
        assertThat(
                        ResourceAgreement.check(
                                "n1",
                                Map.of("nvidia.com/gpu.count", "2", "nvidia.com/gpu.replicas", "4"),
                                Map.of("nvidia.com/gpu.shared", 8L),
                                null))
                .isEmpty();
    }
}
