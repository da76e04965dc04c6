package org.gpuoperator.controller.nvidiadriver;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class DriverPoolsTest {

    private static final NodeOs UBUNTU = new NodeOs("ubuntu22.04", "5.15.0-105-generic");
    private static final NodeOs UBUNTU_NEWER = new NodeOs("ubuntu22.04", "5.15.0-113-generic");
    private static final NodeOs RHEL = new NodeOs("rhel9.4", "5.14.0-427.el9.x86_64");

    @Test
    void thePoolIdIsTheDriverAndTheOsTagWhateverTheKernelAsUpstreams() {
        String id = DriverPools.poolId("a100", UBUNTU);

        assertThat(id).isEqualTo("a100-ubuntu22.04");
        assertThat(DriverPools.poolId("a100", UBUNTU_NEWER)).isEqualTo(id);
        assertThat(DriverPools.poolId("a100", RHEL)).isEqualTo("a100-rhel9.4");
    }

    @Test
    void aLongDriverNameIsShortenedToALabelValueAndStaysUnique() {
        String longName = "a".repeat(50) + ".example-driver-for-the-big-nodes";
        String other = "a".repeat(50) + ".example-driver-for-the-small-nodes";

        String id = DriverPools.poolId(longName, UBUNTU);

        assertThat(id).hasSizeLessThanOrEqualTo(63).matches("[a-z0-9]([-a-z0-9_.]*[a-z0-9])?");
        assertThat(id).isNotEqualTo(DriverPools.poolId(other, UBUNTU));
    }

    @Test
    void theDaemonSetIsNamedAsUpstreamsWithinSixtyThreeCharacters() {
        String id = DriverPools.poolId("a100", UBUNTU);

        assertThat(DriverPools.daemonSetName(UBUNTU, id))
                .matches("nvidia-gpu-driver-ubuntu22\\.04-[0-9a-f]{10}");
        NodeOs longOs = new NodeOs("x".repeat(80) + "1.2", "k");
        String name = DriverPools.daemonSetName(longOs, DriverPools.poolId("d", longOs));
        assertThat(name).hasSize(63).startsWith("nvidia-gpu-driver-xxx");
    }

    @Test
    void aDriversNodesSplitIntoPoolsByOs() {
        var pools =
                DriverPools.pools(
                        Map.of("n1", "a100", "n2", "a100", "n3", "a100", "n4", "h100"),
                        Map.of("n1", UBUNTU, "n2", UBUNTU_NEWER, "n3", RHEL, "n4", UBUNTU));

        assertThat(pools)
                .extracting(DriverPools.Pool::driver, DriverPools.Pool::nodes)
                .containsExactlyInAnyOrder(
                        org.assertj.core.groups.Tuple.tuple("a100", List.of("n1", "n2")),
                        org.assertj.core.groups.Tuple.tuple("a100", List.of("n3")),
                        org.assertj.core.groups.Tuple.tuple("h100", List.of("n4")));
        assertThat(pools).extracting(DriverPools.Pool::daemonSetName).doesNotHaveDuplicates();
    }

    @Test
    void anNvidiaDriversNameIsTheOwnerLabelsValueUpTo63Characters() {
        assertThat(DriverPools.isLabelValue("a100-driver.v2")).isTrue();
        assertThat(DriverPools.isLabelValue("d".repeat(63))).isTrue();
        assertThat(DriverPools.isLabelValue("d".repeat(64))).isFalse();
        assertThat(DriverPools.isLabelValue("-a")).isFalse();
        assertThat(DriverPools.isLabelValue(null)).isFalse();
    }
}
