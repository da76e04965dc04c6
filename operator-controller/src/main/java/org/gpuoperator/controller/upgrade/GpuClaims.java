package org.gpuoperator.controller.upgrade;

import io.fabric8.kubernetes.api.model.resource.v1.ResourceClaim;
import java.util.Optional;

/**
 * Which ResourceClaims (resource.k8s.io/v1, Dynamic Resource Allocation) hold a GPU: those
 * allocated a device by the NVIDIA GPU DRA driver ({@link #GPU_DRIVER}). A pod holding one is a GPU
 * pod as one with an {@code nvidia.com/gpu} resource is ({@code NodePod.requestsGpu}).
 */
@FunctionalInterface
public interface GpuClaims {

    /** The driver name of NVIDIA's DRA driver for GPUs in a claim's allocation results. */
    String GPU_DRIVER = "gpu.nvidia.com";

    /**
     * Whether the claim is allocated a device of {@link #GPU_DRIVER}; empty when it cannot be told
     * (the claims cannot be read, or are not listed yet).
     */
    Optional<Boolean> holdsGpu(String namespace, String name);

    /** Nothing is known about any claim: every pod with a claim counts as a GPU pod. */
    GpuClaims UNREADABLE = (namespace, name) -> Optional.empty();

    /** Whether one claim object is allocated a device of {@link #GPU_DRIVER} (pure). */
    static boolean allocatedToGpuDriver(ResourceClaim claim) {
        if (claim == null
                || claim.getStatus() == null
                || claim.getStatus().getAllocation() == null
                || claim.getStatus().getAllocation().getDevices() == null
                || claim.getStatus().getAllocation().getDevices().getResults() == null) {
            return false;
        }
        return claim.getStatus().getAllocation().getDevices().getResults().stream()
                .anyMatch(r -> GPU_DRIVER.equals(r.getDriver()));
    }
}
