package org.gpuoperator.e2e.node;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.gpuoperator.node.host.ContainerCgroup;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class PodCgroupsTest {

    static final String UID = "0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0";

    private static Pod pod(Map<String, Quantity> requests, Map<String, Quantity> limits) {
        return new PodBuilder()
                .withNewMetadata()
                .withName("p")
                .withUid(UID)
                .endMetadata()
                .withNewSpec()
                .withContainers(
                        new ContainerBuilder()
                                .withName("main")
                                .withNewResources()
                                .withRequests(requests)
                                .withLimits(limits)
                                .endResources()
                                .build(),
                        new ContainerBuilder().withName("side").build())
                .endSpec()
                .build();
    }

    @Test
    void theQosClassFollowsCpuAndMemoryAsTheApiServers() {
        Map<String, Quantity> both =
                Map.of("cpu", new Quantity("1"), "memory", new Quantity("1Gi"));
        // the sidecar without limits makes the pod Burstable
        assertThat(PodCgroups.qosClass(pod(null, both))).isEqualTo("Burstable");
        assertThat(PodCgroups.qosClass(pod(null, Map.of("nvidia.com/gpu", new Quantity("1")))))
                .isEqualTo("BestEffort");
        assertThat(PodCgroups.qosClass(pod(Map.of("cpu", new Quantity("0")), null)))
                .isEqualTo("BestEffort");
        Pod guaranteed =
                new PodBuilder(pod(null, both))
                        .editSpec()
                        .editLastContainer()
                        .withNewResources()
                        .withRequests(
                                Map.of("cpu", new Quantity("1000m"), "memory", new Quantity("1Gi")))
                        .withLimits(both)
                        .endResources()
                        .endContainer()
                        .endSpec()
                        .build();
        assertThat(PodCgroups.qosClass(guaranteed)).isEqualTo("Guaranteed");
        assertThat(PodCgroups.parent(guaranteed)).isEqualTo("/kubepods/pod" + UID);
        assertThat(PodCgroups.parent(pod(null, both))).isEqualTo("/kubepods/burstable/pod" + UID);
    }

    /** What the exporter parses from a workload process's cgroup names the pod and container. */
    @Test
    void aContainerUnderThePodsCgroupIsNamedByItsProcCgroup() {
        String id = "a".repeat(64);
        String line = "4:memory:" + PodCgroups.parent(pod(null, null)) + "/" + id;
        assertThat(ContainerCgroup.parse(line)).contains(new ContainerCgroup(UID, id));
    }

    @Test
    void removeDeletesThePodsEmptyCgroupInEveryHierarchyAndNothingElse(@TempDir Path fs)
            throws Exception {
        Path memory = Files.createDirectories(fs.resolve("memory/kubepods/burstable/pod" + UID));
        Path unified = Files.createDirectories(fs.resolve("kubepods/besteffort/pod" + UID));
        Path busy = Files.createDirectories(fs.resolve("cpu/kubepods/pod" + UID + "/c1"));
        Path other = Files.createDirectories(fs.resolve("memory/kubepods/burstable/podother"));
        PodCgroups.remove(fs, UID);
        assertThat(memory).doesNotExist();
        assertThat(unified).doesNotExist();
        assertThat(busy).exists(); // a cgroup with a child (processes, on a real one) stays
        assertThat(other).exists();
        assertThat(fs.resolve("memory/kubepods/burstable")).exists();
    }
}
