package org.gpuoperator.controller.upgrade;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaimBuilder;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class GpuClaimsTest {

    private static ResourceClaim claim(String name, String driver) {
        return new ResourceClaimBuilder()
                .withNewMetadata()
                .withNamespace("work")
                .withName(name)
                .endMetadata()
                .withNewStatus()
                .withNewAllocation()
                .withNewDevices()
                .addNewResult()
                .withDriver(driver)
                .withPool("pool-0")
                .withDevice("dev-0")
                .withRequest("r")
                .endResult()
                .endDevices()
                .endAllocation()
                .endStatus()
                .build();
    }

    /** The claims of the namespace "work", as the controller's cache would answer. */
    private static final Map<String, ResourceClaim> CLAIMS =
            Map.of(
                    "gpu-claim", claim("gpu-claim", "gpu.nvidia.com"),
                    "nic-claim", claim("nic-claim", "dra.net"),
                    "train-gpu-x7k2", claim("train-gpu-x7k2", "gpu.nvidia.com"));

    private static final GpuClaims KNOWN =
            (ns, name) ->
                    Optional.of(
                            "work".equals(ns) && GpuClaims.allocatedToGpuDriver(CLAIMS.get(name)));

    /** A pod with one claim entry: by name, or from a template (its claim in the status). */
    private static Pod pod(String claimName, String template, String generated) {
        PodBuilder b =
                new PodBuilder()
                        .withNewMetadata()
                        .withNamespace("work")
                        .withName("p")
                        .endMetadata()
                        .withNewSpec()
                        .withNodeName("a")
                        .addNewContainer()
                        .withName("c")
                        .withNewResources()
                        .addNewClaim()
                        .withName("gpu")
                        .endClaim()
                        .endResources()
                        .endContainer()
                        .addNewResourceClaim()
                        .withName("gpu")
                        .withResourceClaimName(claimName)
                        .withResourceClaimTemplateName(template)
                        .endResourceClaim()
                        .endSpec();
        if (generated != null) {
            b.withNewStatus()
                    .addNewResourceClaimStatus()
                    .withName("gpu")
                    .withResourceClaimName(generated)
                    .endResourceClaimStatus()
                    .endStatus();
        }
        return b.build();
    }

    @Test
    void aClaimAllocatedByTheGpuDraDriverMakesAGpuPod() {
        assertThat(NodePod.requestsGpu(pod("gpu-claim", null, null), KNOWN)).isTrue();
        assertThat(NodePod.of(pod("gpu-claim", null, null), false, KNOWN).requestsGpu()).isTrue();
    }

    @Test
    void aClaimFromATemplateIsFoundThroughThePodStatus() {
        assertThat(NodePod.requestsGpu(pod(null, "gpu-template", "train-gpu-x7k2"), KNOWN))
                .isTrue();
        assertThat(NodePod.requestsGpu(pod(null, "gpu-template", null), KNOWN))
                .as("no claim made yet: nothing held")
                .isFalse();
    }

    @Test
    void anotherDriversClaimOrAClaimGoneIsNoGpu() {
        assertThat(NodePod.requestsGpu(pod("nic-claim", null, null), KNOWN)).isFalse();
        assertThat(NodePod.requestsGpu(pod("deleted", null, null), KNOWN)).isFalse();
        assertThat(GpuClaims.allocatedToGpuDriver(new ResourceClaim()))
                .as("not allocated")
                .isFalse();
    }

    @Test
    void aClaimThatCannotBeReadCountsSoThatNoGpuIsLeftUnderTheDriver() {
        assertThat(NodePod.requestsGpu(pod("nic-claim", null, null), GpuClaims.UNREADABLE))
                .isTrue();
        assertThat(NodePod.of(pod("nic-claim", null, null), false).requestsGpu()).isTrue();
    }

    @Test
    void aGpuPodOfDraIsEvictedAtPodDeletionAndAnotherDriversIsNot() {
        UpgradeWorld world = new UpgradeWorld();
        UpgradeWorld.Node n = world.node("a", "570.172.08");
        n.labels.put(UpgradeKeys.STATE_LABEL, "pod-deletion-required");
        n.unschedulable = true;
        n.annotations.put(UpgradeKeys.INITIAL_STATE_UNSCHEDULABLE, "false");
        Pod gpu = pod("gpu-claim", null, null);
        gpu.getMetadata().setName("dra-train");
        gpu.getMetadata()
                .setOwnerReferences(
                        java.util.List.of(
                                new io.fabric8.kubernetes.api.model.OwnerReferenceBuilder()
                                        .withKind("Job")
                                        .withName("j")
                                        .withController(true)
                                        .build()));
        Pod nic = pod("nic-claim", null, null);
        nic.getMetadata().setName("dra-net");
        n.pod(NodePod.of(gpu, false, KNOWN)).pod(NodePod.of(nic, false, KNOWN));
        world.pass();
        assertThat(world.last.step("a").orElseThrow().actions())
                .containsExactly(
                        new UpgradeAction.Annotate(
                                UpgradeKeys.POD_DELETION_START, UpgradeMachine.epoch(world.now)),
                        new UpgradeAction.EvictPod("work", "dra-train"));
    }
}
