package org.gpuoperator.validator.plugin;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import java.util.Map;
import org.junit.jupiter.api.Test;

class GpuResourcesTest {

    private static final KubernetesSerialization JSON = new KubernetesSerialization();

    /** A node as the API server returns it, read as a generic resource. */
    private static GenericKubernetesResource node(String status) {
        return JSON.unmarshal(
                "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"n\"},\"status\":"
                        + status
                        + "}",
                GenericKubernetesResource.class);
    }

    @Test
    void gpuAndMigResourcesAboveZeroSortedByName() {
        GenericKubernetesResource n =
                node(
                        """
                        {"allocatable":{"cpu":"7500m","memory":"31Gi","nvidia.com/gpu":"8",
                         "nvidia.com/mig-3g.40gb":"2","nvidia.com/mig-1g.10gb":"0",
                         "nvidia.com/gpu.shared":"4","example.com/gpu":"1"}}""");
        assertThat(GpuResources.allocatable(n))
                .containsExactly(
                        Map.entry("nvidia.com/gpu", 8L), Map.entry("nvidia.com/mig-3g.40gb", 2L));
        assertThat(GpuResources.toRequest(GpuResources.allocatable(n))).contains("nvidia.com/gpu");
    }

    @Test
    void aNodeWithoutStatusOrAllocatableHasNone() {
        assertThat(GpuResources.allocatable(node("{}"))).isEmpty();
        assertThat(GpuResources.allocatable(node("{\"allocatable\":{}}"))).isEmpty();
        assertThat(GpuResources.allocatable(node("{\"allocatable\":{\"nvidia.com/gpu\":\"0\"}}")))
                .isEmpty();
        GenericKubernetesResource bare =
                JSON.unmarshal(
                        "{\"apiVersion\":\"v1\",\"kind\":\"Node\",\"metadata\":{\"name\":\"n\"}}",
                        GenericKubernetesResource.class);
        assertThat(GpuResources.allocatable(bare)).isEmpty();
        assertThat(GpuResources.toRequest(Map.of())).isEmpty();
    }

    @Test
    void migOnlyRequestsTheFirstMigResource() {
        var found =
                GpuResources.allocatable(
                        node(
                                """
                                {"allocatable":{"nvidia.com/mig-2g.20gb":"1",
                                 "nvidia.com/mig-1g.10gb":"3"}}"""));
        assertThat(GpuResources.toRequest(found)).contains("nvidia.com/mig-1g.10gb");
    }
}
