package org.gpuoperator.controller.upgrade;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodResourceClaim;
import io.fabric8.kubernetes.api.model.PodResourceClaimStatus;
import io.fabric8.kubernetes.api.model.Quantity;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A pod on a node, as the upgrade sees it.
 *
 * @param requestsGpu a container asks for {@code nvidia.com/gpu*} or {@code nvidia.com/mig-*}, or
 *     the pod holds a ResourceClaim allocated by the GPU DRA driver ({@link GpuClaims})
 * @param nodeBound owned by a DaemonSet, or a static (mirror) pod: never evicted, a drain skips it
 * @param controlled has a controller owner (something recreates it elsewhere)
 * @param usesEmptyDir has an emptyDir volume (its data is lost on eviction)
 * @param finished phase Succeeded or Failed
 * @param terminating already being deleted
 * @param evictionBlocked the last eviction of this pod was refused (HTTP 429: a
 *     PodDisruptionBudget), as the wiring recorded it
 */
public record NodePod(
        String namespace,
        String name,
        Map<String, String> labels,
        boolean requestsGpu,
        boolean nodeBound,
        boolean controlled,
        boolean usesEmptyDir,
        boolean finished,
        boolean terminating,
        boolean evictionBlocked) {

    public NodePod {
        labels = labels == null ? Map.of() : Map.copyOf(labels);
    }

    public String ref() {
        return namespace + "/" + name;
    }

    /** Whether a controller owns the pod; an orphan was left by a deleted one. */
    public static boolean hasController(Pod pod) {
        List<OwnerReference> owners = pod.getMetadata().getOwnerReferences();
        return owners != null
                && owners.stream().anyMatch(o -> Boolean.TRUE.equals(o.getController()));
    }

    /** The view of a fabric8 Pod (pure), with no ResourceClaim readable. */
    public static NodePod of(Pod pod, boolean evictionBlocked) {
        return of(pod, evictionBlocked, GpuClaims.UNREADABLE);
    }

    /** The view of a fabric8 Pod (pure); its ResourceClaims told apart by {@code claims}. */
    public static NodePod of(Pod pod, boolean evictionBlocked, GpuClaims claims) {
        var meta = pod.getMetadata();
        List<OwnerReference> owners =
                meta.getOwnerReferences() == null ? List.of() : meta.getOwnerReferences();
        boolean daemonSet =
                owners.stream()
                        .anyMatch(
                                o ->
                                        Boolean.TRUE.equals(o.getController())
                                                && "DaemonSet".equals(o.getKind()));
        boolean mirror =
                meta.getAnnotations() != null
                        && meta.getAnnotations().containsKey("kubernetes.io/config.mirror");
        boolean controlled = hasController(pod);
        var spec = pod.getSpec();
        boolean emptyDir =
                spec != null
                        && spec.getVolumes() != null
                        && spec.getVolumes().stream().anyMatch(v -> v.getEmptyDir() != null);
        String phase = pod.getStatus() == null ? null : pod.getStatus().getPhase();
        return new NodePod(
                meta.getNamespace(),
                meta.getName(),
                meta.getLabels(),
                requestsGpu(pod, claims),
                daemonSet || mirror,
                controlled,
                emptyDir,
                "Succeeded".equals(phase) || "Failed".equals(phase),
                meta.getDeletionTimestamp() != null,
                evictionBlocked);
    }

    /**
     * A GPU pod: upstream's filter (a GPU or MIG resource in a container's limits or requests), or
     * a pod holding a GPU through Dynamic Resource Allocation: one of its {@code
     * spec.resourceClaims} (by {@code resourceClaimName}, or for a template the claim {@code
     * status.resourceClaimStatuses} names) is allocated by {@link GpuClaims#GPU_DRIVER}, or cannot
     * be read (then it counts, so that a GPU held that way is never left under the driver). A claim
     * not made yet holds nothing.
     */
    public static boolean requestsGpu(Pod pod, GpuClaims claims) {
        if (requestsGpu(pod)) {
            return true;
        }
        if (pod.getSpec() == null || pod.getSpec().getResourceClaims() == null) {
            return false;
        }
        String namespace = pod.getMetadata().getNamespace();
        for (PodResourceClaim c : pod.getSpec().getResourceClaims()) {
            String claim = claimName(pod, c);
            if (claim != null && claims.holdsGpu(namespace, claim).orElse(true)) {
                return true;
            }
        }
        return false;
    }

    /** The ResourceClaim a pod's claim entry stands for, or null while none is made. */
    private static String claimName(Pod pod, PodResourceClaim c) {
        if (c.getResourceClaimName() != null) {
            return c.getResourceClaimName();
        }
        if (pod.getStatus() == null || pod.getStatus().getResourceClaimStatuses() == null) {
            return null;
        }
        return pod.getStatus().getResourceClaimStatuses().stream()
                .filter(s -> c.getName() != null && c.getName().equals(s.getName()))
                .map(PodResourceClaimStatus::getResourceClaimName)
                .filter(n -> n != null)
                .findFirst()
                .orElse(null);
    }

    /** Upstream's GPU pod filter: a GPU or MIG resource in a container's limits or requests. */
    public static boolean requestsGpu(Pod pod) {
        if (pod.getSpec() == null) {
            return false;
        }
        List<Container> containers = new ArrayList<>();
        if (pod.getSpec().getContainers() != null) {
            containers.addAll(pod.getSpec().getContainers());
        }
        if (pod.getSpec().getInitContainers() != null) {
            containers.addAll(pod.getSpec().getInitContainers());
        }
        for (Container c : containers) {
            if (c.getResources() != null
                    && (gpu(c.getResources().getLimits()) || gpu(c.getResources().getRequests()))) {
                return true;
            }
        }
        return false;
    }

    private static boolean gpu(Map<String, Quantity> resources) {
        return resources != null
                && resources.keySet().stream()
                        .anyMatch(
                                k ->
                                        k.startsWith(UpgradeKeys.GPU_RESOURCE_PREFIX)
                                                || k.startsWith(UpgradeKeys.MIG_RESOURCE_PREFIX));
    }
}
