package org.gpuoperator.validator.plugin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.gpuoperator.validator.cuda.MockCluster.NODE;
import static org.gpuoperator.validator.cuda.MockCluster.NS;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodStatusBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.gpuoperator.validator.cuda.MockCluster;
import org.gpuoperator.validator.cuda.WorkloadRunner;
import org.gpuoperator.validator.report.CheckResult;
import org.gpuoperator.validator.report.CheckState;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

class PluginCheckTest {

    final MockCluster cluster = new MockCluster();

    @AfterEach
    void close() {
        cluster.close();
    }

    PluginCheck check(boolean withWorkload) {
        return new PluginCheck(
                () -> cluster.client,
                new WorkloadRunner(() -> cluster.client, Duration.ofMillis(50)),
                new PluginCheck.Settings(
                        NS,
                        NODE,
                        "nvidia",
                        "reg/validator:1",
                        withWorkload,
                        Duration.ofSeconds(10)));
    }

    @Test
    void noAllocatableGpuIsWaitingWithTheReason() throws Exception {
        cluster.node(Map.of("nvidia.com/gpu", "0", "cpu", "4"));
        CheckResult r = check(false).run();
        assertThat(r.state()).isEqualTo(CheckState.WAITING);
        assertThat(r.reason())
                .isEqualTo(
                        "node node-a has no allocatable nvidia.com/gpu or nvidia.com/mig-* resource");
    }

    @Test
    void allocatableGpusAreReadyWithoutAWorkload() throws Exception {
        cluster.node(Map.of("nvidia.com/gpu", "8"));
        assertThat(check(false).run().isReady()).isTrue();
        assertThat(cluster.client.pods().inNamespace(NS).list().getItems()).isEmpty();
    }

    @Test
    void withWorkloadAPodRequestingOneMigDeviceMustSucceed() throws Exception {
        cluster.node(Map.of("nvidia.com/mig-1g.5gb", "7"));
        var kubelet =
                cluster.kubelet(
                        "nvidia-device-plugin-validator-node-a",
                        p -> p.setStatus(new PodStatusBuilder().withPhase("Succeeded").build()));
        CheckResult r = check(true).run();
        assertThat(r.state()).as(r.reason()).isEqualTo(CheckState.READY);
        Pod created = kubelet.get(10, TimeUnit.SECONDS);
        assertThat(created.getSpec().getNodeName()).isEqualTo(NODE);
        assertThat(created.getSpec().getContainers().get(0).getResources().getLimits())
                .containsExactly(Map.entry("nvidia.com/mig-1g.5gb", new Quantity("1")));
    }

    @Test
    void withWorkloadAFailedPodIsFailedWithItsMessage() throws Exception {
        cluster.node(Map.of("nvidia.com/gpu", "1"));
        cluster.kubelet(
                "nvidia-device-plugin-validator-node-a",
                p ->
                        p.setStatus(
                                new PodStatusBuilder()
                                        .withPhase("Failed")
                                        .withReason("UnexpectedAdmissionError")
                                        .withMessage("Allocate failed due to no healthy devices")
                                        .build()));
        CheckResult r = check(true).run();
        assertThat(r.state()).isEqualTo(CheckState.FAILED);
        assertThat(r.reason())
                .isEqualTo(
                        "pod nvidia-device-plugin-validator-node-a failed: UnexpectedAdmissionError: Allocate failed due to no healthy devices");
    }
}
